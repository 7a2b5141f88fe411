"""Fixtures shared by the API tests."""

import pytest

from tf8 import traced


@pytest.fixture
def count_evaluations(monkeypatch):
    """Counts the evaluations of pending traced values (each runs their graph's kernels)."""
    calls = []
    real = traced._evaluate

    def counting(tensors):
        calls.append(len(tensors))
        return real(tensors)

    monkeypatch.setattr(traced, "_evaluate", counting)
    return calls
