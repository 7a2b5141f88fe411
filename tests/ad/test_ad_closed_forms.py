"""Derivatives against closed forms, finite differences and hand-written backprop (issue 5).

Complex numbers follow JAX: for a real-valued f of complex z, grad f = ∂f/∂x - i ∂f/∂y (the
conjugate of the steepest-ascent direction), so grad |z|² at 3+4j is 6-8j; for holomorphic f,
grad(f, holomorphic=True) = f'(z), jvp multiplies by f'(z) and vjp(ct) = ct * f'(z).
"""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp

# --- Rosenbrock: the Hessian in closed form ---------------------------------------------------


def rosenbrock(x):
    return tnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hessian(x: np.ndarray) -> np.ndarray:
    n = x.size
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 1200.0 * x[i] ** 2 - 400.0 * x[i + 1] + 2.0
        h[i + 1, i + 1] += 200.0
        h[i, i + 1] = h[i + 1, i] = -400.0 * x[i]
    return h


@pytest.mark.parametrize("n", [2, 5])
def test_hessian_of_rosenbrock(n):
    x = np.random.default_rng(n).uniform(-1.5, 1.5, n)
    np.testing.assert_allclose(tf8.hessian(rosenbrock)(x), rosenbrock_hessian(x), rtol=1e-12)


def test_rosenbrock_gradient_vanishes_at_the_minimum():
    np.testing.assert_array_equal(tf8.grad(rosenbrock)(np.ones(4)), np.zeros(4))


# --- third derivative -------------------------------------------------------------------------


def test_third_derivative_of_x_sin_x():
    third = tf8.grad(tf8.grad(tf8.grad(lambda x: tnp.sin(x) * x)))
    for x in (-1.3, 0.0, 0.7, 2.0):
        np.testing.assert_allclose(third(x), -3 * np.sin(x) - x * np.cos(x), atol=1e-14)


def test_third_derivative_by_jacfwd_of_hessian():
    x = np.array([0.3, -0.8])
    third = tf8.jacfwd(tf8.hessian(lambda v: tnp.sum(tnp.sin(v) * v)))(x)
    expected = np.zeros((2, 2, 2))
    for i in range(2):
        expected[i, i, i] = -3 * np.sin(x[i]) - x[i] * np.cos(x[i])
    np.testing.assert_allclose(third, expected, atol=1e-14)


# --- a 2-layer tanh MLP over a dict of parameters ---------------------------------------------


def mlp_loss(params, x, y):
    hidden = tnp.tanh(x @ params["w1"] + params["b1"])
    out = hidden @ params["w2"] + params["b2"]
    return tnp.sum((out - y) ** 2)


def mlp_grad_numpy(params, x, y):
    hidden = np.tanh(x @ params["w1"] + params["b1"])
    out = hidden @ params["w2"] + params["b2"]
    d_out = 2.0 * (out - y)
    d_hidden = (d_out @ params["w2"].T) * (1.0 - hidden**2)
    return {
        "w1": x.T @ d_hidden,
        "b1": d_hidden.sum(axis=0),
        "w2": hidden.T @ d_out,
        "b2": d_out.sum(axis=0),
    }


def mlp_data(seed: int = 0):
    rng = np.random.default_rng(seed)
    params = {
        "w1": rng.standard_normal((4, 6)) * 0.5,
        "b1": rng.standard_normal(6) * 0.1,
        "w2": rng.standard_normal((6, 3)) * 0.5,
        "b2": rng.standard_normal(3) * 0.1,
    }
    return params, rng.standard_normal((5, 4)), rng.standard_normal((5, 3))


def test_mlp_gradient_matches_numpy_backprop():
    params, x, y = mlp_data()
    grads = tf8.grad(mlp_loss)(params, x, y)
    expected = mlp_grad_numpy(params, x, y)
    assert set(grads) == set(expected)
    for name in expected:
        np.testing.assert_allclose(grads[name], expected[name], rtol=1e-12, atol=1e-12)


def test_mlp_gradient_matches_finite_differences():
    params, x, y = mlp_data(1)
    grads = tf8.grad(mlp_loss)(params, x, y)
    eps = 1e-6

    def loss_np(p):
        return float(np.asarray(mlp_loss(p, x, y)))

    for name, value in params.items():
        numeric = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            bumped = {k: v.copy() for k, v in params.items()}
            bumped[name][index] += eps
            up = loss_np(bumped)
            bumped[name][index] -= 2 * eps
            numeric[index] = (up - loss_np(bumped)) / (2 * eps)
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-6, atol=1e-7)


