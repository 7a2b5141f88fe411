"""JAX programs ported to tf8 by a plain renaming (`jax` -> `tf8`), against the numbers JAX
computed for them (x64, recorded by `record.py`) at 1e-6 relative."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

import tf8

from .record import PROGRAMS

RECORDED = Path(__file__).resolve().parent / "recorded"


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_ported_program_matches_jax(name):
    program = importlib.import_module(f"tests.ported.{name}")
    expected = np.load(RECORDED / f"{name}.npz")
    got = program.run(tf8)
    assert sorted(got) == sorted(expected.files)
    for key in expected.files:
        assert got[key].shape == expected[key].shape, key
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-6, atol=1e-12, err_msg=key)
