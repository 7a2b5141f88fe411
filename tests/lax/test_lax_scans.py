"""lax.associative_scan and the running reductions cumprod, cummax, cummin, cumlogsumexp:
values against Python loops, derivatives against finite differences to second order, vmap
against a loop, jit against eager, and the errors."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import tf8
from tf8 import lax
from tf8.errors import AxisError, DifferentiationError, DTypeError, ShapeError

RNG = np.random.default_rng(31)
CUMULATIVE = {
    "cumprod": lambda a, b: a * b,
    "cummax": np.maximum,
    "cummin": np.minimum,
    "cumlogsumexp": np.logaddexp,
}


def running(step, x: np.ndarray, axis: int = 0, reverse: bool = False) -> np.ndarray:
    """out[i] = step(out[i - 1], x[i]) along `axis`, in a Python loop."""
    moved = np.moveaxis(np.flip(x, axis) if reverse else x, axis, 0).copy()
    for i in range(1, moved.shape[0]):
        moved[i] = step(moved[i - 1], moved[i])
    out = np.moveaxis(moved, 0, axis)
    return np.flip(out, axis) if reverse else out


# --- associative_scan --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 13])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_matches_a_loop_for_every_length(n, reverse):
    x = RNG.uniform(0.5, 1.5, (n, 3))
    for fn, step in ((lax.add, np.add), (lax.mul, np.multiply), (lax.max, np.maximum)):
        got = lax.associative_scan(fn, x, reverse=reverse)
        np.testing.assert_allclose(got, running(step, x, 0, reverse), rtol=1e-14)


def test_associative_scan_of_a_pytree_composes_affine_maps():
    """(a, b) pairs compose as x -> a x + b: the scan is the linear recurrence y = a y + b."""
    a, b = RNG.uniform(0.5, 1.5, (2, 2, 9))
    fn = lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1])  # noqa: E731
    scale, shift = lax.associative_scan(fn, (a, b), axis=1)
    y = np.zeros((2,))
    for k in range(9):
        y = a[:, k] * y + b[:, k]
        np.testing.assert_allclose(shift[:, k], y, rtol=1e-13)
    np.testing.assert_allclose(scale, np.cumprod(a, axis=1), rtol=1e-13)
    reversed_ = lax.associative_scan(lambda p, q: {"s": p["s"] + q["s"]}, {"s": b}, True, -1)
    np.testing.assert_allclose(reversed_["s"], np.flip(np.cumsum(np.flip(b, 1), 1), 1))


def test_associative_scan_jit_vmap_and_derivatives():
    x = RNG.uniform(0.5, 1.5, (4, 6))
    scan = lambda v: lax.associative_scan(lax.mul, v, axis=-1)  # noqa: E731
    np.testing.assert_array_equal(tf8.jit(scan)(x), scan(x))
    looped = np.stack([lax.associative_scan(lax.mul, row) for row in x])
    np.testing.assert_allclose(tf8.vmap(lambda r: lax.associative_scan(lax.mul, r))(x), looped)
    tf8.check_grads(scan, [x], order=2)
    affine = lambda a, b: lax.associative_scan(  # noqa: E731
        lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1]), (a, b), reverse=True
    )
    tf8.check_grads(affine, [x, x[::-1].copy()], order=2)


def test_associative_scan_interleaves_by_addition_as_jax():
    """A -0.0 entry comes back +0.0 where JAX's interleaving adds a padded zero to it."""
    out = np.asarray(lax.associative_scan(lax.add, np.array([-0.0, -0.0, 1.0])))
    np.testing.assert_array_equal(out, [0.0, 0.0, 1.0])
    assert not np.signbit(out[1])
    flags = lax.associative_scan(lax.bitwise_or, np.array([False, True, False]))
    np.testing.assert_array_equal(flags, [False, True, True])


