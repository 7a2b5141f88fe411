"""The special-function rows through tf8.lax: derivatives against scipy's closed forms, at
large arguments too, the edges (i1e at 0), and the operands JAX does not differentiate."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import tf8
import tf8.lax as lax
from tf8.errors import DifferentiationError

X = np.array([0.3, 1.5, 4.0, 55.0, 1.0e5])


def _grad(f, x):
    return tf8.grad(lambda v: f(v).sum())(x)


def test_gamma_family_derivatives_are_the_next_function():
    np.testing.assert_allclose(_grad(lax.lgamma, X), sp.psi(X), rtol=1e-12)
    np.testing.assert_allclose(_grad(lax.digamma, X), sp.polygamma(1, X), rtol=1e-12)
    n = np.full_like(X, 2.0)
    got = _grad(lambda v: lax.polygamma(n, v), X)
    np.testing.assert_allclose(got, sp.polygamma(3, X), rtol=1e-10)
    for f in (lax.lgamma, lax.digamma, lambda v: lax.polygamma(n[:4], v)):
        tf8.check_grads(f, (X[:4],), order=2, rtol=1e-4)


def test_incomplete_gamma_and_beta_derivatives_in_x():
    a, x = np.array([0.5, 2.5, 30.0]), np.array([0.2, 3.0, 28.0])
    density = np.exp((a - 1) * np.log(x) - x - sp.gammaln(a))  # the gamma density
    np.testing.assert_allclose(_grad(lambda v: lax.igamma(a, v), x), density, rtol=1e-10)
    np.testing.assert_allclose(_grad(lambda v: lax.igammac(a, v), x), -density, rtol=1e-10)
    np.testing.assert_allclose(lax.igamma(a, x) + lax.igammac(a, x), 1.0, rtol=1e-12)
    tf8.check_grads(lambda v: lax.igamma(a, v), (x,), order=2)
    b, u = np.array([1.5, 0.7, 4.0]), np.array([0.1, 0.5, 0.93])
    beta_density = u ** (a - 1) * (1 - u) ** (b - 1) / sp.beta(a, b)
    np.testing.assert_allclose(_grad(lambda v: lax.betainc(a, b, v), u), beta_density, rtol=1e-9)
    tf8.check_grads(lambda v: lax.betainc(a, b, v), (u,), order=2)


@pytest.mark.parametrize(
    "call, operand",
    [
        (lambda a: tf8.grad(lambda b: lax.igamma(b, 1.0))(a), "a"),  # igamma_grad_a's
        (lambda x: lax.igamma_grad_a(2.0, x), "x"),
        (lambda a: lax.random_gamma_grad(a, 1.0), "a"),
        (lambda n: lax.polygamma(n, 1.0), "n"),
        (lambda a: lax.betainc(a, 2.0, 0.5), "a"),
    ],
)
def test_operands_jax_does_not_differentiate_raise(call, operand):
    with pytest.raises(DifferentiationError, match=f"respect to {operand}"):
        tf8.grad(call)(2.0)


def test_hurwitz_zeta_and_its_q_derivative():
    x, q = np.array([1.5, 2.0, 6.0]), np.array([0.5, 1.0, 30.0])
    np.testing.assert_allclose(lax.zeta(x, q), sp.zeta(x, q), rtol=1e-14)
    np.testing.assert_allclose(_grad(lambda v: lax.zeta(x, v), q), -x * sp.zeta(x + 1, q))
    tf8.check_grads(lambda v: lax.zeta(x, v), (q,), order=2)


def test_scaled_bessel_functions_and_their_edges():
    x = np.array([-60.0, -2.0, -0.3, 0.4, 3.0, 700.0])
    np.testing.assert_allclose(lax.bessel_i0e(x), sp.i0e(x), rtol=1e-14)
    np.testing.assert_allclose(lax.bessel_i1e(x), sp.i1e(x), rtol=1e-14)
    # i0e' = i1e - sign(x) i0e; i1e' = i0e - i1e (sign(x) + 1/x), 1/2 at 0
    np.testing.assert_allclose(_grad(lax.bessel_i0e, x), sp.i1e(x) - np.sign(x) * sp.i0e(x))
    expected = sp.i0e(x) - sp.i1e(x) * (np.sign(x) + 1 / x)
    np.testing.assert_allclose(_grad(lax.bessel_i1e, x), expected, rtol=1e-12, atol=1e-15)
    assert tf8.grad(lax.bessel_i1e)(0.0) == 0.5
    tf8.check_grads(lax.bessel_i0e, (x[1:5],), order=2)
    tf8.check_grads(lax.bessel_i1e, (x[1:5],), order=2)


def test_float32_stays_float32_and_vmap_matches_scipy():
    x = np.linspace(0.5, 5.0, 6, dtype=np.float32)
    for f, ref in ((lax.lgamma, sp.gammaln), (lax.digamma, sp.psi), (lax.bessel_i1e, sp.i1e)):
        out = np.asarray(f(x))
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, ref(x), rtol=1e-6)
    a = np.linspace(0.5, 3.0, 6).reshape(2, 3)
    got = tf8.jit(tf8.vmap(lambda u, v: lax.igamma(u, v), in_axes=(0, None)))(a, a[0])
    np.testing.assert_allclose(got, sp.gammainc(a, a[0]))


def test_float32_derivatives_are_computed_in_float64_and_rounded_once():
    """A float32 row's derivative comes from the row recomputed in float64, as its value does
    (scipy's float32 loops run in double): ndtri's exp(out² / 2) would multiply the rounding
    of a float32 `out` by out², 3.6 at q = 0.03."""
    q = np.array([0.029628996, 0.05289982, 0.8324283], np.float32)
    found = _grad(lax.ndtri, q)
    exact = np.sqrt(2 * np.pi) * np.exp(sp.ndtri(q.astype(np.float64)) ** 2 / 2)
    assert found.dtype == np.float32
    np.testing.assert_array_equal(found, exact.astype(np.float32))  # rounded once
    second = tf8.grad(lambda v: _grad(lax.ndtri, v).sum())(q)  # and every order after
    exact2 = exact**2 * sp.ndtri(q.astype(np.float64))
    np.testing.assert_allclose(second, exact2, rtol=1.2e-7)
    x = np.array([0.3, 2.5], np.float32)
    np.testing.assert_array_equal(
        _grad(lax.lgamma, x), sp.psi(x.astype(np.float64)).astype(np.float32)
    )
