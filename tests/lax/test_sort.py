"""The sort op (`lax.sort`, `sort_key_val`, `top_k`): values against numpy's stable sort (NaN
last, ties in order, several keys, uint32 keys), its JVP and gradient, vmap and jit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
import tf8.lax as lax
from tf8.errors import DTypeError, ParameterError, ShapeError

SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5)
# Few distinct values, so ties are common; NaNs and infinities included.
VALUES = st.sampled_from([0.0, -1.5, 2.0, 2.0, 3.0, np.nan, np.inf, -np.inf])


@given(data=st.data())
def test_sort_matches_numpy_stable_sort(data):
    shape = data.draw(SHAPES)
    x = data.draw(hnp.arrays(np.float64, shape, elements=VALUES))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    values = np.arange(x.size, dtype=np.float64).reshape(shape)
    keys, vals = lax.sort_key_val(x, values, dimension=axis)
    order = np.argsort(x, axis=axis, kind="stable")
    np.testing.assert_array_equal(np.asarray(keys), np.sort(x, axis=axis))
    np.testing.assert_array_equal(np.asarray(vals), np.take_along_axis(values, order, axis))
    np.testing.assert_array_equal(np.asarray(tf8.jit(lambda a: lax.sort(a, axis))(x)), keys)


@given(data=st.data())
def test_several_keys_sort_lexicographically(data):
    n = data.draw(st.integers(1, 12))
    first = data.draw(hnp.arrays(np.int32, n, elements=st.integers(0, 2)))
    second = data.draw(hnp.arrays(np.float32, n, elements=VALUES))
    payload = np.arange(n, dtype=np.int64)
    a, b, c = lax.sort((first, second, payload), num_keys=2)
    order = np.lexsort((second, first))  # numpy: the last key is the most significant
    np.testing.assert_array_equal(np.asarray(c), order)
    np.testing.assert_array_equal(np.asarray(a), first[order])
    np.testing.assert_array_equal(np.asarray(b), second[order])


def test_uint32_and_bool_keys():
    bits = np.array([4294967295, 0, 2**31, 7, 2**31], np.uint32)
    keys, perm = lax.sort_key_val(bits, np.arange(5))
    np.testing.assert_array_equal(np.asarray(keys), np.sort(bits))
    np.testing.assert_array_equal(np.asarray(perm), [1, 3, 2, 4, 0])
    flags = np.array([True, False, True, False])
    np.testing.assert_array_equal(np.asarray(lax.sort(flags)), [False, False, True, True])


@given(data=st.data())
def test_top_k_matches_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=6))
    dtype = data.draw(st.sampled_from([np.float64, np.int32, np.uint32]))
    x = data.draw(hnp.arrays(dtype, shape, elements=st.integers(0, 4)))
    k = data.draw(st.integers(0, shape[-1]))
    values, indices = lax.top_k(x, k)
    # largest first; equal values in index order (a stable sort of the negated key)
    order = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :k]
    np.testing.assert_array_equal(np.asarray(indices), order)
    np.testing.assert_array_equal(np.asarray(values), np.take_along_axis(x, order, -1))
    assert np.asarray(values).dtype == dtype


def test_sort_gradient_is_the_permutation():
    x = np.array([3.0, 1.0, 2.0, 0.5, 2.0])
    weights = np.arange(5.0)

    def f(v):
        return (lax.sort(v) * weights).sum()

    # sorted: 0.5 (x3), 1 (x1), 2 (x2), 2 (x4), 3 (x0): tie kept in index order
    np.testing.assert_array_equal(tf8.grad(f)(x), [4.0, 1.0, 2.0, 0.0, 3.0])
    tf8.check_grads(f, (x + np.array([0, 0, 0, 0, 0.25]),), order=2)  # no tie: smooth
    tf8.check_grads(lambda v: lax.sort(v, 0) ** 3, (np.array([[0.3, 2.0], [-1.0, 1.5]]),), 2)


def test_sort_key_val_differentiates_values_and_keys():
    keys = np.array([2.0, -1.0, 0.5, 4.0])
    vals = np.array([1.0, 2.0, 3.0, 4.0])

    def f(k, v):
        sk, sv = lax.sort_key_val(k, v)
        return (sk * sv * np.array([1.0, 2.0, 3.0, 4.0])).sum()

    tf8.check_grads(f, (keys, vals), order=2)
    g = tf8.grad(f, argnums=1)(keys, vals)
    # value i lands at its key's rank r and is weighted by (r + 1) * key
    ranks = np.argsort(np.argsort(keys))
    np.testing.assert_allclose(g, (ranks + 1) * keys)


def test_top_k_gradient_scatters_to_the_chosen_entries():
    x = np.array([0.1, 5.0, -2.0, 3.0])
    g = tf8.grad(lambda v: lax.top_k(v, 2)[0].sum())(x)
    np.testing.assert_array_equal(g, [0.0, 1.0, 0.0, 1.0])
    tf8.check_grads(lambda v: lax.top_k(v, 3)[0] ** 2, (x,), order=2)


@pytest.mark.parametrize("in_axes", [0, 1, 2])
def test_vmap_of_sort_matches_a_loop(in_axes):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, size=(3, 4, 5)).astype(np.float64)  # ties: stability matters
    example_shape = tuple(n for i, n in enumerate(x.shape) if i != in_axes)
    v = rng.normal(size=example_shape)  # unbatched values

    def f(a, b):
        return lax.sort_key_val(a, b, dimension=0)

    for run in (tf8.vmap(f, in_axes=(in_axes, None)), tf8.jit(tf8.vmap(f, (in_axes, None)))):
        keys, vals = run(x, v)
        for b in range(x.shape[in_axes]):
            expected = f(np.take(x, b, axis=in_axes), v)
            np.testing.assert_array_equal(keys[b], np.asarray(expected[0]))
            np.testing.assert_array_equal(vals[b], np.asarray(expected[1]))


def test_vmap_of_grad_of_sort():
    x = np.random.default_rng(1).normal(size=(3, 5))

    def f(v):
        return (lax.sort(v) * np.arange(5.0)).sum()

    batched = tf8.jit(tf8.vmap(tf8.grad(f)))(x)
    np.testing.assert_allclose(batched, np.stack([tf8.grad(f)(row) for row in x]))


def test_sort_errors_name_the_problem():
    with pytest.raises(ParameterError, match="dimension 2 out of range"):
        lax.sort(np.zeros((2, 3)), dimension=2)
    with pytest.raises(ShapeError, match="one shape"):
        lax.sort((np.zeros(3), np.zeros(4)))
    with pytest.raises(ParameterError, match="num_keys"):
        lax.sort((np.zeros(3), np.zeros(3)), num_keys=3)
    with pytest.raises(ParameterError, match="scalar|out of range"):
        lax.sort(np.float64(1.0))
    with pytest.raises(ParameterError, match="k must be"):
        lax.top_k(np.zeros(3), 4)
    with pytest.raises(DTypeError, match="real"):
        lax.top_k(np.zeros(3, np.complex128), 1)


def test_top_k_nan_is_largest_and_axis_keyword():
    """JAX's top_k ranks NaN above +inf, and takes `axis` (recorded from JAX 0.10.2)."""
    x = np.array([1.0, np.nan, 3.0, 2.0, -np.inf, np.inf, 0.0])
    values, indices = lax.top_k(x, 3)
    np.testing.assert_array_equal(np.asarray(values), [np.nan, np.inf, 3.0])
    np.testing.assert_array_equal(np.asarray(indices), [1, 5, 2])
    m = np.array([[3.0, 1.0], [5.0, 0.0], [4.0, 2.0]])
    values, indices = lax.top_k(m, 2, axis=0)
    np.testing.assert_array_equal(np.asarray(values), [[5.0, 2.0], [4.0, 1.0]])
    np.testing.assert_array_equal(np.asarray(indices), [[1, 2], [2, 0]])