def test_associative_scan_errors_name_the_function_and_shapes():
    x = np.ones((3, 4))
    with pytest.raises(AxisError, match="associative_scan: axis 2"):
        lax.associative_scan(lax.add, x, axis=2)
    with pytest.raises(ShapeError, match=r"associative_scan.*float64\(3, 4\).*float64\(2, 4\)"):
        lax.associative_scan(lambda p, q: (p[0] + q[0], p[1] + q[1]), (x, x[:2]))
    with pytest.raises(ShapeError, match="elementwise"):
        lax.associative_scan(lambda p, q: lax.reduce_sum(p + q, (0,)), x)
    with pytest.raises(tf8.errors.ParameterError, match="callable"):
        lax.associative_scan(3, x)


# --- the running reductions --------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CUMULATIVE))
@pytest.mark.parametrize("axis,reverse", [(0, False), (1, True), (2, False), (1, False)])
def test_running_reductions_match_a_loop(name, axis, reverse):
    low = 0.5 if name == "cumprod" else -2.0
    x = RNG.uniform(low, 2.0, (3, 4, 5))
    got = getattr(lax, name)(x, axis=axis, reverse=reverse)
    np.testing.assert_allclose(got, running(CUMULATIVE[name], x, axis, reverse), rtol=1e-13)
    assert got.dtype == x.dtype and got.shape == x.shape


@pytest.mark.parametrize("name", ["cumprod", "cummax", "cummin"])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int64, np.float32])
def test_integer_and_float32_operands_keep_their_dtype(name, dtype):
    x = np.array([[3, 1, 2], [5, 7, 4]]).astype(dtype)
    got = getattr(lax, name)(x, axis=1)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, running(CUMULATIVE[name], x, 1).astype(dtype))


def test_complex_operands():
    z = RNG.uniform(-1.0, 1.0, (5,)) + 1j * RNG.uniform(-1.0, 1.0, (5,))
    np.testing.assert_allclose(lax.cumprod(z), np.cumprod(z), rtol=1e-14)
    expected = running(lambda a, b: np.log(np.exp(a) + np.exp(b)), z)
    np.testing.assert_allclose(lax.cumlogsumexp(z), expected, rtol=1e-13)
    # lexicographic order, as lax.max: the real parts first
    w = np.array([1 + 2j, 1 + 3j, 0 + 9j])
    np.testing.assert_array_equal(lax.cummax(w), [1 + 2j, 1 + 3j, 1 + 3j])


def test_special_values_and_signed_zeros_follow_xla():
    inf, nan = np.inf, np.nan
    np.testing.assert_array_equal(lax.cummax(np.array([1.0, nan, 3.0])), [1.0, nan, nan])
    np.testing.assert_array_equal(lax.cumlogsumexp(np.array([-inf, -inf, 0.0])), [-inf, -inf, 0])
    np.testing.assert_array_equal(lax.cumlogsumexp(np.array([inf, 1.0])), [inf, inf])
    # +0 beats -0 in a max, -0 wins a min; -inf (+) -0 is +0
    signs = np.signbit(lax.cummax(np.array([-0.0, 0.0, -1.0])))
    np.testing.assert_array_equal(signs, [True, False, False])  # JAX's [-0., 0., 0.]
    assert np.signbit(lax.cummax(np.array([-0.0, -1.0]))).all()
    assert np.signbit(lax.cummin(np.array([0.0, -0.0, 1.0]))[1:]).all()
    assert not np.signbit(lax.cumlogsumexp(np.array([-0.0]))).any()


@pytest.mark.parametrize("name", sorted(CUMULATIVE))
def test_derivatives_to_second_order(name):
    x = RNG.uniform(0.5, 1.5, (3, 4))
    if name in ("cummax", "cummin"):  # no ties: the running extremum is differentiable
        x = np.argsort(np.argsort(x.ravel())).reshape(3, 4) * 0.37 - 2.0
    for axis, reverse in ((0, False), (1, True)):
        fn = functools.partial(getattr(lax, name), axis=axis, reverse=reverse)
        tf8.check_grads(fn, [x], order=2)


