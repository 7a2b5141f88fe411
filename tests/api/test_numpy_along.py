"""tnp.take_along_axis and tnp.cross against numpy, with gradients and errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp
from tf8.errors import DTypeError, ShapeError


@given(seed=st.integers(0, 2**16), axis=st.integers(-3, 2))
def test_take_along_axis_matches_numpy(seed, axis):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, 4, 5))
    size = x.shape[axis]
    shape = list(x.shape)
    shape[axis] = int(rng.integers(1, 4))
    for d in range(3):  # some other axes broadcast from 1
        if d != axis % 3 and rng.random() < 0.3:
            shape[d] = 1
    idx = rng.integers(-size, size, size=shape)
    got = tnp.take_along_axis(tf8.tensor(x), idx, axis)
    np.testing.assert_array_equal(np.asarray(got), np.take_along_axis(x, idx, axis))


def test_take_along_axis_sorting_pattern_and_gradient():
    x = np.array([[3.0, 1.0, 2.0], [0.5, 2.5, 1.5]])
    order = np.argsort(x, axis=1)
    np.testing.assert_array_equal(
        np.asarray(tnp.take_along_axis(tf8.tensor(x), order, 1)), np.sort(x, 1)
    )
    g = tf8.grad(lambda v: tnp.sum(tnp.take_along_axis(v, np.array([[0], [0]]), 1) ** 2))(x)
    np.testing.assert_array_equal(g, [[6.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    with pytest.raises(DTypeError, match="integers"):
        tnp.take_along_axis(tf8.tensor(x), np.zeros((2, 1)), 1)
    with pytest.raises(ShapeError, match="same number of dimensions"):
        tnp.take_along_axis(tf8.tensor(x), np.zeros(2, dtype=int), 1)


def test_cross_matches_numpy_and_differentiates():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    np.testing.assert_allclose(np.asarray(tnp.cross(a, b)), np.cross(a, b))
    np.testing.assert_allclose(np.asarray(tnp.cross(a.T, b.T, axis=0)), np.cross(a.T, b.T, axis=0))
    np.testing.assert_allclose(np.asarray(np.cross(tf8.tensor(a), b)), np.cross(a, b))
    two = np.asarray(tnp.cross(a[:, :2], b[:, :2]))
    np.testing.assert_allclose(two, a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])
    tf8.check_grads(lambda u, v: tnp.cross(u, v), (a, b), order=2)
    with pytest.raises(ShapeError, match="incompatible vector sizes"):
        tnp.cross(a, np.ones((4, 4)))  # 2 and 3 mix as in numpy (tests/api/..._and_order.py)
