"""The Poisson distribution with mean mu (scipy.stats.poisson): P(k) = mu^k e^-mu / k! on the
whole numbers k >= 0; cdf(k) = Q(floor(k) + 1, mu), the regularized upper incomplete gamma."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import gammaincc, gammaln, xlogy
from tf8.traced import TracedTensor

from ._common import inexact

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k: Any, mu: Any, loc: Any = 0) -> TracedTensor:
    k = inexact(k) - loc
    mu = inexact(mu)
    outside = (k < 0) | (k != tnp.round(k))
    safe = tnp.where(outside, 0.0, k)
    return tnp.where(outside, -math.inf, xlogy(safe, mu) - gammaln(safe + 1) - mu)


def pmf(k: Any, mu: Any, loc: Any = 0) -> TracedTensor:
    return tnp.exp(logpmf(k, mu, loc))


def cdf(k: Any, mu: Any, loc: Any = 0) -> TracedTensor:
    k = tnp.floor(inexact(k) - loc)
    return tnp.where(k < 0, 0.0, gammaincc(tnp.maximum(k, 0.0) + 1, mu))
