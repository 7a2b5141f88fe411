"""tf8.scipy.stats' t, beta, gamma, chi2, dirichlet, poisson, binom and norm.ppf against
scipy.stats on random inputs, with derivatives checked to second order."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import scipy.stats as ss
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
from tf8.scipy import stats

SHAPE = hnp.array_shapes(max_dims=1, min_side=1, max_side=5)
POS = st.floats(0.3, 8.0)


def _draw(data, shape, lo, hi):
    return data.draw(hnp.arrays(np.float64, shape, elements=st.floats(lo, hi)))


# name -> (tf8 module, scipy distribution, parameter ranges, x range, functions)
CONTINUOUS: dict[str, tuple] = {
    "gamma": (stats.gamma, ss.gamma, [(0.3, 8.0)], (-1.0, 20.0)),
    "chi2": (stats.chi2, ss.chi2, [(0.5, 10.0)], (-1.0, 25.0)),
    "beta": (stats.beta, ss.beta, [(0.3, 6.0), (0.3, 6.0)], (-0.2, 1.2)),
    "t": (stats.t, ss.t, [(0.5, 30.0)], (-15.0, 15.0)),
}
FUNCTIONS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
@given(data=st.data())
def test_continuous_match_scipy(name: str, data: st.DataObject) -> None:
    ours, theirs, ranges, (lo, hi) = CONTINUOUS[name]
    shape = data.draw(SHAPE)
    x = _draw(data, shape, lo, hi)
    params = [_draw(data, shape, a, b) for a, b in ranges]
    loc, scale = data.draw(st.floats(-1, 1)), data.draw(st.floats(0.5, 2))
    for fn in FUNCTIONS:
        with np.errstate(all="ignore"):
            expected = getattr(theirs, fn)(x, *params, loc=loc, scale=scale)
        got = np.asarray(getattr(ours, fn)(x, *params, loc, scale))
        np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-12, err_msg=f"{name}.{fn}")


@given(data=st.data())
def test_discrete_match_scipy(data: st.DataObject) -> None:
    shape = data.draw(SHAPE)
    k = data.draw(hnp.arrays(np.float64, shape, elements=st.sampled_from([-1, 0, 1, 2, 3.5, 7])))
    mu = _draw(data, shape, 0.1, 9.0)
    n = data.draw(hnp.arrays(np.float64, shape, elements=st.integers(0, 9)))
    p = _draw(data, shape, 0.01, 0.99)
    for fn in ("logpmf", "pmf", "cdf"):
        np.testing.assert_allclose(
            getattr(stats.poisson, fn)(k, mu), getattr(ss.poisson, fn)(k, mu), rtol=1e-9
        )
        # JAX's binom.logpmf has no integrality test: a fractional k interpolates through
        # gammaln, so it is compared with scipy at whole k only (cdf floors k everywhere)
        whole = k == np.round(k) if fn != "cdf" else np.ones_like(k, bool)
        np.testing.assert_allclose(
            np.asarray(getattr(stats.binom, fn)(k, n, p))[whole],
            getattr(ss.binom, fn)(k, n, p)[whole],
            rtol=1e-9,
        )


def test_dirichlet_and_norm_ppf_match_scipy() -> None:
    alpha = np.array([0.7, 2.0, 3.5])
    x = np.array([[0.2, 0.5], [0.3, 0.1], [0.5, 0.4]])  # columns are points on the simplex
    np.testing.assert_allclose(
        stats.dirichlet.logpdf(x, alpha), [ss.dirichlet.logpdf(c, alpha) for c in x.T]
    )
    np.testing.assert_allclose(stats.dirichlet.pdf(x[:2], alpha), ss.dirichlet.pdf(x, alpha))
    assert np.asarray(stats.dirichlet.logpdf(np.array([0.5, 0.6, -0.1]), alpha)) == -np.inf
    q = np.array([1e-300, 1e-10, 0.3, 0.5, 0.999999])
    np.testing.assert_allclose(stats.norm.ppf(q, 1.5, 2.0), ss.norm.ppf(q, 1.5, 2.0), rtol=1e-13)
    np.testing.assert_allclose(stats.norm.isf(q, 1.5, 2.0), ss.norm.isf(q, 1.5, 2.0), rtol=1e-13)


GRADS: dict[str, tuple[Callable, tuple]] = {
    "gamma.logpdf": (stats.gamma.logpdf, (np.array([0.5, 2.0, 7.0]), np.array([0.8, 2.5, 4.0]))),
    "gamma.cdf x": (lambda x: stats.gamma.cdf(x, 2.5, 0.1, 1.5), (np.array([0.5, 2.0, 7.0]),)),
    "chi2.logcdf x": (lambda x: stats.chi2.logcdf(x, 3.0), (np.array([0.5, 2.0, 7.0]),)),
    "beta.logpdf": (
        stats.beta.logpdf,
        (np.array([0.2, 0.5, 0.9]), np.array([0.8, 2.5, 4.0]), np.array([1.5, 0.7, 3.0])),
    ),
    "beta.sf x": (lambda x: stats.beta.sf(x, 2.0, 3.0), (np.array([0.2, 0.5, 0.9]),)),
    "t.logpdf": (stats.t.logpdf, (np.array([-3.0, 0.4, 8.0]), np.array([0.8, 2.5, 40.0]))),
    "t.cdf x": (lambda x: stats.t.cdf(x, 4.0, 0.5, 2.0), (np.array([-3.0, 0.4, 8.0]),)),
    "poisson.logpmf mu": (
        lambda m: stats.poisson.logpmf(np.array([0, 3, 9.0]), m),
        (np.array([0.5, 2.0, 7.0]),),
    ),
    "binom.logpmf p": (
        lambda p: stats.binom.logpmf(np.array([0, 3, 5.0]), 6, p),
        (np.array([0.2, 0.5, 0.9]),),
    ),
    "dirichlet.logpdf": (
        stats.dirichlet.logpdf,
        (np.array([0.2, 0.3]), np.array([0.7, 2.0, 3.5])),  # K - 1 entries: on the simplex
    ),
    "norm.ppf": (lambda q: stats.norm.ppf(q, 0.5, 2.0), (np.array([0.01, 0.3, 0.9]),)),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_derivatives_to_second_order(name: str) -> None:
    fn, args = GRADS[name]
    tf8.check_grads(fn, args, order=2, rtol=1e-4)


def test_closed_form_gradients() -> None:
    # d/dx cdf = pdf, for every continuous family
    x = np.array([0.3, 0.6, 0.8])
    for ours, params in ((stats.gamma, (2.5,)), (stats.beta, (2.0, 3.0)), (stats.t, (4.0,))):
        g = tf8.grad(lambda v, d=ours, p=params: d.cdf(v, *p).sum())(x)
        np.testing.assert_allclose(g, ours.pdf(x, *params), rtol=1e-10)
    # d/dq ppf = 1 / pdf(ppf(q))
    q = np.array([0.05, 0.5, 0.97])
    g = tf8.grad(lambda v: stats.norm.ppf(v).sum())(q)
    np.testing.assert_allclose(g, 1 / ss.norm.pdf(ss.norm.ppf(q)), rtol=1e-12)


def test_under_jit_and_vmap() -> None:
    x = np.linspace(0.1, 4.0, 6).reshape(2, 3)
    np.testing.assert_allclose(tf8.jit(stats.gamma.logpdf)(x, 2.0), ss.gamma.logpdf(x, 2.0))
    np.testing.assert_allclose(tf8.vmap(lambda v: stats.t.cdf(v, 3.0))(x), ss.t.cdf(x, 3.0))
