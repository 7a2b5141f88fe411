"""numpy.pad's value-building modes (statistics, linear_ramp, odd reflection) against numpy,
eagerly, under jit, and their derivatives against central differences."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp

X = np.random.default_rng(0).normal(size=(3, 4))
CASES = [
    (2, "reflect", {"reflect_type": "odd"}),
    (((0, 7), (3, 1)), "symmetric", {"reflect_type": "odd"}),
    (1, "maximum", {}),
    (2, "minimum", {"stat_length": ((1, 2), (3, 1))}),
    (1, "mean", {"stat_length": 2}),
    (2, "median", {}),
    (2, "linear_ramp", {"end_values": ((1.0, 2.0), (3.0, -4.0))}),
]


@pytest.mark.parametrize("width, mode, keywords", CASES)
def test_pad_modes_match_numpy(width, mode, keywords):
    expected = np.pad(X, width, mode=mode, **keywords)
    np.testing.assert_allclose(tnp.pad(X, width, mode=mode, **keywords), expected, rtol=1e-14)
    jitted = tf8.jit(lambda v: tnp.pad(v, width, mode=mode, **keywords))(X)
    np.testing.assert_allclose(jitted, expected, rtol=1e-14)
    ints = X.round().astype(np.int32) * 3
    np.testing.assert_array_equal(
        tnp.pad(ints, width, mode=mode, **keywords), np.pad(ints, width, mode=mode, **keywords)
    )


@pytest.mark.parametrize("width, mode, keywords", CASES)
def test_pad_mode_derivatives(width, mode, keywords):
    weights = np.random.default_rng(1).normal(size=np.pad(X, width).shape)
    grad = tf8.grad(lambda v: tnp.sum(tnp.pad(v, width, mode=mode, **keywords) * weights))(X)
    step, numeric = 1e-6, np.zeros_like(X)
    for i in np.ndindex(X.shape):
        e = np.zeros_like(X)
        e[i] = step
        plus = np.sum(np.pad(X + e, width, mode=mode, **keywords) * weights)
        minus = np.sum(np.pad(X - e, width, mode=mode, **keywords) * weights)
        numeric[i] = (plus - minus) / (2 * step)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)