def test_mlp_value_and_grad_and_check_grads():
    params, x, y = mlp_data(2)
    value, grads = tf8.value_and_grad(mlp_loss)(params, x, y)
    np.testing.assert_allclose(value, np.asarray(mlp_loss(params, x, y)))
    names = sorted(params)

    def flat(*leaves):
        return mlp_loss(dict(zip(names, leaves)), x, y)

    tf8.check_grads(flat, [params[n] for n in names], order=2)


# --- Jacobians --------------------------------------------------------------------------------


def vector_map(v):
    return tnp.stack([v[0] * v[1], tnp.sin(v[2]), tnp.exp(v[0]) - v[2] ** 2, tnp.sum(v * v)])


def test_jacfwd_equals_jacrev_and_the_closed_form():
    v = np.array([0.5, -1.2, 2.0])
    forward, reverse = tf8.jacfwd(vector_map)(v), tf8.jacrev(vector_map)(v)
    assert forward.shape == reverse.shape == (4, 3)
    np.testing.assert_allclose(forward, reverse, rtol=1e-14)
    expected = np.array(
        [
            [v[1], v[0], 0.0],
            [0.0, 0.0, np.cos(v[2])],
            [np.exp(v[0]), 0.0, -2 * v[2]],
            2 * v,
        ]
    )
    np.testing.assert_allclose(forward, expected, rtol=1e-14)


def test_jacobians_of_a_matrix_map():
    m = np.random.default_rng(3).standard_normal((2, 3))

    def f(m):
        return tnp.tanh(m) @ m.T

    forward, reverse = tf8.jacfwd(f)(m), tf8.jacrev(f)(m)
    assert forward.shape == (2, 2, 2, 3)
    np.testing.assert_allclose(forward, reverse, rtol=1e-12, atol=1e-14)


# --- complex numbers --------------------------------------------------------------------------


def test_grad_of_abs_squared_follows_jax():
    assert tf8.grad(lambda z: tnp.abs(z) ** 2)(3 + 4j) == pytest.approx(6 - 8j)
    assert tf8.grad(lambda z: tnp.real(z * tnp.conj(z)))(3 + 4j) == pytest.approx(6 - 8j)


def test_grad_of_real_part_and_imaginary_part():
    assert tf8.grad(lambda z: tnp.real(z))(1 + 2j) == pytest.approx(1 + 0j)
    assert tf8.grad(lambda z: tnp.imag(z))(1 + 2j) == pytest.approx(-1j)


HOLOMORPHIC = [
    (lambda z: tnp.sin(z) * z, lambda z: np.cos(z) * z + np.sin(z)),
    (lambda z: tnp.exp(z) / (z + 2.0), lambda z: np.exp(z) * (z + 1.0) / (z + 2.0) ** 2),
    (lambda z: tnp.log(z) * z**3, lambda z: 3 * z**2 * np.log(z) + z**2),
]


@pytest.mark.parametrize("f, derivative", HOLOMORPHIC)
def test_holomorphic_jvp_vjp_grad(f, derivative):
    rng = np.random.default_rng(4)
    z = rng.standard_normal(3) + 1j * rng.standard_normal(3) + 1.0
    t = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    _, tangent = tf8.jvp(f, (z,), (t,))
    np.testing.assert_allclose(tangent, derivative(z) * t, rtol=1e-12)
    _, pullback = tf8.vjp(f, z)
    (cotangent,) = pullback(t)
    np.testing.assert_allclose(cotangent, t * derivative(z), rtol=1e-12)
    for zi in z:
        g = tf8.grad(f, holomorphic=True)(zi)
        np.testing.assert_allclose(g, derivative(zi), rtol=1e-12)
    tf8.check_grads(f, [z], order=2)


def test_product_derivatives_with_zero_factors():
    # The property cases keep one zero per product (central differences cannot resolve the
    # exact 0 derivative of a product with two zero factors); this pins the closed forms.
    np.testing.assert_array_equal(tf8.grad(tnp.prod)(np.array([2.0, 0.0, 3.0])), [0.0, 6.0, 0.0])
    np.testing.assert_array_equal(tf8.grad(tnp.prod)(np.array([2.0, 0.0, 0.0])), [0.0, 0.0, 0.0])
    hessian = tf8.hessian(tnp.prod)(np.array([2.0, 0.0, 0.0]))
    np.testing.assert_array_equal(hessian, [[0.0, 0.0, 0.0], [0.0, 0.0, 2.0], [0.0, 2.0, 0.0]])
    z, t = np.array([2 + 1j, 0j, -0j]), np.array([1.0, 1 + 1j, 1j])
    assert tf8.jvp(tnp.prod, (z,), (t,))[1] == 0
    _, tangent = tf8.jvp(tnp.prod, (z[:2],), (t[:2],))
    np.testing.assert_allclose(tangent, (2 + 1j) * (1 + 1j), rtol=1e-15)
