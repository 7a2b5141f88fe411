"""tf8.scipy.special and tf8.scipy.stats against scipy: values (including far tails),
derivatives to order 2, and jit/grad through them."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as ss
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
from tf8 import errors
from tf8.scipy import special, stats

UNARY: dict[str, tuple[Callable, Callable, tuple[float, float]]] = {
    "erf": (special.erf, sp.erf, (-6, 6)),
    "erfc": (special.erfc, sp.erfc, (-6, 26)),
    "expit": (special.expit, sp.expit, (-50, 50)),
    "logit": (special.logit, sp.logit, (1e-6, 1 - 1e-6)),
    "ndtr": (special.ndtr, sp.ndtr, (-37, 8)),
    "log_ndtr": (special.log_ndtr, sp.log_ndtr, (-1e4, 40)),
    "entr": (special.entr, sp.entr, (-1, 10)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@given(data=st.data())
def test_unary_matches_scipy(name: str, data: st.DataObject) -> None:
    fn, reference, (low, high) = UNARY[name]
    x = data.draw(
        hnp.arrays(
            np.float64,
            hnp.array_shapes(max_dims=2, max_side=4),
            elements=st.floats(low, high, allow_nan=False),
        )
    )
    np.testing.assert_allclose(np.asarray(fn(x)), reference(x), rtol=1e-12, atol=0)


def test_tails() -> None:
    """erfc and ndtr keep their relative accuracy where 1 - erf has cancelled to 0;
    log_ndtr is finite far below where ndtr underflows."""
    x = np.array([2.4, 2.5, 2.6, 5.0, 9.0, 20.0, 26.0])
    np.testing.assert_allclose(np.asarray(special.erfc(x)), sp.erfc(x), rtol=5e-13)
    np.testing.assert_allclose(
        np.asarray(special.ndtr(-x * np.sqrt(2))), sp.ndtr(-x * np.sqrt(2)), rtol=5e-13
    )
    far = np.array([-40.0, -1e3, -1e6, -1e100, 1e3])
    np.testing.assert_allclose(np.asarray(special.log_ndtr(far)), sp.log_ndtr(far), rtol=1e-13)
    gradient = np.asarray(tf8.grad(lambda v: special.log_ndtr(v).sum())(far[:3]))
    np.testing.assert_allclose(
        gradient[:2], np.exp(ss.norm.logpdf(far[:2]) - sp.log_ndtr(far[:2])), rtol=1e-9
    )
    assert gradient[2] == pytest.approx(1e6 + 1e-6, rel=1e-15)  # φ/Φ ~ -x - 1/x
    assert np.asarray(special.erfc(np.inf)) == 0 and np.asarray(special.erfc(-np.inf)) == 2


@pytest.mark.parametrize("name", ["erf", "erfc", "expit", "ndtr", "log_ndtr"])
def test_unary_derivatives(name: str) -> None:
    x = np.array([-30.0, -4.0, -2.6, -0.4, 0.3, 2.4, 2.6, 4.5])
    tf8.check_grads(UNARY[name][0], (x,), order=2)


def test_logit_and_entr_derivatives() -> None:
    tf8.check_grads(special.logit, (np.array([0.05, 0.3, 0.7, 0.98]),), order=2)
    tf8.check_grads(special.entr, (np.array([0.05, 0.3, 2.0]),), order=2)


def test_xlogy_and_xlog1py() -> None:
    x = np.array([0.0, 0.0, 1.5, 2.0, 0.0])
    y = np.array([0.0, 3.0, 0.5, 2.0, -1.0])
    np.testing.assert_array_equal(np.asarray(special.xlogy(x, y)), sp.xlogy(x, y))
    np.testing.assert_array_equal(np.asarray(special.xlog1py(x, y)), sp.xlog1py(x, y))
    # JAX's rule, at x = 0 too: d/dx = log y (not 0), d/dy = x / y (0, and 0 / 0 at y = 0)
    dx = np.asarray(tf8.grad(lambda v: special.xlogy(v, y).sum())(x))
    assert dx[0] == -np.inf and dx[1] == np.log(3.0) and dx[3] == np.log(2.0)
    dy = np.asarray(tf8.grad(lambda v: special.xlogy(x, v).sum())(y))
    assert np.isnan(dy[0]) and dy[1] == 0 and dy[3] == 1.0
    dx1p = np.asarray(tf8.grad(lambda v: special.xlog1py(v, y).sum())(x))
    np.testing.assert_allclose(dx1p[:2], [0.0, np.log(4.0)])
    a, b = np.array([0.5, 1.5, 2.5]), np.array([0.7, 1.2, 3.0])
    tf8.check_grads(special.xlogy, (a, b), order=2)
    tf8.check_grads(special.xlog1py, (a, b), order=2)


def test_logsumexp_softmax_scipy_conventions() -> None:
    x = np.random.default_rng(0).normal(size=(3, 4))
    np.testing.assert_allclose(np.asarray(special.logsumexp(x)), sp.logsumexp(x))
    b = np.linspace(-1.0, 1.0, 4)
    out, sign = special.logsumexp(x, axis=-1, b=b, return_sign=True)
    expected, expected_sign = sp.logsumexp(x, axis=-1, b=b, return_sign=True)
    np.testing.assert_allclose(np.asarray(out), expected)
    np.testing.assert_array_equal(np.asarray(sign), expected_sign)
    # scipy's softmax defaults to all axes
    np.testing.assert_allclose(np.asarray(special.softmax(x)), sp.softmax(x))
    np.testing.assert_allclose(np.asarray(special.log_softmax(x)), sp.log_softmax(x))
    np.testing.assert_allclose(np.asarray(special.softmax(x, axis=0)), sp.softmax(x, axis=0))


# --- stats --------------------------------------------------------------------------------------

CONTINUOUS = {
    "norm": ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"],
    "expon": ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"],
    "laplace": ["logpdf", "pdf", "cdf", "logcdf", "sf", "ppf"],
    "logistic": ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"],
    "cauchy": ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"],
    "uniform": ["logpdf", "pdf", "cdf", "logcdf", "ppf"],
}
CASES = [(name, fn) for name, fns in CONTINUOUS.items() for fn in fns]


@pytest.mark.parametrize(("dist", "fn"), CASES)
def test_continuous_matches_scipy(dist: str, fn: str) -> None:
    ours, theirs = getattr(getattr(stats, dist), fn), getattr(getattr(ss, dist), fn)
    if fn == "ppf":
        x = np.array([0.01, 0.2, 0.5, 0.77, 0.999])
    else:
        x = np.array([-60.0, -5.0, -1.2, -0.1, 0.0, 0.35, 0.9, 1.7, 3.0, 60.0])
    # JAX's norm.logsf is log(ndtr) up to x = 8 (not log1p(-ndtr)): 1e-10 where it is ~-1e-7
    rtol = 1e-9 if (dist, fn) == ("norm", "logsf") else 1e-11
    for loc, scale in [(0.0, 1.0), (0.4, 2.5)]:
        got = np.asarray(ours(x, loc=loc, scale=scale))
        np.testing.assert_allclose(got, theirs(x, loc=loc, scale=scale), rtol=rtol, atol=1e-300)


@pytest.mark.parametrize(("dist", "fn"), CASES)
def test_continuous_derivatives(dist: str, fn: str) -> None:
    ours = getattr(getattr(stats, dist), fn)
    if fn == "ppf":
        x = np.array([0.1, 0.3, 0.6, 0.85])
    else:  # inside every support, away from the kinks at loc (laplace) and the uniform edges
        x = np.array([0.65, 0.9, 1.3, 1.6])
    tf8.check_grads(
        lambda v, loc, scale: ours(v, loc, scale), (x, np.array(0.4), np.array(1.3)), order=2
    )


def test_far_tails() -> None:
    np.testing.assert_allclose(
        np.asarray(stats.norm.logcdf(np.array([-100.0, 100.0]))), ss.norm.logcdf([-100.0, 100.0])
    )
    np.testing.assert_allclose(
        np.asarray(stats.logistic.logpdf(np.array([-1000.0, 1000.0]))),
        ss.logistic.logpdf([-1000.0, 1000.0]),
    )
    np.testing.assert_allclose(
        np.asarray(stats.cauchy.cdf(np.array([-1e12]))), ss.cauchy.cdf([-1e12]), rtol=1e-12
    )


@pytest.mark.parametrize("dist", ["bernoulli", "geom"])
def test_discrete_matches_scipy(dist: str) -> None:
    k = np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 7.0])
    module, reference = getattr(stats, dist), getattr(ss, dist)
    for fn in ["logpmf", "pmf", "cdf"]:
        for p, loc in [(0.3, 0), (0.85, 1)]:
            np.testing.assert_allclose(
                np.asarray(getattr(module, fn)(k, p, loc)),
                getattr(reference, fn)(k, p, loc),
                rtol=1e-13,
                atol=1e-300,
            )
    np.testing.assert_allclose(np.asarray(stats.geom.sf(k, 0.3)), ss.geom.sf(k, 0.3), rtol=1e-13)


def test_discrete_derivatives_in_p() -> None:
    k = np.array([0.0, 1.0, 1.0, 0.0])
    tf8.check_grads(
        lambda p: stats.bernoulli.logpmf(k, p), (np.array([0.2, 0.5, 0.7, 0.9]),), order=2
    )
    tf8.check_grads(
        lambda p: stats.geom.logpmf(k + 2, p), (np.array([0.2, 0.5, 0.7, 0.9]),), order=2
    )
    tf8.check_grads(lambda p: stats.geom.cdf(k + 2, p), (np.array([0.2, 0.5, 0.7, 0.9]),), order=2)


def _covariance(rng: np.random.Generator, size: int) -> np.ndarray:
    a = rng.normal(size=(size, size))
    return a @ a.T + size * np.eye(size)


def test_multivariate_normal_matches_scipy() -> None:
    rng = np.random.default_rng(1)
    cov, mean, x = _covariance(rng, 3), rng.normal(size=3), rng.normal(size=(4, 2, 3))
    mvn = stats.multivariate_normal
    np.testing.assert_allclose(
        np.asarray(mvn.logpdf(x, mean, cov)), ss.multivariate_normal.logpdf(x, mean, cov)
    )
    np.testing.assert_allclose(
        np.asarray(mvn.pdf(x[0, 0], mean, cov)), ss.multivariate_normal.pdf(x[0, 0], mean, cov)
    )
    np.testing.assert_allclose(  # a 0-d cov is every component's variance
        np.asarray(mvn.logpdf(x, mean, 1.5)),
        ss.multivariate_normal.logpdf(x, mean, 1.5 * np.eye(3)),
    )
    with pytest.raises(errors.ShapeError, match="cov"):  # a 1-d cov is refused, as JAX
        mvn.logpdf(x, mean, np.array([0.5, 2.0, 1.5]))
    covs = np.stack([cov, 2 * cov])  # a batch of covariances, broadcast against x's batch
    np.testing.assert_allclose(
        np.asarray(mvn.logpdf(x[0], mean, covs)),
        [ss.multivariate_normal.logpdf(x[0, i], mean, covs[i]) for i in range(2)],
    )
    np.testing.assert_allclose(
        np.asarray(mvn.logpdf(0.3, 0.1, 2.0)), ss.norm.logpdf(0.3, 0.1, np.sqrt(2.0))
    )


def test_multivariate_normal_derivatives() -> None:
    rng = np.random.default_rng(2)
    cov, mean, x = _covariance(rng, 3), rng.normal(size=3), rng.normal(size=(2, 3))
    tf8.check_grads(lambda v, m: stats.multivariate_normal.logpdf(v, m, cov), (x, mean), order=2)
    # the derivative in cov, through the Cholesky factor, against the closed form
    gradient = np.asarray(tf8.grad(lambda c: stats.multivariate_normal.logpdf(x[0], mean, c))(cov))
    inverse = np.linalg.inv(cov)
    d = inverse @ (x[0] - mean)
    closed = 0.5 * (np.outer(d, d) - inverse)
    np.testing.assert_allclose(
        gradient + gradient.T - np.diag(np.diag(gradient)),
        2 * closed - np.diag(np.diag(closed)),
        rtol=1e-8,
    )


def test_jit_and_grad_through_a_likelihood() -> None:
    data = np.random.default_rng(3).normal(loc=1.0, scale=2.0, size=20)

    def negative_log_likelihood(params):
        loc, log_scale = params[0], params[1]
        return -stats.norm.logpdf(data, loc, tf8.numpy.exp(log_scale)).sum()

    params = np.array([0.3, 0.2])
    expected = -ss.norm.logpdf(data, 0.3, np.exp(0.2)).sum()
    assert float(np.asarray(tf8.jit(negative_log_likelihood)(params))) == pytest.approx(
        expected, rel=1e-13
    )
    eager = np.asarray(tf8.grad(negative_log_likelihood)(params))
    np.testing.assert_allclose(
        np.asarray(tf8.jit(tf8.grad(negative_log_likelihood))(params)), eager, rtol=1e-12
    )
    tf8.check_grads(negative_log_likelihood, (params,), order=2)


def test_poch_and_boxcox_of_float32_are_computed_in_float64() -> None:
    """Their derivatives cancel (Γ(z + m)'s against Γ(z)'s; expm1(λ L) / λ's in λ): float32
    computes in float64 and rounds once, as scipy's float32 loops do."""
    z = np.array([5.063676, 0.927389], np.float32)
    second = tf8.grad(tf8.grad(lambda v: special.poch(v, 2.54)))
    for v in z:
        found, exact = second(v), second(np.float64(v))
        assert found.dtype == np.float32
        np.testing.assert_allclose(found, exact, rtol=1.2e-7)  # float32's own: 3e-6
    assert float(special.poch(np.float32(50), np.float32(0.5))) == sp.poch(50.0, 0.5).astype(
        np.float32
    )  # scipy's value; JAX's float32 Γ(50.5) / Γ(50) is inf / inf
    lmbda = np.float32(0.13086353)
    second = tf8.grad(tf8.grad(lambda v: special.boxcox1p(2.7, v)))
    found, exact = second(lmbda), second(np.float64(lmbda))
    assert found.dtype == np.float32
    np.testing.assert_allclose(found, exact, rtol=1.2e-7)
