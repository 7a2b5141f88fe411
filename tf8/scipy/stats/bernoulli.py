"""The Bernoulli distribution: k = 1 with probability p, k = 0 otherwise (shifted by loc),
as jax.scipy.stats.bernoulli computes it."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import xlog1py, xlogy
from tf8.traced import TracedTensor

from ._common import args_inexact, const

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    """log P(k): xlogy(k, p) + xlog1py(1 - k, -p) on [0, 1] (so a fractional k gets the
    interpolated value, as JAX), -inf outside."""
    k, p, loc = args_inexact("bernoulli.logpmf", k, p, loc)
    x = k - loc
    log_probs = xlogy(x, p) + xlog1py(const(k, 1) - x, -p)
    return tnp.where((x < 0) | (x > 1), -math.inf, log_probs)


def pmf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    return tnp.exp(logpmf(k, p, loc))


def cdf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    """0 below 0, 1 - p on [0, 1), 1 from 1 on (k shifted by loc, which JAX's cdf lacks);
    NaN for NaN operands or p outside [0, 1]."""
    k, p = args_inexact("bernoulli.cdf", k, p)
    k = k - loc
    zero, one = const(k, 0), const(k, 1)
    bad = tnp.isnan(k) | tnp.isnan(p) | (p < zero) | (p > one)
    inside = tnp.where((k >= zero) & (k < one), one - p, tnp.where(k >= one, one, zero))
    return tnp.where(bad, math.nan, tnp.where(k < zero, zero, inside))


def ppf(q: Any, p: Any) -> TracedTensor:
    """0 for q <= 1 - p, 1 above; NaN for NaN operands or q, p outside [0, 1]."""
    q, p = args_inexact("bernoulli.ppf", q, p)
    zero, one = const(q, 0), const(q, 1)
    bad = tnp.isnan(q) | tnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one)
    return tnp.where(bad, math.nan, tnp.where(q <= one - p, zero, one))
