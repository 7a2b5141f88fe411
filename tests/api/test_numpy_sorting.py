"""tf8.numpy's sorting functions against numpy on random inputs (ties, NaNs), under jit and
numpy's own dispatch, with gradients checked by central differences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
import tf8.numpy as tnp
from tf8 import errors

SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5)
TIES = st.sampled_from([0.0, -1.5, 2.0, 2.0, 3.0, 7.25])
WITH_NAN = st.sampled_from([0.0, -1.5, 2.0, 3.0, np.nan])
METHODS = ["linear", "lower", "higher", "nearest", "midpoint"]


def _axis(data, ndim):
    return data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)))


def _array_and_axis(data, elements):
    """A random array of SHAPES with `elements`, and an axis of it (or None)."""
    shape = data.draw(SHAPES)
    x = data.draw(hnp.arrays(np.float64, shape, elements=elements))
    return x, _axis(data, len(shape))


@given(data=st.data())
def test_sort_argsort_partition_match_numpy(data):
    x, axis = _array_and_axis(data, WITH_NAN)
    np.testing.assert_array_equal(tnp.sort(x, axis), np.sort(x, axis))
    np.testing.assert_array_equal(tnp.argsort(x, axis), np.argsort(x, axis, kind="stable"))
    np.testing.assert_array_equal(np.sort(tf8.tensor(x), axis), np.sort(x, axis))  # dispatch
    # descending and stable, as jax.numpy
    order = tnp.argsort(x, axis, descending=True)
    flat = x.ravel() if axis is None else x
    ax = 0 if axis is None else axis
    expected = np.flip(np.argsort(np.flip(flat, ax), ax, kind="stable"), ax)
    np.testing.assert_array_equal(order, flat.shape[ax] - 1 - expected)
    n = flat.shape[ax]
    kth = data.draw(st.integers(-n, n - 1))
    part = np.asarray(tnp.partition(flat, kth, ax))
    np.testing.assert_array_equal(
        np.take(part, [kth], ax), np.take(np.partition(flat, kth, ax), [kth], ax)
    )
    taken = np.take_along_axis(flat, np.asarray(tnp.argpartition(flat, kth, ax)), ax)
    np.testing.assert_array_equal(taken, part)


@given(data=st.data())
def test_lexsort_matches_numpy(data):
    n = data.draw(st.integers(1, 10))
    keys = [data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2))) for _ in range(3)]
    np.testing.assert_array_equal(tnp.lexsort(keys), np.lexsort(keys))


@pytest.mark.parametrize("method", METHODS)
@given(data=st.data())
def test_quantile_family_matches_numpy(method, data):
    shape = data.draw(SHAPES)
    x = data.draw(hnp.arrays(np.float64, shape, elements=TIES))
    axis = _axis(data, len(shape))
    q = data.draw(hnp.arrays(np.float64, data.draw(st.integers(0, 3)), elements=st.floats(0, 1)))
    keep = data.draw(st.booleans())
    got = tnp.quantile(x, q, axis=axis, method=method, keepdims=keep)
    np.testing.assert_allclose(got, np.quantile(x, q, axis=axis, method=method, keepdims=keep))
    got = tnp.percentile(x, 100 * q, axis=axis, method=method)
    np.testing.assert_allclose(got, np.percentile(x, 100 * q, axis=axis, method=method))


@given(data=st.data())
def test_median_and_nan_forms_match_numpy(data):
    x, axis = _array_and_axis(data, WITH_NAN)
    np.testing.assert_allclose(tnp.median(x, axis), np.median(x, axis))
    with np.errstate(all="ignore"), pytest.warns() if np.isnan(x).all() else _nothing():
        expected = np.nanmedian(x, axis)
        expected_q = np.nanquantile(x, [0.25, 0.8], axis)
        expected_p = np.nanpercentile(x, 30, axis)
    np.testing.assert_allclose(tnp.nanmedian(x, axis), expected)
    np.testing.assert_allclose(tnp.nanquantile(x, [0.25, 0.8], axis), expected_q)
    np.testing.assert_allclose(tnp.nanpercentile(x, 30, axis), expected_p)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_integer_quantiles_keep_numpy_dtypes():
    a = np.array([4, 1, 3, 2])
    for method in METHODS:
        got, expected = (
            np.asarray(tnp.quantile(a, 0.5, method=method)),
            np.quantile(a, 0.5, method=method),
        )
        assert got.dtype == expected.dtype and got == expected


@given(data=st.data())
def test_searchsorted_matches_numpy(data):
    a = np.sort(data.draw(hnp.arrays(np.float64, data.draw(st.integers(0, 9)), elements=WITH_NAN)))
    v = data.draw(hnp.arrays(np.float64, data.draw(SHAPES), elements=WITH_NAN))
    for side in ("left", "right"):
        expected = np.searchsorted(a, v, side)
        np.testing.assert_array_equal(tnp.searchsorted(a, v, side), expected)
        np.testing.assert_array_equal(tnp.searchsorted(a, v, side, method="compare_all"), expected)
    backwards = a[::-1].copy()  # sorted through `sorter`
    sorter = np.arange(len(a))[::-1].copy()
    np.testing.assert_array_equal(
        tnp.searchsorted(backwards, v, sorter=sorter), np.searchsorted(backwards, v, sorter=sorter)
    )


def test_searchsorted_int32_and_every_jax_method():
    """jax.numpy returns int32 indices (even with x64) and accepts 'scan_unrolled' and 'sort'."""
    a, v = np.arange(6.0), np.array([[2.5, -1.0, 9.0], [np.nan, 3.0, 0.0]])
    for method in ("scan", "scan_unrolled", "sort", "compare_all"):
        for side in ("left", "right"):
            out = tnp.searchsorted(a, v, side, method=method)
            assert out.dtype == np.int32
            np.testing.assert_array_equal(out, np.searchsorted(a, v, side))
    assert tnp.searchsorted(np.zeros(0), v).dtype == np.int32


@given(data=st.data())
def test_unique_matches_numpy_concrete_and_sized(data):
    x = data.draw(hnp.arrays(np.float64, data.draw(SHAPES), elements=WITH_NAN))
    expected = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    got = tnp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    size = data.draw(st.integers(1, 8))
    jitted = tf8.jit(
        lambda v: tnp.unique(v, True, True, True, size=size, fill_value=-9.0), static_argnums=()
    )(x)
    k = min(size, len(expected[0]))
    for g, e in zip(jitted[:2], expected[:2]):
        np.testing.assert_array_equal(np.asarray(g)[:k], e[:k])
    np.testing.assert_array_equal(np.asarray(jitted[0])[k:], -9.0)
    np.testing.assert_array_equal(np.asarray(jitted[3])[:k], expected[3][:k])
    np.testing.assert_array_equal(np.asarray(jitted[3])[k:], 0)
    np.testing.assert_array_equal(jitted[2], expected[2])


def test_unique_under_jit_needs_size():
    with pytest.raises(errors.ConcretizationError, match="size="):
        tf8.jit(tnp.unique)(np.array([1.0, 2.0]))


def test_gradients_of_sort_median_quantile():
    rng = np.random.default_rng(0)
    x = rng.permutation(np.linspace(-2, 3, 12)).reshape(3, 4)  # distinct: smooth
    w = rng.normal(size=(3, 4))
    tf8.check_grads(lambda v: tnp.sort(v, axis=0) * w, (x,), order=2)
    tf8.check_grads(lambda v: tnp.median(v, axis=1), (x,), order=2)
    tf8.check_grads(lambda v: tnp.nanmedian(v), (x,), order=2)
    for method in METHODS:
        tf8.check_grads(
            lambda v, m=method: tnp.quantile(v, [0.3, 0.55], axis=0, method=m), (x,), order=2
        )
    tf8.check_grads(lambda v: tnp.percentile(v, 40.0), (x,), order=2)
    # closed form: the median of an odd count moves with its middle element only
    g = tf8.grad(lambda v: tnp.median(v))(np.array([5.0, 1.0, 3.0]))
    np.testing.assert_array_equal(g, [0.0, 0.0, 1.0])
    # the quantile's derivative in q is the slope between its two order statistics
    dq = tf8.grad(lambda q: tnp.quantile(np.array([0.0, 1.0, 4.0]), q))(0.75)
    np.testing.assert_allclose(dq, 2 * 3.0)


def test_sorting_under_jit_and_vmap():
    x = np.random.default_rng(1).normal(size=(4, 5))
    np.testing.assert_allclose(tf8.jit(lambda v: tnp.median(v, axis=0))(x), np.median(x, 0))
    np.testing.assert_allclose(
        tf8.vmap(lambda v: tnp.percentile(v, [10.0, 90.0]))(x), np.percentile(x, [10, 90], axis=1).T
    )
    np.testing.assert_array_equal(tf8.vmap(tnp.argsort)(x), np.argsort(x, axis=1))


def test_sorting_errors():
    with pytest.raises(errors.ParameterError, match="q must be in the range"):
        tnp.quantile(np.ones(3), 1.5)
    with pytest.raises(errors.UnsupportedOperationError, match="method"):
        tnp.quantile(np.ones(3), 0.5, method="hazen")
    with pytest.raises(errors.ParameterError, match="side"):
        tnp.searchsorted(np.ones(3), 1.0, side="middle")
    with pytest.raises(errors.ParameterError, match="kth"):
        tnp.partition(np.ones(3), 3)
    with pytest.raises(errors.ShapeError, match="0-d"):
        tnp.sort(np.float64(1.0), axis=0)


def test_numpy2_unique_functions_match_numpy():
    x = np.array([[3.0, np.nan, 1.0], [np.nan, 3.0, 3.0]])
    for name in ("unique_values", "unique_counts", "unique_inverse", "unique_all"):
        got, expected = getattr(tnp, name)(x), getattr(np, name)(x)
        for g, e in zip(tf8.tree.tree_leaves(got), tf8.tree.tree_leaves(expected)):
            np.testing.assert_array_equal(np.asarray(g), e, err_msg=name)
    sized = tf8.jit(lambda v: tnp.unique_counts(v, size=5, fill_value=0.0))(x)
    np.testing.assert_array_equal(sized[0], [1.0, 3.0, np.nan, np.nan, 0.0])
    np.testing.assert_array_equal(sized[1], [1, 3, 1, 1, 0])


def test_complex_sort_is_numpys_lexicographic_order():
    rng = np.random.default_rng(3)
    z = rng.integers(-2, 3, 12) + 1j * rng.integers(-2, 3, 12)  # many ties in the real part
    np.testing.assert_array_equal(np.asarray(tnp.sort(z)), np.sort(z))
    np.testing.assert_array_equal(np.asarray(tnp.argsort(z)), np.argsort(z, kind="stable"))


def test_partition_and_argpartition_return_a_full_sort():
    """A deliberate difference (README): numpy's contract (the kth element in place, none
    larger before it, none smaller after) met by a full sort; JAX's order within the parts
    differs."""
    x = np.array([[5.0, 1.0, 4.0, 2.0, 3.0], [0.5, -1.0, 7.0, 7.0, 2.0]])
    for kth in (0, 2, -1):
        np.testing.assert_array_equal(tnp.partition(x, kth), np.sort(x))
        np.testing.assert_array_equal(tnp.argpartition(x, kth), np.argsort(x, kind="stable"))
