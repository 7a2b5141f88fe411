"""lax.igamma_grad_a and lax.random_gamma_grad: the shape-parameter derivatives of the
incomplete gamma function, against scipy (central differences of gammainc in a, and a term by
term series), on JAX's edge cases; igamma/igammac differentiated in a through them."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.special as sp

import tf8
from tf8 import lax
from tf8.errors import DifferentiationError, ShapeError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))
from catalog_cases import igamma_grad_a_reference  # noqa: E402

# (a, x) over small and large a, x < 1, x around a, x > a (continued fraction) and far tails.
_A = np.array([0.01, 0.1, 0.5, 1.0, 2.5, 10.0, 80.0, 1000.0])
_X = np.array([1e-3, 0.2, 0.9, 1.5, 3.0, 9.0, 12.0, 75.0, 95.0, 1050.0])
A, X = (g.ravel() for g in np.meshgrid(_A, _X, indexing="ij"))


def _gammainc_da(a, x):
    """Central difference of scipy's gammainc in a (relative step), through gammaincc where P
    is near 1 (it is accurate there relatively, P is not)."""
    h = 1e-5 * a
    lower = (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)
    upper = (sp.gammaincc(a - h, x) - sp.gammaincc(a + h, x)) / (2 * h)
    return np.where(sp.gammainc(a, x) < 0.5, lower, upper)


def _density(a, x):
    return np.exp((a - 1) * np.log(x) - x - sp.gammaln(a))


def test_igamma_grad_a_matches_central_differences_of_scipy():
    got = np.asarray(lax.igamma_grad_a(A, X))
    np.testing.assert_allclose(got, _gammainc_da(A, X), rtol=2e-6, atol=1e-11)
    assert np.all(got <= 0)  # P(a, x) decreases in a
    small = X < 60  # the series reference converges in its 300 terms
    np.testing.assert_allclose(
        got[small], igamma_grad_a_reference(A[small], X[small]), rtol=1e-9, atol=1e-15
    )


def test_random_gamma_grad_is_the_implicit_derivative():
    """dx/da = -(dP/da)/(dP/dx), and it equals d/da of the quantile gammaincinv(a, u)."""
    a, x = A[_density(A, X) > 1e-200], X[_density(A, X) > 1e-200]
    got = np.asarray(lax.random_gamma_grad(a, x))
    np.testing.assert_allclose(got, -_gammainc_da(a, x) / _density(a, x), rtol=1e-5)
    u = sp.gammainc(a, x)
    inner = (u > 1e-10) & (u < 1 - 1e-10)  # where gammaincinv is well conditioned
    h = 1e-6 * a[inner]
    quantile_da = sp.gammaincinv(a[inner] + h, u[inner]) - sp.gammaincinv(a[inner] - h, u[inner])
    np.testing.assert_allclose(got[inner], quantile_da / (2 * h), rtol=1e-5)


def test_jax_edge_cases_zero_at_x_zero_nan_outside_the_domain():
    a = np.array([2.0, 0.5, 0.0, -1.0, 2.0, np.nan, 2.0])
    x = np.array([0.0, 0.0, 1.0, 1.0, -0.5, 1.0, np.nan])
    for f in (lax.igamma_grad_a, lax.random_gamma_grad):
        out = np.asarray(f(a, x))
        assert out[0] == 0 and out[1] == 0, f.__name__
        assert np.all(np.isnan(out[2:])), f.__name__


def test_values_computed_by_jax():
    """Literals printed by JAX 0.10.2 (jax.lax.igamma_grad_a / random_gamma_grad, x64)."""
    a, x = np.array([0.1, 0.5, 2.0, 30.0, 1000.0]), np.array([0.05, 2.0, 10.0, 25.0, 1000.0])
    jax_grad_a = [-2.0264226621, -0.135619335204, -9.883279448273e-4, -4.995487742584e-2,
                  -1.261671399407e-2]  # fmt: skip
    jax_sample = [1.367283067837, 2.511889376362, 2.176937167079, 0.916681599736, 1.000166683324]
    np.testing.assert_allclose(lax.igamma_grad_a(a, x), jax_grad_a, rtol=1e-9)
    np.testing.assert_allclose(lax.random_gamma_grad(a, x), jax_sample, rtol=1e-11)


def test_igamma_and_igammac_are_differentiated_in_a():
    a, x = np.array([0.3, 1.7, 6.0]), np.array([0.8, 4.0, 2.5])
    grad_p = tf8.grad(lambda s: lax.igamma(s, x).sum())(a)
    grad_q = tf8.grad(lambda s: lax.igammac(s, x).sum())(a)
    np.testing.assert_allclose(grad_p, _gammainc_da(a, x), rtol=1e-6)
    np.testing.assert_array_equal(grad_q, -grad_p)
    tf8.check_grads(lambda s, v: lax.igamma(s, v), (a, x), order=1)
    tf8.check_grads(lambda s, v: lax.igammac(s, v), (a, x), order=1)
    _, tangent = tf8.jvp(lambda s: lax.igamma(s, x), (a,), (np.ones(3),))
    np.testing.assert_allclose(tangent, grad_p, rtol=1e-12)
    with pytest.raises(DifferentiationError, match="igamma_grad_a.*respect to a"):
        tf8.grad(tf8.grad(lambda s: lax.igamma(s, 2.0)))(1.5)


def test_jit_and_vmap_agree_with_eager():
    eager = [np.asarray(f(A, X)) for f in (lax.igamma_grad_a, lax.random_gamma_grad)]
    for i, f in enumerate((lax.igamma_grad_a, lax.random_gamma_grad)):
        np.testing.assert_array_equal(tf8.jit(f)(A, X), eager[i])
        rows_a, rows_x = A.reshape(8, 10), X.reshape(8, 10)
        loop = [np.asarray(f(u, v)) for u, v in zip(rows_a, rows_x)]
        np.testing.assert_array_equal(tf8.vmap(f)(rows_a, rows_x), np.stack(loop))
        np.testing.assert_array_equal(tf8.vmap(f, 1, 1)(rows_a, rows_x), np.stack(loop))
    grads = tf8.jit(tf8.vmap(tf8.grad(lambda s, v: lax.igamma(s, v))))(A[:10], X[:10])
    np.testing.assert_array_equal(grads, eager[0][:10])


def test_float32_and_shapes():
    a32, x32 = A.astype(np.float32), X.astype(np.float32)
    for f in (lax.igamma_grad_a, lax.random_gamma_grad):
        out = np.asarray(f(a32, x32))
        assert out.dtype == np.float32
        exact = np.asarray(f(a32.astype(np.float64), x32.astype(np.float64)))
        np.testing.assert_allclose(out, exact.astype(np.float32), rtol=1e-6, atol=1e-30)
        assert f(2.0, np.ones((2, 3), np.float32)).shape == (2, 3)  # a scalar is lifted
        with pytest.raises(ShapeError, match=f"{f.__name__}: operands must have equal shapes"):
            f(np.ones((3, 1)), np.ones((1, 4)))
    tf8.check_grads(lambda v: lax.igamma(np.float32(2.0), v), (np.float32(1.5),), order=1)
