"""Regression tests for the bugs the differential fuzzer found (tests/fuzz)."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp


@pytest.mark.parametrize("shape, axis", [((0,), 0), ((2, 0), 1), ((0, 3), 0), ((0, 3), 1)])
def test_sort_of_an_empty_array_differentiates(shape, axis):
    # sort's JVP gathered with a size-1 slice of a size-0 axis: ShapeError from gather
    x = np.zeros(shape)
    f = lambda v: tnp.sum(tnp.sin(tnp.sort(v, axis=axis)))  # noqa: E731
    assert tf8.grad(f)(x).shape == shape
    assert tf8.jit(tf8.grad(f))(x).shape == shape
    assert (
        tf8.vmap(lambda v: tnp.sort(v, axis=axis - 1 if axis else 0))(x[None]).shape == (1,) + shape
    )


def test_take_along_axis_of_an_empty_array():
    x = np.zeros((0, 2))
    i = np.zeros((0, 2), np.int64)
    assert tnp.take_along_axis(tf8.tensor(x), tf8.tensor(i), axis=1).shape == (0, 2)
    assert tnp.take_along_axis(tf8.tensor(x), tf8.tensor(i), axis=0).shape == (0, 2)


@pytest.mark.parametrize(
    "index",
    [np.zeros(0, np.int64), (np.zeros(0, np.int64), np.zeros(0, np.int64)),
     (slice(None), np.zeros(0, np.int64))],
)  # fmt: skip
def test_integer_array_indexing_of_an_empty_axis(index):
    x = np.zeros((0, 2))
    expected = x[index]
    assert tf8.tensor(x)[index].shape == expected.shape
    assert tf8.jit(lambda v: v[index])(x).shape == expected.shape
    assert tf8.grad(lambda v: tnp.sum(v[index]))(x).shape == x.shape


def test_integer_array_indexing_of_an_empty_axis_with_traced_indices():
    x, i = np.zeros((0, 2)), np.zeros(0, np.int64)
    out = tf8.jit(lambda v, k: v[k])(x, i)
    assert out.shape == x[i].shape == (0, 2)


@pytest.mark.parametrize(
    "name",
    ["erf", "erf_inv", "ndtri", "lgamma", "digamma", "bessel_i0e", "bessel_i1e", "logistic"],
)
def test_scipy_special_rows_keep_float16_in_the_optimised_tier(name):
    # the generated code called scipy's ufunc directly, which has no float16 loop: the
    # optimised tier (jit's second call) returned float64 where the lean tier gave float16
    from tf8.lax.core import apply1

    x = np.array([0.25, -0.5, 0.75, np.nan], np.float16)
    jitted = tf8.jit(lambda v: apply1(name, [v]))
    lean, optimised = jitted(x), jitted(x)
    assert lean.dtype == optimised.dtype == np.float16
    np.testing.assert_array_equal(optimised, lean)


@pytest.mark.parametrize(
    "spec, shapes",
    [("abc,c->ab", ((3, 1, 1), (1,))), ("i,j->ij", ((3,), (1,))), ("ij,jk->ik", ((3, 1), (1, 1)))],
)
def test_einsum_of_inf_by_zero_along_one_element_is_nan(spec, shapes):
    # the numpy kernel's contraction called np.tensordot, whose BLAS matrix-vector product
    # skips a zero factor when it contracts one element: inf * 0 gave 0 (the Dask engine, as
    # np.einsum and IEEE, gave NaN)
    x = np.full(shapes[0], np.inf)
    x.reshape(-1)[1] = 1.5
    y = np.full(shapes[1], -0.0)
    with np.errstate(invalid="ignore"):
        expected = np.einsum(spec, x, y)
    jitted = tf8.jit(lambda a, b: tnp.einsum(spec, a, b))
    for got in (tnp.einsum(spec, x, y), jitted(x, y), jitted(x, y)):
        np.testing.assert_array_equal(np.asarray(got), expected)
    assert np.isnan(expected).any() and not np.isnan(expected).all()


def test_einsum_sums_alike_whatever_its_operands_strides():
    # matmul calls BLAS on contiguous matrices only: an operand broadcast from a scalar (stride
    # 0) was summed in another order than the same vector materialised (-0.0 against
    # -2.2e-16 in the fuzz, which an atan2 turned into -0.79 against 0)
    x, spec = np.random.default_rng(0).normal(size=(12, 40)), "ab,b->a"
    broadcast = tf8.jit(lambda a, s: tnp.einsum(spec, a, tnp.broadcast_to(s, (40,))))
    materialised = tf8.jit(lambda a, v: tnp.einsum(spec, a, v))
    expected = np.asarray(materialised(x, np.full(40, 0.37)))
    for _ in range(2):  # the lean tier, then the optimised one
        np.testing.assert_array_equal(np.asarray(broadcast(x, np.float64(0.37))), expected)
