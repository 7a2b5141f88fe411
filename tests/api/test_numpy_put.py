"""jax.numpy's functional put / place / put_along_axis / fill_diagonal (`inplace=False`),
trim_zeros and take_along_axis out of bounds: values from JAX 0.10.2 and numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import errors

A = np.arange(12.0).reshape(3, 4)


def _both(fn, *args):
    """fn eagerly and under jit (every argument traced)."""
    return np.asarray(fn(*args)), np.asarray(tf8.jit(fn)(*args))


def test_put_drops_clips_and_wraps_as_jax():
    ind, v = np.array([13, -1, 2]), np.array([7.0, 8.0, 9.0])
    for out in _both(lambda a, i, w: tnp.put(a, i, w, inplace=False), np.arange(6.0), ind, v):
        np.testing.assert_array_equal(out, [0, 1, 9, 3, 4, 8])  # JAX: 13 dropped, -1 the last
    clipped = tnp.put(np.arange(6.0), np.array([1, 13]), 9.0, mode="clip", inplace=False)
    np.testing.assert_array_equal(clipped, [0, 9, 2, 3, 4, 9])
    wrapped = tnp.put(np.arange(6.0), np.array([7]), 9.0, mode="wrap", inplace=False)
    np.testing.assert_array_equal(wrapped, [0, 9, 2, 3, 4, 5])
    with pytest.raises(errors.UnsupportedOperationError, match="inplace=False"):
        tnp.put(A, [0], 1.0)
    grad = tf8.grad(lambda a: tnp.sum(tnp.put(a, np.array([0, 5]), 0.0, inplace=False) * A))(A)
    expected = A.copy()
    expected.flat[[0, 5]] = 0.0
    np.testing.assert_array_equal(grad, expected)


def test_place_repeats_values_over_the_mask():
    mask = A > 5
    expected = A.copy()
    np.place(expected, mask, [-1.0, -2.0])
    for out in _both(lambda a, m: tnp.place(a, m, np.array([-1.0, -2.0]), inplace=False), A, mask):
        np.testing.assert_array_equal(out, expected)
    with pytest.raises(errors.ShapeError):
        tnp.place(A, mask[:2], 1.0, inplace=False)


def test_put_along_axis_matches_numpy_and_drops_out_of_range():
    idx = np.argsort(-A, axis=1)[:, :1]
    expected = A.copy()
    np.put_along_axis(expected, idx, -1.0, 1)
    for out in _both(lambda a, i: tnp.put_along_axis(a, i, -1.0, 1, inplace=False), A, idx):
        np.testing.assert_array_equal(out, expected)
    x = np.arange(6.0).reshape(2, 3)
    out = tnp.put_along_axis(x, np.array([[5], [-1]]), 9.0, 1, inplace=False)
    np.testing.assert_array_equal(out, [[0, 1, 2], [3, 4, 9]])  # JAX's answer


def test_fill_diagonal_copies():
    expected = np.zeros((5, 2))
    np.fill_diagonal(expected, [1.0, 2.0])
    out = tnp.fill_diagonal(np.zeros((5, 2)), np.array([1.0, 2.0]), inplace=False)
    np.testing.assert_array_equal(out, expected)
    cube = tnp.fill_diagonal(np.zeros((2, 2, 2)), 1.0, inplace=False)
    np.testing.assert_array_equal(np.asarray(cube)[[0, 1], [0, 1], [0, 1]], [1.0, 1.0])
    assert float(np.asarray(cube).sum()) == 2.0
    ints = tnp.fill_diagonal(np.zeros((3, 3), np.int32), 2.7, inplace=False)
    assert ints.dtype == np.int32 and np.array_equal(ints, 2 * np.eye(3))
    with pytest.raises(errors.ShapeError):
        tnp.fill_diagonal(np.zeros((2, 3, 3)), 1.0, inplace=False)


def test_trim_zeros_eager_only():
    x = np.array([0.0, 0.0, 1.0, 0.0, 2.0, 0.0])
    for trim in ("fb", "f", "b"):
        np.testing.assert_array_equal(tnp.trim_zeros(x, trim), np.trim_zeros(x, trim))
    with pytest.raises(errors.ConcretizationError):
        tf8.jit(tnp.trim_zeros)(x)


def test_take_along_axis_fills_out_of_bounds():
    idx = np.array([[1, 4]])
    out = tnp.take_along_axis(A, idx, axis=1)
    np.testing.assert_array_equal(out, [[1, np.nan], [5, np.nan], [9, np.nan]])
    clipped = tnp.take_along_axis(A, idx, axis=1, mode="clip")
    np.testing.assert_array_equal(clipped, [[1, 3], [5, 7], [9, 11]])
    grad = tf8.grad(lambda a: tnp.sum(tnp.take_along_axis(a, idx, 1, fill_value=0.0)))(A)
    np.testing.assert_array_equal(grad, np.tile([0.0, 1.0, 0.0, 0.0], (3, 1)))
