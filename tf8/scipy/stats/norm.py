"""The normal distribution N(loc, scale²) (scipy.stats.norm); ppf and isf through ndtri."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8.scipy.special import log_ndtr, ndtr, ndtri
from tf8.traced import TracedTensor

from ._common import args_inexact, const

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, loc, scale = args_inexact("norm.logpdf", x, loc, scale)
    scale_sqrd = scale * scale
    log_normalizer = tnp.log(const(x, 2 * math.pi) * scale_sqrd)
    quadratic = tnp.square(x - loc) / scale_sqrd
    return (log_normalizer + quadratic) / const(x, -2)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, loc, scale = args_inexact("norm.cdf", x, loc, scale)
    return ndtr((x - loc) / scale)


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, loc, scale = args_inexact("norm.logcdf", x, loc, scale)
    return log_ndtr((x - loc) / scale)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, loc, scale = args_inexact("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, loc, scale = args_inexact("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """The quantile function loc + scale ndtri(q), in float64 (as JAX with x64: q must be
    float32 or float64)."""
    return tnp.astype(ndtri(q) * scale + loc, np.float64)


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """The inverse survival function loc - scale ndtri(q) (JAX: ppf(1 - q), the same but
    where 1 - q rounds: tf8 keeps the tail, isf(1e-300) = 37.0 scale + loc, not inf)."""
    return tnp.astype(-ndtri(q) * scale + loc, np.float64)
