"""tf8.numpy where jax.numpy (x64) and numpy part ways, or jax.numpy adds arguments: shapes,
dtypes, weak types and keyword arguments as JAX 0.10.2 gives them; values from numpy or
closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import errors

X = np.arange(24.0).reshape(2, 3, 4)


def test_reshape_and_ravel_in_column_major_order():
    for shape in [(24,), (6, 4), (4, -1)]:
        np.testing.assert_array_equal(
            tnp.reshape(X, shape, order="F"), np.reshape(X, shape, order="F")
        )
    np.testing.assert_array_equal(tnp.ravel(X, order="F"), np.ravel(X, order="F"))
    grad = tf8.grad(lambda x: tnp.sum(tnp.ravel(x, order="F") * np.arange(24.0)))(X)
    np.testing.assert_array_equal(grad, np.arange(24.0).reshape(X.shape, order="F"))
    with pytest.raises(errors.UnsupportedOperationError):
        tnp.reshape(X, (24,), order="A")


def test_creation_dtypes_and_weak_types():
    assert tnp.tri(3).dtype == np.float32  # JAX's default for tri, even with x64
    np.testing.assert_array_equal(tnp.tri(3, 4, 1), np.tri(3, 4, 1))
    assert tnp.ones_like(2.0)._weak and tnp.zeros_like(3)._weak
    assert not tnp.full_like(np.ones((2, 3)), 2.0)._weak
    filled = tnp.full_like(2.0, 3)
    assert filled._weak and filled.dtype == np.float64
    with pytest.raises(errors.ParameterError):
        tnp.arange(1, 5, 0)
    with pytest.raises(errors.ParameterError):
        tnp.logspace(0.0, 1.0, -1)


def test_joining_and_splitting_as_jax():
    out = tnp.dstack([np.ones(2), np.ones(2)], dtype="float32")
    assert out.dtype == np.float32 and out.shape == (1, 2, 2)
    halves = tnp.vsplit(np.arange(4.0), 2)  # jax.numpy splits a 1-D array along axis 0
    np.testing.assert_array_equal(halves[1], [2.0, 3.0])


def test_repeat_with_total_repeat_length():
    x = np.arange(3.0)
    cases = [([1, 0, 2], 2, [0, 2]), ([3, 1, 0], 6, [0, 0, 0, 1, 2, 2]), (2, 4, [0, 0, 1, 1])]
    for repeats, total, expected in cases:  # JAX's answers: cut or padded with the last
        out = tnp.repeat(x, np.asarray(repeats), total_repeat_length=total)
        np.testing.assert_array_equal(out, expected)
        if np.ndim(repeats):
            jitted = tf8.jit(lambda r, t=total: tnp.repeat(x, r, total_repeat_length=t))
            np.testing.assert_array_equal(jitted(np.asarray(repeats)), expected)


def test_diff_with_prepend_and_append():
    a = np.arange(12.0).reshape(3, 4) ** 2
    for keywords in [{"prepend": 0.0}, {"append": 1.5, "axis": 0}, {"prepend": 1, "append": 2}]:
        np.testing.assert_array_equal(tnp.diff(a, **keywords), np.diff(a, **keywords))


def test_compress_and_extract_with_size():
    condition, values = np.array([True, False, True, True]), np.arange(4.0) + 1
    out = tnp.compress(condition, values, size=4, fill_value=-1.0)
    np.testing.assert_array_equal(out, [1.0, 3.0, 4.0, -1.0])
    np.testing.assert_array_equal(tnp.extract(condition, values, size=4), [1.0, 3.0, 4.0, 0.0])
    columns = tnp.compress(condition[:3], np.arange(12.0).reshape(3, 4), axis=1, size=3)
    np.testing.assert_array_equal(columns, [[0, 2, 0], [4, 6, 0], [8, 10, 0]])
    with pytest.raises(errors.IndexingError):
        tnp.compress(condition, np.arange(3.0))  # True past the end
    with pytest.raises(errors.ParameterError):
        tnp.compress(condition, values, size=5)


def test_select_reads_non_boolean_conditions_and_argwhere_of_a_scalar():
    x = np.array([0.0, 2.0, -1.0])
    np.testing.assert_array_equal(tnp.select([x], [x * 10], default=7.0), [7.0, 20.0, -10.0])
    assert tnp.argwhere(np.array(2.0)).shape == (1, 0)
    assert tnp.argwhere(np.array(0.0)).shape == (0, 0)


def test_unique_size_pads_index_with_the_smallest_values_position():
    x = np.array([3.0, 1.0, 3.0, np.nan, 0.0, 1.0, 2.0])
    values, index, inverse = tnp.unique(x, return_index=True, return_inverse=True, size=6)
    np.testing.assert_array_equal(index, [4, 1, 6, 0, 3, 4])  # JAX's
    np.testing.assert_array_equal(inverse, [3, 1, 3, 4, 0, 1, 2])
    with pytest.raises(errors.AxisError):
        tnp.unique(np.arange(7), axis=1)


def test_statistics_dtypes_as_jax():
    ints = np.array([0, 1, 1, 3, 2, 1, 7])
    np.testing.assert_array_equal(tnp.bincount(ints - 2, length=6), [5, 1, 0, 0, 0, 1])
    assert tnp.gradient(np.arange(4, dtype=np.int32) ** 2).dtype == np.float32
    with pytest.raises(errors.ShapeError):
        tnp.gradient(np.ones(1))
    data = np.array([1, 5, 2, 2, 9], np.int32)
    counts, edges = tnp.histogram(data, bins=4)
    assert counts.dtype == edges.dtype == np.float32
    np.testing.assert_array_equal(counts, np.histogram(data, bins=4)[0])
    assert bool(tnp.array_equiv(np.ones(2), np.ones((3, 2))))
    assert not bool(tnp.array_equiv(np.ones(2), np.ones(3)))


def test_quantile_inverted_cdf_and_complex_refusal():
    a = np.array([[-2.6, 4.4, 0.2, 2.3, -3.3], [1.6, -0.5, 3.7, -1.2, np.nan]])
    q = np.array([0.0, 0.3, 0.5, 1.0])
    expected = np.nanquantile(a, q, axis=1, method="inverted_cdf")
    np.testing.assert_array_equal(tnp.nanquantile(a, q, axis=1, method="inverted_cdf"), expected)
    plain = np.quantile(a[:1], q, axis=1, method="inverted_cdf")
    np.testing.assert_array_equal(tnp.quantile(a[:1], q, axis=1, method="inverted_cdf"), plain)
    with pytest.raises(errors.DTypeError):
        tnp.quantile(a + 1j, 0.5)


def test_fill_value_dtype_follows_the_array():
    out = tnp.take(np.arange(4, dtype=np.uint32), np.array([9]))
    assert out.dtype == np.uint32 and int(out[0]) == 2**32 - 1
