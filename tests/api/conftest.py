"""Fixtures shared by the API tests."""

import pytest

from tf8 import traced


@pytest.fixture
def count_evaluations(monkeypatch):
    """Counts calls of the evaluator hook (each is one compile + run)."""
    calls = []
    real = traced._evaluator

    def counting(tensors):
        calls.append(len(tensors))
        return real(tensors)

    monkeypatch.setattr(traced, "_evaluator", counting)
    return calls
