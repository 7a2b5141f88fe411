"""`jax.scipy.stats`'s distributions that tf8.scipy.stats shares, each function both have,
inside each distribution's support, on its boundary, outside it, and with loc and scale.

A continuous distribution's density and CDF functions run over one grid (`_continuous`), its
quantiles over another (`_quantiles`), a discrete one's over `_discrete`; the multivariate
ones have their own."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..spec import Case
from ._values import finite

NAN, INF = np.nan, np.inf

DENSITIES = ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"]
QUANTILES = ["ppf", "isf"]
# name -> (the functions both libraries have, the range x is drawn from, the ranges of the
# shape parameters)
CONTINUOUS: dict[str, tuple[list[str], tuple[float, float], list[tuple[float, float]]]] = {
    "norm": (DENSITIES + QUANTILES, (-4.0, 4.0), []),
    "cauchy": (DENSITIES + ["ppf"], (-10.0, 10.0), []),
    "laplace": (["pdf", "logpdf", "cdf"], (-5.0, 5.0), []),
    "logistic": (["pdf", "logpdf", "cdf", "sf", "ppf"], (-8.0, 8.0), []),
    "expon": (DENSITIES + ["ppf"], (0.0, 6.0), []),
    "uniform": (["pdf", "logpdf", "cdf", "ppf"], (-0.5, 1.5), []),
    "beta": (DENSITIES, (0.0, 1.0), [(0.5, 5.0), (0.5, 5.0)]),
    "chi2": (DENSITIES, (0.0, 10.0), [(1.0, 8.0)]),
    "gamma": (DENSITIES, (0.0, 10.0), [(0.5, 6.0)]),
    "t": (["pdf", "logpdf"], (-5.0, 5.0), [(1.0, 10.0)]),
}
SPECIAL_X = [0.0, -0.0, INF, -INF, NAN, 0.5, 1.0, -1.0, 40.0, -40.0]
SPECIAL_Q = [0.0, 1.0, 0.5, NAN, -0.5, 1.5, 1e-300, 1 - 1e-10]
BAD_SHAPES = [-1.0, 0.0, NAN]  # a shape parameter outside its domain

# name -> (the functions both have, the range of k, the ranges of the parameters (binom's n
# is 9))
DISCRETE: dict[str, tuple[list[str], tuple[int, int], list[tuple[float, float]]]] = {
    "bernoulli": (["pmf", "logpmf", "cdf"], (0, 2), [(0.05, 0.95)]),
    "binom": (["pmf", "logpmf"], (0, 9), [(9.0, 9.0), (0.05, 0.95)]),
    "geom": (["pmf", "logpmf"], (1, 8), [(0.05, 0.95)]),
    "poisson": (["pmf", "logpmf", "cdf"], (0, 12), [(0.5, 8.0)]),
}
BAD_LAST = {  # the last parameter (p, mu) at the edges of its domain and outside it
    "bernoulli": [0.0, 1.0, -0.5, 1.5, NAN],
    "binom": [0.0, 1.0, -0.5, 1.5, NAN],
    "geom": [0.0, 1.0, -0.5, 1.5, NAN],
    "poisson": [0.0, -1.0, NAN, INF, 1e-300],
}


def _shapes(ranges: list, rng: np.random.Generator, size: tuple) -> list[np.ndarray]:
    return [rng.uniform(low, high, size) for low, high in ranges]


def _continuous(dist: str, fn: str, rng: np.random.Generator) -> Iterator[Case]:
    _, (low, high), ranges = CONTINUOUS[dist]
    name = f"scipy.stats.{dist}.{fn}"
    x = rng.uniform(low, high, (2, 3))
    shapes = _shapes(ranges, rng, (2, 3))
    scalars = [float(np.round(s[0, 0], 2)) for s in shapes]
    loc, scale = rng.uniform(-1.0, 1.0, (2, 3)), rng.uniform(0.5, 2.0, (2, 3))
    f32 = [s.astype(np.float32) for s in shapes]
    yield Case(name, (x, *shapes))
    yield Case(name, (x.astype(np.float32), *f32))
    if shapes:
        yield Case(name, (x.astype(np.float32), *scalars))  # weak parameters
        yield Case(name, (x, *[s[0] for s in shapes]))  # broadcasting
        yield Case(name, (x[:, :1], *[s[0] for s in shapes]))
    else:  # broadcasting through loc and scale
        yield Case(name, (x, loc[0]))
        yield Case(name, (x[:, :1], loc[0], scale[:, :1]))
    yield Case(name, (np.array(x[0, 0]), *scalars))  # 0-d
    yield Case(name, (np.zeros((0, 3)), *scalars))  # empty
    yield Case(name, (np.array([0, 1, 3, -2]), *scalars))  # ints
    yield Case(name, (float(np.round(x[0, 0], 2)), *scalars))  # all weak
    yield Case(name, (np.array(SPECIAL_X), *scalars))
    yield Case(name, (np.array(SPECIAL_X, np.float32), *scalars))
    yield Case(name, (x, *shapes, loc, scale))  # loc and scale, traced
    yield Case(name, (x.astype(np.float32), *scalars, 0.5, 2.0))
    yield Case(name, (x, *scalars), {"loc": 1.5, "scale": 0.5})  # static keywords
    yield Case(name, (x, *scalars), {"scale": 3.0})
    yield Case(name, (x[0], *scalars, 0.0, np.array([-1.0, 0.0, INF])))  # a bad scale
    for k in range(len(shapes)):
        bad = [np.array(BAD_SHAPES) if j == k else s for j, s in enumerate(scalars)]
        yield Case(name, (np.full(3, (low + high) / 2), *bad))


def _quantiles(dist: str, fn: str, rng: np.random.Generator) -> Iterator[Case]:
    name = f"scipy.stats.{dist}.{fn}"
    q = rng.uniform(0.01, 0.99, (2, 3))
    loc, scale = rng.uniform(-1.0, 1.0, (2, 3)), rng.uniform(0.5, 2.0, (2, 3))
    yield Case(name, (q,))
    yield Case(name, (q.astype(np.float32),))
    yield Case(name, (q[0], loc, scale))  # broadcasting, loc and scale traced
    yield Case(name, (q.astype(np.float32), 0.5, 2.0))
    yield Case(name, (q,), {"loc": -1.0, "scale": 3.0})
    yield Case(name, (np.array(0.25),))
    yield Case(name, (np.zeros((0,)),))
    yield Case(name, (np.array([0, 1]),))
    yield Case(name, (0.75,))
    yield Case(name, (np.array(SPECIAL_Q),))
    yield Case(name, (np.array(SPECIAL_Q, np.float32),))
    yield Case(name, (np.full(3, 0.3), 0.0, np.array([-1.0, 0.0, INF])))


def _discrete(dist: str, fn: str, rng: np.random.Generator) -> Iterator[Case]:
    _, (low, high), ranges = DISCRETE[dist]
    name = f"scipy.stats.{dist}.{fn}"
    k = rng.integers(low, high, (2, 3))
    params = _shapes(ranges, rng, (2, 3))
    scalars = [float(np.round(p[0, 0], 2)) for p in params]
    f32 = [p.astype(np.float32) for p in params]
    outside = np.array([low - 1, low, high - 1, high + 5, -3])
    yield Case(name, (k, *params))
    yield Case(name, (k.astype(np.int32), *f32))
    yield Case(name, (k, *scalars))
    yield Case(name, (k[0], *[p[:, :1] for p in params]))  # broadcasting
    yield Case(name, (np.array(low + 1), *scalars))  # 0-d
    yield Case(name, (np.zeros((0,), np.int64), *scalars))  # empty
    yield Case(name, (low + 1, *scalars))  # weak
    yield Case(name, (outside, *scalars))  # outside the support
    # k as floats: whole, then not (a count; its derivatives are meaningless)
    yield Case(name, (k.astype(float), *params), derivatives=False)
    yield Case(name, (np.array([0.5, 1.5, NAN, INF]), *scalars), derivatives=False)
    if fn != "cdf" or dist != "bernoulli":  # JAX's bernoulli.cdf has no loc
        yield Case(name, (k, *scalars, 1))
        yield Case(name, (k, *scalars), {"loc": -1})
    last = len(ranges) - 1  # p or mu: at the edges of its domain and outside
    for k_edge in (low, low + 1):
        yield Case(name, (np.full(5, k_edge), *scalars[:last], np.array(BAD_LAST[dist])))


def _dirichlet(fn: str, rng: np.random.Generator) -> Iterator[Case]:
    name = f"scipy.stats.dirichlet.{fn}"
    alpha = rng.uniform(0.5, 4.0, 3)
    x = rng.dirichlet([1.0, 2.0, 3.0], 4).T  # (3, 4): components first
    yield Case(name, (x[:, 0], alpha))
    yield Case(name, (x, alpha))  # a batch
    yield Case(name, (x.astype(np.float32), alpha.astype(np.float32)))
    yield Case(name, (x[:2], alpha))  # K - 1 components: the last is 1 - their sum
    yield Case(name, (np.array([0.2, 0.3, 0.6]), alpha))  # off the simplex
    yield Case(name, (np.array([0.0, 0.4, 0.6]), alpha))  # on its boundary
    yield Case(name, (np.array([0.0, 0.4, 0.6]), np.array([1.0, 2.0, 2.0])))
    yield Case(name, (np.array([-0.1, 0.5, 0.6]), alpha))
    yield Case(name, (np.array([NAN, 0.5, 0.5]), alpha))
    yield Case(name, (x[:, 0], np.array([1, 2, 3])))  # int alpha
    yield Case(name, (x[:, 0], alpha.reshape(3, 1)))  # JAX refuses a 2-d alpha
    yield Case(name, (x[:, :2].T, alpha))  # ... and a wrong number of components


def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    m = rng.normal(size=(n, n))
    return m @ m.T + n * np.eye(n)


def _multivariate_normal(fn: str, rng: np.random.Generator) -> Iterator[Case]:
    name = f"scipy.stats.multivariate_normal.{fn}"
    mean, cov = rng.normal(size=3), _spd(rng, 3)
    x = rng.normal(size=(4, 3))
    yield Case(name, (x[0], mean, cov))
    yield Case(name, (x, mean, cov))  # a batch of x
    yield Case(name, (x.astype(np.float32), mean.astype(np.float32), cov.astype(np.float32)))
    yield Case(name, (x, mean, np.diag(cov)))  # a 1-d cov: the diagonal
    yield Case(name, (x, mean, 2.5))  # a scalar cov: the variance of each component
    yield Case(name, (np.array(0.5), 0.2, 2.0))  # univariate
    yield Case(name, (x[0], mean[0], cov))  # broadcast mean
    yield Case(name, (x[0], np.zeros(3), np.eye(3)))
    yield Case(name, (np.array([INF, 0.0, NAN]), mean, cov))
    yield Case(name, (x[0], mean, np.stack([cov, 2 * cov])))  # a batch of covariances
    yield Case(name, (x[0], mean, cov[:2, :2]))  # JAX refuses mismatched sizes
    yield Case(name, (np.zeros((0, 3)), mean, cov))
    if fn == "logpdf":
        yield Case(name, (x[0], mean, cov), {"allow_singular": True})  # JAX refuses it


def _all() -> Iterator[Case]:
    for dist, (functions, _, _) in CONTINUOUS.items():
        for fn in functions:
            rng = np.random.default_rng(len(dist) * 10 + len(fn))
            grid = _quantiles if fn in QUANTILES else _continuous
            yield from grid(dist, fn, rng)
    for dist, (functions, _, _) in DISCRETE.items():
        for fn in functions:
            yield from _discrete(dist, fn, np.random.default_rng(len(dist) * 10 + len(fn)))
    for fn in ("pdf", "logpdf"):
        yield from _dirichlet(fn, np.random.default_rng(len(fn)))
        yield from _multivariate_normal(fn, np.random.default_rng(len(fn) + 1))


def cases() -> Iterator[Case]:
    """Every case; those with ±inf or NaN among their arguments record values only."""
    for case in _all():
        case.derivatives = case.derivatives and finite(case.args)
        yield case
