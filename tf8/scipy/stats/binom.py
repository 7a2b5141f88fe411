"""The binomial distribution (scipy.stats.binom): P(k) = C(n, k) p^k (1-p)^(n-k) for k in
[0, n] (logpmf as jax.scipy.stats.binom computes it: through gammaln, so a fractional k gets
the interpolated value); cdf(k) = I_{1-p}(n - floor(k), floor(k) + 1)."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import betainc, gammaln, xlog1py, xlogy
from tf8.traced import TracedTensor

from ._common import args_inexact, inexact

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> TracedTensor:
    k, n, p, loc = args_inexact("binom.logpmf", k, n, p, loc)
    y = k - loc
    comb_term = gammaln(n + 1) - (gammaln(y + 1) + gammaln(n - y + 1))
    log_linear_term = xlogy(y, p) + xlog1py(n - y, -p)
    log_probs = comb_term + log_linear_term
    certain = ((y == 0) & (n == 0)) | (log_linear_term == 0)
    log_probs = tnp.where(certain, 0.0, log_probs)
    return tnp.where((k >= loc) & (k < loc + n + 1), log_probs, -math.inf)


def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> TracedTensor:
    return tnp.exp(logpmf(k, n, p, loc))


def cdf(k: Any, n: Any, p: Any, loc: Any = 0) -> TracedTensor:
    k = tnp.floor(inexact(k) - loc)
    n, p = inexact(n), inexact(p)
    inside = (k >= 0) & (k < n)
    safe = tnp.where(inside, k, 0.0)
    below = betainc(tnp.where(inside, n - safe, 1.0), safe + 1, 1 - p)
    return tnp.where(k < 0, 0.0, tnp.where(k >= n, 1.0, below))
