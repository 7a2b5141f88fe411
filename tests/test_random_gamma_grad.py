"""Derivatives of gamma draws (and of loggamma, beta, dirichlet, chisquare built on them) in
their shape parameters, as JAX defines them: implicitly, the draw's quantile u = P(a, x) held
fixed, so dx/da = d/da gammaincinv(a, u) — checked here with scipy's inverse and central
differences, with Monte Carlo (d/da E[x] = E[dx/da]) and with JAX's own outputs.

This is not the finite difference of the draw in `a` for a fixed key: that follows the
Marsaglia-Tsang arithmetic (x = d (1 + c z)**3 with z fixed), whose slope in `a` differs from
the implicit one (JAX: at a = 0.5 with key 0, grad 0.5031 where the fixed-key slope is 0.5313).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import tf8
import tf8.numpy as tnp
import tf8.random as random
from tf8.errors import DifferentiationError

K = random.PRNGKey(7)
A = np.array([0.05, 0.2, 0.7, 1.5, 4.0, 30.0])


def quantile_da(a, x):
    """d/da of the draw at quantile u = P(a, x) held fixed: central differences of scipy's
    inverse (of Q where u > 1/2, where it is the accurate one)."""
    a, x = np.asarray(a, np.float64), np.asarray(x, np.float64)
    h = 1e-6 * a
    u, q = sp.gammainc(a, x), sp.gammaincc(a, x)
    lower = (sp.gammaincinv(a + h, u) - sp.gammaincinv(a - h, u)) / (2 * h)
    upper = (sp.gammainccinv(a + h, q) - sp.gammainccinv(a - h, q)) / (2 * h)
    return np.where(u < 0.5, lower, upper)


def elementwise_grad(sampler, a):
    """d draw_i / d a_i (the draws are elementwise in `a`), in reverse and forward mode."""
    reverse = tf8.grad(lambda s: tnp.sum(sampler(s)))(a)
    _, forward = tf8.jvp(sampler, (a,), (np.ones_like(a),))
    np.testing.assert_allclose(forward, reverse, rtol=1e-12 if a.dtype == np.float64 else 1e-6)
    return np.asarray(reverse)


def test_gamma_derivative_holds_the_quantile_fixed():
    x = np.asarray(random.gamma(K, A))
    grad = elementwise_grad(lambda a: random.gamma(K, a), A)
    ok = x > 1e-200  # a = 0.05 draws may underflow (loggamma is the log-space form)
    np.testing.assert_allclose(grad[ok], quantile_da(A, x)[ok], rtol=1e-6)


def test_loggamma_derivative_is_the_gamma_derivative_over_the_draw():
    logs = np.asarray(random.loggamma(K, A))
    grad = elementwise_grad(lambda a: random.loggamma(K, a), A)
    x = np.exp(logs)
    np.testing.assert_allclose(grad, quantile_da(A, x) / x, rtol=1e-6)


def test_beta_differentiates_through_its_log_gamma_draws():
    a, b = A[1:], np.full(5, 2.0)
    key_a, key_b = random.split(K, 2)
    log_a, log_b = np.asarray(random.loggamma(key_a, a)), np.asarray(random.loggamma(key_b, b))
    draw = np.asarray(random.beta(K, a, b))
    np.testing.assert_allclose(draw, 1 / (1 + np.exp(log_b - log_a)), rtol=1e-12)
    dlog_a = quantile_da(a, np.exp(log_a)) / np.exp(log_a)
    dlog_b = quantile_da(b, np.exp(log_b)) / np.exp(log_b)
    grad_a, grad_b = tf8.grad(lambda s, t: tnp.sum(random.beta(K, s, t)), (0, 1))(a, b)
    np.testing.assert_allclose(grad_a, draw * (1 - draw) * dlog_a, rtol=1e-6)
    np.testing.assert_allclose(grad_b, -draw * (1 - draw) * dlog_b, rtol=1e-6)


def test_dirichlet_jacobian_is_the_softmax_chain_rule():
    alpha = np.array([0.3, 1.0, 2.5, 7.0])
    logs = np.asarray(random.loggamma(K, alpha))
    w = np.asarray(random.dirichlet(K, alpha))
    np.testing.assert_allclose(w, np.exp(logs) / np.exp(logs).sum(), rtol=1e-12)
    dlog = quantile_da(alpha, np.exp(logs)) / np.exp(logs)
    expected = (np.diag(w) - np.outer(w, w)) * dlog[None, :]
    np.testing.assert_allclose(tf8.jacrev(lambda s: random.dirichlet(K, s))(alpha), expected,
                               rtol=1e-6, atol=1e-12)  # fmt: skip
    np.testing.assert_allclose(tf8.jacfwd(lambda s: random.dirichlet(K, s))(alpha), expected,
                               rtol=1e-6, atol=1e-12)  # fmt: skip


def test_chisquare_is_twice_a_log_space_gamma_draw():
    df = np.array([0.6, 3.0, 11.0])
    half = np.asarray(random.chisquare(K, df)) / 2
    grad = elementwise_grad(lambda s: random.chisquare(K, s), df)
    np.testing.assert_allclose(grad, quantile_da(df / 2, half), rtol=1e-6)


@pytest.mark.parametrize("a", [0.6, 3.0])
def test_monte_carlo_mean_of_the_derivative_is_the_derivative_of_the_mean(a):
    """E[x] = a and E[log x] = digamma(a): the averaged derivatives are 1 and trigamma(a)."""
    n = 4000
    for sampler, target in (
        (random.gamma, 1.0),
        (random.loggamma, sp.polygamma(1, a)),
    ):
        per_draw = tf8.jacfwd(lambda s: sampler(K, s, (n,)))(a)  # noqa: B023
        error = 5 * per_draw.std() / np.sqrt(n)
        assert abs(per_draw.mean() - target) < error, (sampler.__name__, per_draw.mean(), target)


def test_values_computed_by_jax():
    """Literals printed by JAX 0.10.2 (x64): jax.jacfwd of jax.random.gamma / dirichlet at
    jax.random.key(42), a = [0.3, 1, 2.5, 7]; and grad of gamma at key(0), a = 0.5."""
    a = np.array([0.3, 1.0, 2.5, 7.0])
    gamma_jax = [0.42744183, 0.82177986, 1.57494193, 1.07220714]
    dirichlet_row_jax = [-0.01676368, -0.03222907, -0.06176704, 0.0345793]
    np.testing.assert_allclose(elementwise_grad(lambda s: random.gamma(random.key(42), s), a),
                               gamma_jax, rtol=1e-7)  # fmt: skip
    jac = tf8.jacrev(lambda s: random.dirichlet(random.key(42), s))(a)
    np.testing.assert_allclose(jac[3], dirichlet_row_jax, rtol=1e-6)
    grad = tf8.grad(lambda s: random.gamma(random.key(0), s))(0.5)
    np.testing.assert_allclose(grad, 0.5031238126584764, rtol=1e-12)
    slope = random.gamma(random.key(0), 0.5 + 1e-6) - random.gamma(random.key(0), 0.5 - 1e-6)
    assert abs(slope / 2e-6 - 0.5313394820585793) < 1e-6  # the fixed-key slope: not the grad


def test_jit_and_vmap_agree_with_eager():
    eager = elementwise_grad(lambda a: random.gamma(K, a), A)
    jitted = tf8.jit(tf8.grad(lambda a: tnp.sum(random.gamma(K, a))))(A)
    np.testing.assert_allclose(jitted, eager, rtol=1e-13)
    keys = random.split(K, 3)
    one = tf8.grad(lambda k, s: random.loggamma(k, s), argnums=1)
    loop = [one(k, s) for k, s in zip(keys, A[:3])]
    np.testing.assert_allclose(tf8.vmap(one)(keys, A[:3]), loop, rtol=1e-13)
    np.testing.assert_allclose(tf8.jit(tf8.vmap(one))(keys, A[:3]), loop, rtol=1e-13)


def test_float32_draws_differentiate_in_float32():
    a = A[1:].astype(np.float32)
    x = np.asarray(random.gamma(K, a, dtype=np.float32))
    grad = elementwise_grad(lambda s: random.gamma(K, s, dtype=np.float32), a)
    assert x.dtype == grad.dtype == np.float32
    np.testing.assert_allclose(grad, quantile_da(a, x), rtol=1e-4)


def quantile_d2a(a, x):
    """d²/da² of the draw at quantile u = P(a, x) held fixed: second central differences of
    scipy's inverse (of Q where u > 1/2)."""
    a, x = np.asarray(a, np.float64), np.asarray(x, np.float64)
    h = 1e-4 * a
    u, q = sp.gammainc(a, x), sp.gammaincc(a, x)

    def second(inverse, level):
        return (inverse(a + h, level) - 2 * inverse(a, level) + inverse(a - h, level)) / h**2

    return np.where(u < 0.5, second(sp.gammaincinv, u), second(sp.gammainccinv, q))


