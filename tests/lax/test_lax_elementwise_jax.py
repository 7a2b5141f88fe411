"""tf8.lax's elementwise functions where JAX 0.10's lax computes or refuses: bools in max/min,
complex atan2, the sign of zeros, integer_pow's edges and the refusals JAX makes."""

import numpy as np
import pytest

import tf8
from tf8 import errors, lax


def test_max_and_min_of_bools_are_or_and_and():
    a, b = np.array([True, False, True]), np.array([False, False, True])
    assert lax.max(a, b).tolist() == [True, False, True]  # JAX's lax.max on bools
    assert lax.min(a, b).tolist() == [False, False, True]


def test_sign_keeps_the_sign_of_zero():
    # XLA (and JAX): sign(-0.0) = -0.0, also when fused by the engines
    x = np.array([-0.0, 0.0, -2.0, np.nan])
    for fn in (lax.sign, tf8.jit(lambda v: lax.sign(v * 1.0)), tf8.jit(lax.sign, engine="numba")):
        out = np.asarray(fn(x))
        assert np.signbit(out[:3]).tolist() == [True, False, True] and np.isnan(out[3])


def test_atan2_of_complex_operands():
    y, x = np.array([1 + 2j]), np.array([0.5 - 1j])
    np.testing.assert_allclose(lax.atan2(y, x), [1.9081667979066728 + 0.3790868723420225j])


def test_integer_pow_edges():
    x = np.array([np.nan, np.inf, 2.0])
    np.testing.assert_array_equal(lax.integer_pow(x, 0), [1.0, 1.0, 1.0])
    _, tangent = tf8.jvp(lambda v: lax.integer_pow(v, 0), (x,), (np.ones(3),))
    np.testing.assert_array_equal(tangent, [0.0, 0.0, 0.0])  # JAX: 0, NaN and inf included
    with pytest.raises(errors.DTypeError):
        lax.integer_pow(np.array([2], np.int32), -1)


def test_pow_of_a_python_float_by_a_python_int():
    assert float(lax.pow(2.0, 3)) == 8.0
    assert complex(lax.pow(1j, 2)) == -1


def test_round_keeps_a_weak_type():
    assert lax.round(tf8.numpy.asarray(2.5) * 1.0) == 3.0
    assert lax.round(2.5)._weak  # JAX: a Python float stays weak


@pytest.mark.parametrize(
    "call",
    [
        lambda: lax.rem(np.array([1j]), np.array([1j])),
        lambda: lax.lt(np.array([1j]), np.array([2j])),
        lambda: lax.ge(np.array([1j]), np.array([2j])),
    ],
)
def test_refusals_jax_makes(call):
    with pytest.raises(errors.DTypeError):
        call()


def test_select_takes_a_scalar_or_integer_predicate_and_clamp_takes_bools_as_jax():
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(tf8.lax.select(True, a, -a), a)  # jax: a
    picked = tf8.lax.select(np.array([[1, 0, 2], [0, 1, 0]], np.int32), a, -a)
    np.testing.assert_array_equal(picked, [[0.0, -1.0, 2.0], [-3.0, 4.0, -5.0]])  # jax
    t, f = np.array(True), np.array(False)
    np.testing.assert_array_equal(tf8.lax.clamp(f, np.array([True, False]), t), [True, False])
    np.testing.assert_array_equal(tf8.lax.clamp(t, np.array([True, False]), t), [True, True])
