"""Transforms nest: higher derivatives, forward-over-reverse, and no perturbation confusion."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp


def test_grad_of_grad_of_grad_scalar():
    f = lambda x: tnp.exp(2.0 * x) * tnp.cos(x)  # noqa: E731
    x = 0.4
    # d³/dx³ e^{2x} cos x = e^{2x} (2 cos x - 11 sin x)
    expected = np.exp(2 * x) * (2 * np.cos(x) - 11 * np.sin(x))
    np.testing.assert_allclose(tf8.grad(tf8.grad(tf8.grad(f)))(x), expected, rtol=1e-12)


def test_fourth_derivative_of_a_polynomial():
    d4 = tf8.grad(tf8.grad(tf8.grad(tf8.grad(lambda x: x**5 - 3.0 * x**4))))
    assert d4(2.0) == pytest.approx(120 * 2.0 - 72.0)


def _objective(x):
    return tnp.sum(tnp.sin(x) * x**3) + tnp.sum(x[:-1] * x[1:]) ** 2


@pytest.mark.parametrize("seed", [0, 1])
def test_hvp_is_hessian_times_v(seed):
    rng = np.random.default_rng(seed)
    x, v = rng.standard_normal(4), rng.standard_normal(4)
    hessian = tf8.hessian(_objective)(x)
    np.testing.assert_allclose(hessian, hessian.T, rtol=1e-12)
    np.testing.assert_allclose(tf8.hvp(_objective, (x,), (v,)), hessian @ v, rtol=1e-12)
    # jvp of grad, written out
    _, forward_over_reverse = tf8.jvp(tf8.grad(_objective), (x,), (v,))
    np.testing.assert_allclose(forward_over_reverse, hessian @ v, rtol=1e-12)
    # reverse over reverse: grad of <grad f, v>
    rev_rev = tf8.grad(lambda y: tnp.sum(tf8.grad(_objective)(y) * v))(x)
    np.testing.assert_allclose(rev_rev, hessian @ v, rtol=1e-12)


def test_hessian_equals_jacfwd_of_grad_and_jacrev_of_grad():
    x = np.array([0.3, -0.7, 1.1])
    expected = tf8.hessian(_objective)(x)
    np.testing.assert_allclose(tf8.jacfwd(tf8.grad(_objective))(x), expected, rtol=1e-12)
    np.testing.assert_allclose(tf8.jacrev(tf8.grad(_objective))(x), expected, rtol=1e-12)


def test_no_perturbation_confusion():
    """x is a constant inside the inner grad: d/dx [d/dy x*y at y = 2] = d/dx x = 1."""
    assert tf8.grad(lambda x: tf8.grad(lambda y: x * y)(2.0))(3.0) == 1.0
    # Siskind & Pearlmutter's example: d/dx [x * d/dy (x + y)] = 1
    assert tf8.grad(lambda x: x * tf8.grad(lambda y: x + y)(2.0))(3.0) == 1.0


def test_no_perturbation_confusion_in_forward_mode():
    def inner_derivative(x):
        return tf8.jvp(lambda y: x * y, (2.0,), (1.0,))[1]

    _, outer = tf8.jvp(inner_derivative, (3.0,), (1.0,))
    assert outer == 1.0


def test_nested_grad_with_the_same_value_closed_over():
    """The inner argument and the closed-over value are equal arrays but distinct leaves."""
    x0 = np.float64(1.5)
    g = tf8.grad(lambda x: tf8.grad(lambda y: x * y * y)(x0))(x0)
    # inner: d/dy x y² = 2 x y at y = x0; outer: d/dx 2 x x0 = 2 x0
    assert g == pytest.approx(2 * x0)


def test_jit_of_nested_grad():
    f = tf8.jit(tf8.grad(tf8.grad(lambda x: tnp.sin(x) * x)))
    for x in (0.0, 0.5, 2.0):
        np.testing.assert_allclose(f(x), 2 * np.cos(x) - x * np.sin(x), atol=1e-14)


def test_grad_inside_jit_inside_grad():
    inner = tf8.jit(lambda x: tnp.sum(tnp.tanh(x) ** 2))
    g = tf8.grad(lambda x: tf8.grad(inner)(x) @ x)(np.array([0.2, -0.4]))
    # grad of <2 tanh(x) sech²(x), x>
    x = np.array([0.2, -0.4])
    first = 2 * np.tanh(x) / np.cosh(x) ** 2
    second_diag = 2 / np.cosh(x) ** 4 - 4 * np.tanh(x) ** 2 / np.cosh(x) ** 2
    np.testing.assert_allclose(g, first + second_diag * x, rtol=1e-12)
