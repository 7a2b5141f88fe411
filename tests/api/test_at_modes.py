"""`x.at[index]` out of bounds as JAX's (values recorded from jax 0.10.2, x64): a get clamps by
default and reads `fill_value` with mode='fill'; an update is dropped by default and clamped
with mode='clip'; on every path (eager, jit, grad)."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import ParameterError

X = np.arange(3.0)


def test_get_clamps_by_default_and_fills_with_mode_fill():
    x = tnp.asarray(X)
    assert float(x.at[5].get()) == 2.0  # jax: 2.0
    assert float(x.at[5].get(mode="fill", fill_value=-1.0)) == -1.0  # jax: -1.0
    np.testing.assert_array_equal(x.at[tnp.array([0, 5])].get(mode="fill"), [0.0, np.nan])
    assert float(x.at[5].get(mode="clip")) == 2.0 and float(x.at[1].get(mode="clip")) == 1.0
    ints = tnp.arange(3)
    assert int(ints.at[7].get(mode="fill")) == np.iinfo(np.int64).min  # jax: the lowest int
    m = tnp.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(m.at[:, 7].get(mode="fill"), [np.nan] * 3)


def test_updates_are_dropped_by_default_and_clamped_with_mode_clip():
    x = tnp.asarray(X)
    np.testing.assert_array_equal(x.at[5].set(9.0), X)  # jax: [0. 1. 2.]
    np.testing.assert_array_equal(x.at[5].add(1.0), X)
    np.testing.assert_array_equal(x.at[-4].set(9.0), X)
    np.testing.assert_array_equal(x.at[tnp.array([0, 5])].set(7.0, mode="clip"), [7.0, 1.0, 7.0])
    np.testing.assert_array_equal(x.at[np.array([0, 5])].set(7.0), [7.0, 1.0, 2.0])
    np.testing.assert_array_equal(x.at[-1].set(5.0), [0.0, 1.0, 5.0])
    m = tnp.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(m.at[5, 1:3].set(0.0), np.arange(12.0).reshape(3, 4))


@pytest.mark.parametrize("i, expected", [(1, [0.0, 9.0, 2.0]), (5, X), (-1, [0.0, 1.0, 9.0])])
def test_traced_indices_follow_the_same_modes_under_jit(i, expected):
    set_at = tf8.jit(lambda x, i: x.at[i].set(9.0))
    np.testing.assert_array_equal(set_at(X, i), expected)
    get_at = tf8.jit(lambda x, i: x.at[i].get(mode="fill", fill_value=-3.0))
    assert float(get_at(X, i)) == (X[i] if -3 <= i < 3 else -3.0)


def test_filled_and_dropped_positions_have_zero_derivative():
    def f(x):
        picked = x.at[tnp.array([0, 5, 2])].get(mode="fill", fill_value=0.0)
        return tnp.sum(picked**2) + tnp.sum(x.at[7].set(100.0) * 3.0)

    np.testing.assert_allclose(tf8.grad(f)(X + 1.0), [2.0 + 3.0, 3.0, 6.0 + 3.0])


def test_an_unknown_mode_is_a_parameter_error():
    with pytest.raises(ParameterError, match="unknown mode 'raise'"):
        tnp.ones(3).at[0].set(1.0, mode="raise")
