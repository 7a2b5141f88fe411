"""Maxima and minima with XLA's signed zeros (tf8.ops.extrema): +0 is greater than -0 and NaN
propagates, for clamp, the reductions, the running and the windowed ones, eagerly and on every
engine (numpy's ufuncs return either zero of a tie; the maximum and minimum rows keep them, a
deliberate difference README names)."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

import tf8
from tf8 import lax
from tf8.ops import extrema
from tf8.runtime import Runtime

# every pair of two zeros, a negative number and NaN, both ways round
VALUES = np.array([0.0, -0.0, -1.0, np.nan])
A, B = (v.ravel() for v in np.meshgrid(VALUES, VALUES))


def ieee_max(a, b):
    return np.where((a == 0) & (b == 0), a + b, np.maximum(a, b))  # 0.0 + -0.0 is 0.0


def ieee_min(a, b):
    return np.where((a == 0) & (b == 0), -(-a - b), np.minimum(a, b))


def along(pair, x, axis):
    """`pair` folded along `axis`, one element at a time."""
    return np.apply_along_axis(lambda v: functools.reduce(pair, v), axis, x)


def assert_same(found, expected):
    found, expected = np.asarray(found), np.asarray(expected)
    assert found.dtype == expected.dtype and found.shape == expected.shape
    np.testing.assert_array_equal(found, expected)
    assert np.array_equal(np.signbit(found), np.signbit(expected)), (found, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clamp_and_the_pairs_prefer_the_zero_xla_does(dtype):
    a, b = A.astype(dtype), B.astype(dtype)
    assert_same(extrema.maximum(a, b), ieee_max(a, b))
    assert_same(extrema.minimum(a, b), ieee_min(a, b))
    assert_same(extrema.maximum(dtype(-0.0), dtype(0.0)), np.asarray(0.0, dtype))
    assert_same(extrema.minimum(dtype(0.0), dtype(-0.0)), np.asarray(-0.0, dtype))
    hi = np.zeros_like(a)
    assert_same(lax.clamp(b, a, hi), ieee_min(ieee_max(a, b), hi))
    assert_same(lax.clamp(b, a, -hi), ieee_min(ieee_max(a, b), -hi))


def test_reductions_running_and_windowed_extrema_prefer_the_zero_xla_does():
    x = np.random.default_rng(0).choice(VALUES[:3], size=(4, 7))
    x[0] = -0.0  # a row of -0 alone: its max is -0
    for axis in (0, 1):
        assert_same(lax.reduce_max(x, (axis,)), along(ieee_max, x, axis))
        assert_same(lax.reduce_min(x, (axis,)), along(ieee_min, x, axis))
    assert_same(lax.reduce_max(x, (0, 1)), along(ieee_max, x.ravel(), 0))
    running = [float(v) for v in itertools.accumulate(x[1], ieee_max)]
    assert_same(lax.cummax(x[1], axis=0), np.array(running))
    pairs = lax.reduce_window(x[1], -np.inf, lax.max, (2,), (1,), "VALID")
    assert_same(pairs, ieee_max(x[1][:-1], x[1][1:]))
    pairs = lax.reduce_window(-x[1], np.inf, lax.min, (2,), (1,), "VALID")
    assert_same(pairs, ieee_min(-x[1][:-1], -x[1][1:]))


def test_integers_are_numpys():
    a = np.array([3, 0, -2], np.int32)
    assert_same(lax.clamp(a[::-1], a, np.int32(1)), np.minimum(np.maximum(a, a[::-1]), 1))
    assert_same(lax.reduce_min(a, (0,)), np.int32(-2))


def program(x, y):
    """clamp and reductions along axes (numba: loops along them)."""
    low = lax.clamp(y, x * 1.0, -y)
    return low, lax.reduce_max(x * 1.0, (1,)), lax.reduce_min(low, (0,))


def totals(y):
    """Reductions of every axis of values without NaN (numba: the lanes' block folds)."""
    z = y * 1.0
    return (
        lax.reduce_max(z, (0, 1)),
        lax.reduce_min(-z, (0, 1)),
        lax.reduce_max(lax.clamp(z, z, -z), (0, 1)),
    )


def expected(x, y):
    low = ieee_min(ieee_max(x, y), -y)
    return low, along(ieee_max, x, 1), along(ieee_min, low, 0)


def expected_totals(y):
    z = y.ravel()
    return along(ieee_max, z, 0), along(ieee_min, -z, 0), along(ieee_max, ieee_min(z, -z), 0)


def operands():
    rng = np.random.default_rng(1)
    x = rng.choice(VALUES, size=(6, 40))
    y = rng.choice(VALUES[:3], size=(6, 40))
    x[:, :3], y[:, :3] = 0.0, -0.0  # ties of zeros in every row
    x[0], x[1] = -0.0, -1.0  # a row of -0 alone, and one whose max is a tie of zeros:
    x[1, 5:7] = -0.0, 0.0
    y[0, 5], y[-1, -1] = 0.0, -0.0  # y's last zero (of a fold in order) is not its max
    return x, y


@pytest.mark.parametrize("fun, reference", [(program, expected), (totals, expected_totals)])
def test_the_numba_engine_compiles_xlas_rule(fun, reference):
    pytest.importorskip("numba", reason="the numba engine needs its extra: pip install numba")
    args = operands()[1:] if fun is totals else operands()
    compiled = tf8.make_program(fun)(*args)
    prepared = Runtime(engines=["numba"], optimise=True).prepare(compiled)
    placed = {inst.name: inst.engine for inst in prepared.program.instructions}
    assert {placed[n] for n in ("clamp", "reduce_max", "reduce_min")} == {"numba"}, (
        prepared.pretty()
    )
    for found, wanted in zip(prepared.run(*args), reference(*args), strict=True):
        assert_same(found, wanted)


@pytest.mark.parametrize("fun, reference", [(program, expected), (totals, expected_totals)])
def test_the_dask_engine_reduces_chunks_by_xlas_rule(fun, reference):
    da = pytest.importorskip("dask.array", reason="the Dask engine needs its extra")
    import dask

    args = operands()[1:] if fun is totals else operands()
    found = tf8.jit(fun)(*(da.from_array(a, chunks=(2, 9)) for a in args))
    with dask.config.set(scheduler="synchronous"):
        for value, wanted in zip(found, reference(*args), strict=True):
            assert_same(np.asarray(value), wanted)
