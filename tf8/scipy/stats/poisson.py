"""The Poisson distribution with mean mu (scipy.stats.poisson): P(k) = mu^k e^-mu / k! on the
whole numbers k >= 0; cdf(k) = Q(floor(k) + 1, mu), the regularized upper incomplete gamma
(as jax.scipy.stats.poisson computes them)."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import gammaincc, gammaln, xlogy
from tf8.traced import TracedTensor

from ._common import args_inexact, const

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k: Any, mu: Any, loc: Any = 0) -> TracedTensor:
    k, mu, loc = args_inexact("poisson.logpmf", k, mu, loc)
    x = k - loc
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return tnp.where((x < 0) | (tnp.round(k) != k), -math.inf, log_probs)


def pmf(k: Any, mu: Any, loc: Any = 0) -> TracedTensor:
    return tnp.exp(logpmf(k, mu, loc))


def cdf(k: Any, mu: Any, loc: Any = 0) -> TracedTensor:
    k, mu, loc = args_inexact("poisson.cdf", k, mu, loc)
    zero = const(k, 0)
    x = k - loc
    return tnp.where(x < zero, zero, gammaincc(tnp.floor(1 + x), mu))
