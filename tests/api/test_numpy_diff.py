"""tnp.diff against numpy: orders, axes, bool input, dispatch and its gradient."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
import tf8.numpy as tnp
from tf8.errors import ShapeError


@given(
    x=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5),
        elements=st.floats(-10, 10),
    ),
    n=st.integers(0, 4),
    data=st.data(),
)
def test_diff_matches_numpy(x, n, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    np.testing.assert_allclose(np.asarray(tnp.diff(tf8.tensor(x), n, axis)), np.diff(x, n, axis))


def test_diff_of_bools_is_not_equal_and_numpy_dispatches():
    b = np.array([True, False, False, True])
    np.testing.assert_array_equal(np.asarray(tnp.diff(tf8.tensor(b))), np.diff(b))
    x = np.arange(6.0).reshape(2, 3) ** 2
    np.testing.assert_array_equal(np.asarray(np.diff(tf8.tensor(x), axis=0)), np.diff(x, axis=0))


def test_diff_gradient_and_errors():
    g = tf8.grad(lambda v: tnp.sum(tnp.diff(v) ** 2))(np.arange(4.0) ** 2)
    d = np.diff(np.arange(4.0) ** 2)
    np.testing.assert_allclose(
        g, np.concatenate([[-2 * d[0]], 2 * d[:-1] - 2 * d[1:], [2 * d[-1]]])
    )
    with pytest.raises(ShapeError, match="at least one dimensional"):
        tnp.diff(tf8.tensor(1.0))
    with pytest.raises(ShapeError, match="non-negative"):
        tnp.diff(tf8.tensor(np.ones(3)), -1)
