"""Derivatives at kinks take JAX's values (issue 28; issue 5 chose the symmetric difference).

d|x|/dx at 0 is 1, as JAX's `select(x >= 0, t, -t)` (issue 5 had 0: a ported program now gets
JAX's gradients), d(x**0)/dx at 0 is 0, ties in max/min/maximum/minimum split the gradient
evenly (JAX's `_balanced_eq`), std over a size-1 axis has gradient 0 (not NaN), and the
Hessian of hypot at |x| = |y| is the closed form (not the zero that even tie-splitting inside
max/min compositions gives).
"""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def test_abs_at_zero_takes_jaxs_value():
    assert tf8.grad(tnp.abs)(0.0) == 1.0
    assert tf8.grad(tnp.abs)(-0.0) == 1.0  # -0.0 >= 0
    assert tf8.grad(tf8.grad(tnp.abs))(0.0) == 0.0
    np.testing.assert_array_equal(
        tf8.grad(lambda x: tnp.sum(tnp.abs(x)))(np.array([-2.0, 0.0, 3.0, np.nan])),
        [-1.0, 1.0, 1.0, -1.0],  # NaN: -1, as JAX's (NaN >= 0 is false)
    )


def test_abs_of_complex_zero_is_zero():
    g = tf8.grad(lambda z: tnp.abs(z))(0j)
    assert g == 0 and not np.isnan(g)


@pytest.mark.parametrize("exponent", [0, 0.0])
def test_power_zero_at_zero(exponent):
    assert tf8.grad(lambda x: x**exponent)(0.0) == 0.0
    assert tf8.grad(lambda x: tnp.power(x, exponent))(0.0) == 0.0
    assert tf8.grad(tf8.grad(lambda x: x**exponent))(0.0) == 0.0


def test_power_zero_at_zero_reverse_mode_has_no_nan():
    """The pinned point must not leak inf * 0 into the exponent's gradient either."""
    gx, gy = tf8.grad(lambda x, y: tnp.power(x, y), argnums=(0, 1))(0.0, 0.0)
    assert gx == 0.0 and not np.isnan(gy)


def test_power_second_derivative_in_the_exponent_at_zero():
    """d/dy d/dx x**y at y = 0 is 1/x (only x == y == 0 is pinned)."""
    mixed = tf8.grad(tf8.grad(lambda x, y: x**y, argnums=0), argnums=1)(2.0, 0.0)
    np.testing.assert_allclose(mixed, 0.5)


def test_reduce_max_ties_split_evenly():
    g = tf8.grad(lambda x: tnp.max(x))(np.array([1.0, 3.0, 3.0, 3.0]))
    np.testing.assert_allclose(g, [0.0, 1 / 3, 1 / 3, 1 / 3])
    g = tf8.grad(lambda x: tnp.sum(tnp.max(x, axis=0)))(np.array([[1.0, 2.0], [1.0, 0.0]]))
    np.testing.assert_allclose(g, [[0.5, 1.0], [0.5, 0.0]])


def test_reduce_min_ties_split_evenly():
    g = tf8.grad(lambda x: tnp.min(x))(np.array([1.0, 1.0, 3.0]))
    np.testing.assert_allclose(g, [0.5, 0.5, 0.0])


@pytest.mark.parametrize("fn", [tnp.maximum, tnp.minimum], ids=["maximum", "minimum"])
def test_elementwise_extremum_ties_split_evenly(fn):
    assert tf8.grad(lambda x, y: fn(x, y), argnums=(0, 1))(2.0, 2.0) == (0.5, 0.5)
    # away from the tie, the winner takes all
    gx, gy = tf8.grad(lambda x, y: tnp.sum(fn(x, y)), argnums=(0, 1))(
        np.array([1.0, 3.0]), np.array([2.0, 2.0])
    )
    winner_is_x = np.array([1.0, 3.0]) > 2.0 if fn is tnp.maximum else np.array([1.0, 3.0]) < 2.0
    np.testing.assert_array_equal(gx, winner_is_x.astype(float))
    np.testing.assert_array_equal(gy, 1.0 - winner_is_x)


def test_relu_and_clip_at_their_kinks():
    x = np.array([-1.0, 0.0, 2.0])
    np.testing.assert_allclose(tf8.grad(lambda x: tnp.sum(tnp.maximum(x, 0.0)))(x), [0, 0.5, 1])
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    g = tf8.grad(lambda x: tnp.sum(tnp.clip(x, 0.0, 1.0)))(x)
    np.testing.assert_allclose(g, [0.0, 0.5, 1.0, 0.5, 0.0])


def test_variance_over_a_size_one_axis_has_zero_gradient():
    g = tf8.grad(lambda x: tnp.sum(tnp.var(x, axis=1)))(np.arange(3.0).reshape(3, 1))
    np.testing.assert_array_equal(g, np.zeros((3, 1)))


def test_std_over_a_size_one_axis_has_zero_gradient():
    g = tf8.grad(lambda x: tnp.sum(tnp.std(x, axis=1)))(np.arange(3.0).reshape(3, 1))
    np.testing.assert_array_equal(g, np.zeros((3, 1)))


def _hypot_hessian(x: float, y: float) -> np.ndarray:
    """d² sqrt(x² + y²) = (r² I - v vᵀ) / r³ with v = (x, y)."""
    v = np.array([x, y])
    r = np.hypot(x, y)
    return (r**2 * np.eye(2) - np.outer(v, v)) / r**3


@pytest.mark.parametrize("point", [(1.0, 1.0), (-2.0, 2.0), (3.0, 4.0)])
def test_hessian_of_hypot_written_with_sqrt(point):
    hessian = tf8.hessian(lambda v: tnp.sqrt(v[0] * v[0] + v[1] * v[1]))(np.array(point))
    np.testing.assert_allclose(hessian, _hypot_hessian(*point), rtol=1e-12)
    assert np.abs(hessian).max() > 0.1


def test_hessian_of_tnp_hypot_away_from_the_tie():
    hessian = tf8.hessian(lambda v: tnp.hypot(v[0], v[1]))(np.array([3.0, 4.0]))
    np.testing.assert_allclose(hessian, _hypot_hessian(3.0, 4.0), rtol=1e-12)


@pytest.mark.parametrize("point", [(1.0, 1.0), (-2.0, 2.0)])
def test_hessian_of_tnp_hypot_at_equal_magnitudes(point):
    hessian = tf8.hessian(lambda v: tnp.hypot(v[0], v[1]))(np.array(point))
    np.testing.assert_allclose(hessian, _hypot_hessian(*point), rtol=1e-12)
