"""The normal distribution N(loc, scale²) (scipy.stats.norm); ppf and isf through ndtri."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import log_ndtr, ndtr, ndtri
from tf8.traced import TracedTensor

from ._common import standardized

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    z = standardized(x, loc, scale)
    return -0.5 * z * z - tnp.log(scale) - _HALF_LOG_2PI


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return ndtr(standardized(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return log_ndtr(standardized(x, loc, scale))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return ndtr(-standardized(x, loc, scale))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return log_ndtr(-standardized(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """The quantile function: loc + scale ndtri(q)."""
    return ndtri(q) * scale + loc


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """The inverse survival function: loc - scale ndtri(q)."""
    return -ndtri(q) * scale + loc