@pytest.mark.parametrize("a", [0.7, 1.5, 4.0, 30.0])
def test_second_derivatives_hold_the_quantile_fixed(a):
    # JAX differentiates random_gamma_grad's loops in forward mode; tf8 carries the second
    # derivative in a through the same series and continued fraction (gamma_second)
    x = float(random.gamma(K, a))
    first = tf8.grad(lambda s: random.gamma(K, s))
    second = float(tf8.grad(first)(a))
    np.testing.assert_allclose(second, quantile_d2a(a, x), rtol=1e-5)
    forward = tf8.jvp(
        lambda s: tf8.jvp(lambda t: random.gamma(K, t), (s,), (1.0,))[1], (a,), (1.0,)
    )
    np.testing.assert_allclose(float(forward[1]), second, rtol=1e-10)
    x_log = float(tnp.exp(random.loggamma(K, a)))
    log_second = float(tf8.grad(tf8.grad(lambda s: random.loggamma(K, s)))(a))
    # log x(a): (x''x − x'²) / x²
    expected = quantile_d2a(a, x_log) / x_log - (quantile_da(a, x_log) / x_log) ** 2
    np.testing.assert_allclose(log_second, expected, rtol=1e-5)


def test_third_derivatives_are_refused_clearly():
    third = tf8.grad(tf8.grad(tf8.grad(lambda a: random.gamma(K, a))))
    with pytest.raises(DifferentiationError, match="twice"):
        third(2.0)
    assert np.isfinite(tf8.grad(lambda a: random.t(K, a))(3.0))  # first order through t
