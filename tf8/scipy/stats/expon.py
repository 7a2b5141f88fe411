"""The exponential distribution with density exp(-(x - loc) / scale) / scale on x >= loc, as
jax.scipy.stats.expon computes it."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.traced import TracedTensor

from ._common import args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, loc, scale = args_inexact("expon.logpdf", x, loc, scale)
    log_probs = -((x - loc) / scale + tnp.log(scale))
    return tnp.where(x < loc, -math.inf, log_probs)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, loc, scale = args_inexact("expon.cdf", x, loc, scale)
    neg_scaled_x = (loc - x) / scale
    return tnp.where(x < loc, tnp.zeros_like(neg_scaled_x), -tnp.expm1(neg_scaled_x))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, loc, scale = args_inexact("expon.logsf", x, loc, scale)
    neg_scaled_x = (loc - x) / scale
    return tnp.where(x < loc, tnp.zeros_like(neg_scaled_x), neg_scaled_x)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logsf(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """log(1 - sf)."""
    return tnp.log1p(-sf(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """loc - scale log(1 - q) on [0, 1], NaN outside."""
    q, loc, scale = args_inexact("expon.ppf", q, loc, scale)
    return tnp.where(tnp.isnan(q) | (q < 0) | (q > 1), math.nan, loc - scale * tnp.log1p(-q))
