"""tf8.scipy.special, tf8.scipy.stats and the special lax rows follow JAX (0.10.2, x64) where it
differs from scipy: promotion (int32 and bool → float32, weak Python scalars), special values at
poles and infinities, zeta's derivative in x, and derivatives through clamp. Expected values are
JAX's recorded outputs, closed forms, or numerical differences."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import tf8
from tf8 import errors, lax
from tf8.scipy import special, stats


def test_promotion_follows_jax() -> None:
    i32, b = np.array([1, 2, 3], np.int32), np.array([True, False])
    for fn in (special.gammaln, special.digamma, special.erfc, special.i0, special.logit):
        assert fn(i32).dtype == np.float32 and fn(b).dtype == np.float32, fn.__name__
    assert special.betaln(i32, i32).dtype == np.float32
    assert special.logsumexp(i32).dtype == np.float32
    assert special.polygamma(np.int32(1), np.ones(2, np.float32)).dtype == np.float32
    assert special.gammaln(2)._weak and special.gammaln(2).dtype == np.float64
    assert not special.gamma(2.5)._weak  # JAX builds gamma from typed constants: strong
    assert not special.gammasgn(np.ones(2))._weak
    assert stats.norm.logpdf(0.5)._weak  # promote_args_inexact keeps a Python float weak
    assert not stats.bernoulli.logpmf(np.array([0, 1]), 0.3)._weak
    assert stats.bernoulli.logpmf(np.array(1), 0.3)._weak  # a weak 0-d operand: JAX's too


def test_special_values_follow_jax() -> None:
    nan, inf = np.nan, np.inf
    np.testing.assert_array_equal(special.digamma(np.array([0.0, -0.0, -1.0, -inf])), [nan] * 4)
    assert float(special.gammaln(-inf)) == inf
    assert np.signbit(special.erfinv(-0.0)) and np.signbit(special.i1e(-0.0))
    # JAX-recorded: zeta and polygamma at the poles q = 0, -1, ... and at infinities
    x = np.array([2.0, 3.0, -2.0, 2.0, inf, 1.0])
    q = np.array([-2.0, 0.0, -1.0, inf, 1.0, inf])
    np.testing.assert_array_equal(lax.zeta(x, q), [inf, nan, inf, nan, nan, inf])
    n, x = np.array([1.0, 2.0, 2.0, 3.0]), np.array([0.0, -2.0, 0.0, inf])
    np.testing.assert_array_equal(lax.polygamma(n, x), [inf, nan, nan, nan])
    np.testing.assert_array_equal(lax.igamma(np.array([inf]), np.array([1.0])), [nan])
    np.testing.assert_array_equal(lax.igammac(np.array([inf]), np.array([1.0])), [nan])
    assert np.isnan(special.xlogy(0.0, nan)) and np.isnan(special.xlog1py(0.0, nan))
    np.testing.assert_array_equal(special.entr(np.array([-1.0, nan, 0.0])), [-inf, nan, -0.0])
    with pytest.raises(errors.UnsupportedOperationError, match="Riemann"):
        special.zeta(2.0)
    with pytest.raises(errors.DTypeError, match="integer"):
        special.polygamma(np.array([1.0]), np.array([2.0]))


def test_betaln_is_jaxs_algorithm() -> None:
    a = np.array([29.475754092807403, 3.8590433569618896, 1.0])
    b = np.array([9.90303440277467, 9.784971090922662, 8.0])
    # JAX-recorded (its algdiv branch for max(a, b) >= 8 differs from scipy's by up to 5e-7)
    jax = [-22.281466025991094, -7.692650577092861, -2.07944061]
    np.testing.assert_allclose(special.betaln(a, b), jax, rtol=1e-9)
    np.testing.assert_allclose(special.betaln(a, b), sp.betaln(a, b), rtol=1e-6)


def test_zeta_is_differentiable_in_x() -> None:
    x, q = np.array([2.5, 3.0, 4.2]), np.array([1.0, 0.7, 3.5])
    h = 1e-6
    numeric = (sp.zeta(x + h, q) - sp.zeta(x - h, q)) / (2 * h)
    got = tf8.grad(lambda v: special.zeta(v, q).sum())(x)
    np.testing.assert_allclose(got, numeric, rtol=1e-7)
    tf8.check_grads(lambda v, w: special.zeta(v, w), (x, q), order=2, rtol=1e-5)


def test_reductions_follow_jax() -> None:
    np.testing.assert_array_equal(special.logsumexp(np.zeros((0, 3)), axis=0), [-np.inf] * 3)
    row = np.array([[-np.inf, -np.inf], [0.0, 1.0]])
    assert np.isnan(np.asarray(special.softmax(row, axis=-1))[0]).all()
    with pytest.raises(errors.DTypeError, match="bool"):
        special.softmax(np.array([True, False]))


def test_stats_follow_jax() -> None:
    # a fractional k interpolates (JAX has no integrality test for bernoulli.logpmf)
    expected = sp.xlogy(0.5, 0.3) + sp.xlog1py(0.5, -0.3)
    np.testing.assert_allclose(stats.bernoulli.logpmf(0.5, 0.3), expected)
    assert np.isnan(stats.beta.logpdf(0.5, -1.0, 2.0))  # a non-positive shape: NaN
    assert float(stats.expon.logcdf(2.0, 3.0, 1.0)) == -np.inf
    assert np.isnan(stats.bernoulli.cdf(0.5, 1.5))
    np.testing.assert_allclose(stats.norm.isf(1e-300), -sp.ndtri(1e-300))  # the tail kept
    assert stats.norm.ppf(np.float32(0.3)).dtype == np.float64  # JAX casts to float


def test_clamp_derivatives_follow_jax() -> None:
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    _, t = tf8.jvp(lambda v: lax.clamp(0.0, v, 1.0), (x,), (np.ones(5),))
    np.testing.assert_array_equal(t, [0.0, 0.0, 1.0, 0.0, 0.0])  # 0 at ties, as JAX
    # below the support, betainc's infinite x-derivative is selected away, not multiplied by 0
    second = tf8.grad(tf8.grad(lambda v: stats.beta.cdf(v, 0.5, 2.0, 1.5, 0.5)))(0.3)
    assert float(second) == 0.0


def test_complex_erfcx_and_gamma_follow_jax() -> None:
    # JAX computes both for complex arguments (Weideman's Faddeeva approximation, Lanczos)
    z = np.array([0.5 + 1.0j, -1.2 + 0.3j, 2.0 - 0.7j, 3.0 + 0.0j])
    np.testing.assert_allclose(special.erfcx(z), sp.erfcx(z), rtol=1e-12)
    np.testing.assert_allclose(special.gamma(z), sp.gamma(z), rtol=1e-12)
    assert np.isnan(np.asarray(special.gamma(np.array([-2.0 + 0.0j])))).all()
    # d/dz erfcx(z) = 2 z erfcx(z) - 2 / sqrt(pi), holomorphic
    _, t = tf8.jvp(special.erfcx, (z,), (np.ones_like(z),))
    np.testing.assert_allclose(t, 2 * z * sp.erfcx(z) - 2 / np.sqrt(np.pi), rtol=1e-9)
