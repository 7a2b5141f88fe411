"""The uniform distribution on [loc, loc + scale], as jax.scipy.stats.uniform computes it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8.traced import TracedTensor

from ._common import args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "pdf", "ppf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, loc, scale = args_inexact("uniform.logpdf", x, loc, scale)
    log_probs = -tnp.log(scale)
    return tnp.where((x > loc + scale) | (x < loc), -math.inf, log_probs)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """0 below loc, 1 above loc + scale, (x - loc) / scale between (0 for NaN, as JAX)."""
    x, loc, scale = args_inexact("uniform.cdf", x, loc, scale)
    zero, one = tnp.asarray(np.asarray(0, x.dtype)), tnp.asarray(np.asarray(1, x.dtype))
    hi = loc + scale
    inside = tnp.where((x >= loc) & (x <= hi), (x - loc) / scale, zero)
    return tnp.where(x < loc, zero, tnp.where(x > hi, one, inside))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(cdf(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    q, loc, scale = args_inexact("uniform.ppf", q, loc, scale)
    return tnp.where(tnp.isnan(q) | (q < 0) | (q > 1), math.nan, loc + scale * q)