def test_cumprod_derivative_is_exact_at_zeros():
    x = np.array([2.0, 0.0, 3.0, 0.0, 5.0])
    jac = np.asarray(tf8.jacrev(lax.cumprod)(x))
    expected = np.zeros((5, 5))
    for i in range(5):
        for j in range(i + 1):
            expected[i, j] = np.prod(np.delete(x[: i + 1], j))
    np.testing.assert_array_equal(jac, expected)
    np.testing.assert_array_equal(tf8.jacfwd(lax.cumprod)(x), expected)


def test_cummax_splits_the_derivative_of_a_tie_as_lax_max():
    jac = np.asarray(tf8.jacfwd(lax.cummax)(np.array([1.0, 3.0, 2.0, 3.0])))
    np.testing.assert_array_equal(jac[3], [0.0, 0.5, 0.0, 0.5])
    np.testing.assert_array_equal(jac[2], [0.0, 1.0, 0.0, 0.0])


def test_cumlogsumexp_second_derivative_at_ties_and_infinities():
    """The Hessian of sum(cumlogsumexp) at a tie is the softmax's, in both modes, and stays
    finite beside -inf entries (JAX's values)."""
    total = lambda v: lax.cumlogsumexp(v).sum()  # noqa: E731
    x = np.array([3.0, 3.0])
    hess = np.asarray(tf8.jacrev(tf8.grad(total))(x))
    np.testing.assert_allclose(hess, [[0.25, -0.25], [-0.25, 0.25]], atol=1e-15)
    np.testing.assert_allclose(tf8.jacfwd(tf8.grad(total))(x), hess, atol=1e-15)
    assert np.isfinite(tf8.jacrev(tf8.grad(total))(np.array([-np.inf, 1.0]))).all()


@pytest.mark.parametrize("name", sorted(CUMULATIVE))
def test_vmap_and_jit_match_loops_and_eager(name):
    x = RNG.uniform(0.5, 1.5, (4, 3, 5))
    fn = getattr(lax, name)
    looped = np.stack([fn(row, axis=1, reverse=True) for row in x])
    np.testing.assert_array_equal(tf8.vmap(lambda r: fn(r, axis=1, reverse=True))(x), looped)
    np.testing.assert_array_equal(tf8.vmap(lambda r: fn(r), in_axes=2)(x), np.stack(
        [fn(x[..., k]) for k in range(5)], axis=0))  # fmt: skip
    np.testing.assert_array_equal(tf8.jit(lambda v: fn(v, axis=2))(x), fn(x, axis=2))
    grads = tf8.vmap(tf8.grad(lambda r: fn(r).sum()))(x)
    np.testing.assert_allclose(grads, np.stack([tf8.grad(lambda r: fn(r).sum())(r) for r in x]))


def test_running_reduction_errors():
    x = np.ones((2, 3))
    with pytest.raises(AxisError, match=r"cumprod: axis -1 .*float64\(2, 3\)"):
        lax.cumprod(x, axis=-1)  # JAX refuses negative axes too
    with pytest.raises(AxisError, match="cummax: axis 2"):
        lax.cummax(x, axis=2)
    with pytest.raises(AxisError, match="cummin"):
        lax.cummin(np.array(1.5))
    with pytest.raises(DTypeError, match="cummax.*bool"):
        lax.cummax(np.array([True, False]))
    with pytest.raises(DTypeError, match="cumlogsumexp.*int32"):
        lax.cumlogsumexp(np.array([1, 2], np.int32))


def test_integer_running_products_have_no_derivative():
    x = np.array([1, 2, 3], np.int32)
    np.testing.assert_array_equal(
        tf8.jvp(lax.cumprod, (x,), (np.zeros(3, np.int32),))[0], x.cumprod()
    )
    with pytest.raises((DifferentiationError, TypeError)):
        tf8.grad(lambda v: lax.cumprod(v).sum())(x)
