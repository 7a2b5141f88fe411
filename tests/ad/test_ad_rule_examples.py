"""Fixed examples for rule-table corners the random tests found (kept as regression tests)."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.lax.core import apply1 as _apply1
from tf8.ops.gather import take_params, take_transpose_params
from tf8.traced import TracedTensor


def apply1(name, operands, **params):
    """The primitive on numpy arrays or traced values (check_grads calls with both)."""
    traced = [x if isinstance(x, TracedTensor) else tf8.tensor(np.asarray(x)) for x in operands]
    return _apply1(name, traced, **params)


RNG = np.random.default_rng(0)
X23 = RNG.standard_normal((2, 3))
Y34 = RNG.standard_normal((3, 4))

NEGATIVE_AXES = {
    "reduce_sum": (lambda x: apply1("reduce_sum", [x], axes=(-1,)), [X23]),
    "reduce_prod": (lambda x: apply1("reduce_prod", [x], axes=(-1, 0)), [X23]),
    "reduce_max": (lambda x: apply1("reduce_max", [x], axes=(-2,)), [X23]),
    "reduce_min": (lambda x: apply1("reduce_min", [x], axes=(-1,)), [X23]),
    "cumsum": (lambda x: apply1("cumsum", [x], axis=-1, reverse=True), [X23]),
    "concatenate": (lambda a, b: apply1("concatenate", [a, b], axis=-1), [X23, 2 * X23]),
    "pad_to_match": (
        lambda a: apply1("pad_to_match", [a, np.zeros((2, 5))], axis=-1),
        [X23],
    ),
    "dot_general": (
        lambda a, b: apply1("dot_general", [a, b], contracting=((-1,), (-2,)), batch=((), ())),
        [X23, Y34],
    ),
    "reverse": (lambda x: apply1("reverse", [x], axes=(-1,)), [X23]),
}


@pytest.mark.parametrize("name", sorted(NEGATIVE_AXES))
def test_negative_axis_parameters(name):
    f, args = NEGATIVE_AXES[name]
    tf8.check_grads(f, args, order=2)


def test_clamp_with_lo_above_hi_follows_its_definition():
    """clamp(lo, x, hi) = min(max(x, lo), hi): with lo > hi the result is hi."""
    lo, x, hi = np.array([1.0]), np.array([0.1]), np.array([0.0])
    grads = tf8.grad(lambda lo, x, hi: tnp.sum(apply1("clamp", [lo, x, hi])), argnums=(0, 1, 2))(
        lo, x, hi
    )
    assert [float(g[0]) for g in grads] == [0.0, 0.0, 1.0]


def test_clamp_inside_the_interval_and_outside():
    x = np.array([-2.0, 0.5, 3.0])
    lo, hi = np.zeros(3), np.ones(3)
    g_lo, g_x, g_hi = tf8.grad(
        lambda lo, x, hi: tnp.sum(apply1("clamp", [lo, x, hi])), argnums=(0, 1, 2)
    )(lo, x, hi)
    np.testing.assert_array_equal(g_lo, [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(g_x, [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(g_hi, [0.0, 0.0, 1.0])


def test_imag_of_a_real_value_has_zero_gradient():
    assert tf8.grad(lambda x: tnp.imag(x) + x)(2.0) == 1.0
    tf8.check_grads(lambda x: apply1("imag", [x]), [X23], order=1)


def test_rem_gradient_in_the_complex_divisor():
    x, y = np.array([5.3 + 1.0j]), np.array([2.0 + 0.5j])
    _, tangent = tf8.jvp(lambda y: apply1("rem", [x, y]), (y,), (np.ones(1, complex),))
    np.testing.assert_allclose(tangent, -np.floor((x / y).real))
    tf8.check_grads(lambda x, y: apply1("rem", [x, y]), [x, y], order=2)


def test_maximum_and_minimum_on_arrays():
    x, y = np.array([1.0, 5.0, -2.0]), np.array([2.0, 3.0, -2.0])
    gx, gy = tf8.grad(lambda x, y: tnp.sum(tnp.maximum(x, y) * x), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, [2.0, 10.0, -3.0])  # max + x * weight
    np.testing.assert_allclose(gy, [1.0, 0.0, -1.0])


OUT_OF_RANGE = np.array([[-2], [0], [7], [3], [3]])


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_gather_with_indices_out_of_range(dtype):
    """gather clamps starts into range; its transpose must scatter where it read."""
    x = RNG.standard_normal((4, 3))
    params = take_params(x.shape, 0, 1)
    indices = OUT_OF_RANGE.astype(dtype)
    tf8.check_grads(lambda x: apply1("gather", [x, indices], **params), [x], order=2)
    g = tf8.grad(lambda x: tnp.sum(apply1("gather", [x, indices], **params)))(x)
    np.testing.assert_array_equal(g[:, 0], [2.0, 0.0, 0.0, 3.0])  # -2 -> 0, 7 -> 3


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_scatter_add_with_indices_out_of_range(dtype):
    """scatter_add drops windows out of range: their updates get a zero gradient."""
    x, updates = RNG.standard_normal((4, 3)), RNG.standard_normal((5, 3))
    params = take_transpose_params(x.shape, 0, 1)
    indices = OUT_OF_RANGE.astype(dtype)

    def f(x, u):
        return apply1("scatter_add", [x, indices, u], **params)

    tf8.check_grads(f, [x, updates], order=2)
    g = tf8.grad(lambda u: tnp.sum(f(x, u)))(updates)
    np.testing.assert_array_equal(g[:, 0], [0.0, 1.0, 0.0, 1.0, 1.0])
