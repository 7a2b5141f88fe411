"""The binomial distribution (scipy.stats.binom): P(k) = C(n, k) p^k (1-p)^(n-k) for whole
k in [0, n]; cdf(k) = I_{1-p}(n - floor(k), floor(k) + 1), the regularized incomplete beta."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import betainc, gammaln, xlog1py, xlogy
from tf8.traced import TracedTensor

from ._common import inexact

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> TracedTensor:
    k = inexact(k) - loc
    n, p = inexact(n), inexact(p)
    outside = (k < 0) | (k > n) | (k != tnp.round(k))
    safe = tnp.where(outside, 0.0, k)
    choose = gammaln(n + 1) - gammaln(safe + 1) - gammaln(n - safe + 1)
    return tnp.where(outside, -math.inf, choose + xlogy(safe, p) + xlog1py(n - safe, -p))


def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> TracedTensor:
    return tnp.exp(logpmf(k, n, p, loc))


def cdf(k: Any, n: Any, p: Any, loc: Any = 0) -> TracedTensor:
    k = tnp.floor(inexact(k) - loc)
    n, p = inexact(n), inexact(p)
    inside = (k >= 0) & (k < n)
    safe = tnp.where(inside, k, 0.0)
    below = betainc(tnp.where(inside, n - safe, 1.0), safe + 1, 1 - p)
    return tnp.where(k < 0, 0.0, tnp.where(k >= n, 1.0, below))
