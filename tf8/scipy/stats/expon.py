"""The exponential distribution with density exp(-(x - loc) / scale) / scale on x >= loc."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.traced import TracedTensor

from ._common import inexact, split_at, standardized

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    z = standardized(x, loc, scale)
    return tnp.where(z < 0, -math.inf, -z - tnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    z = standardized(x, loc, scale)
    return tnp.where(z < 0, 0.0, -tnp.expm1(-tnp.maximum(z, 0)))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """log(1 - exp(-z)): by expm1 near 0, by log1p in the tail (Mächler's log1mexp)."""
    z = standardized(x, loc, scale)
    near = z <= math.log(2)
    low, high = split_at(near, z, 1.0, 1.0)
    near_value = tnp.where(low > 0, tnp.log(-tnp.expm1(-tnp.where(low > 0, low, 1.0))), -math.inf)
    return tnp.where(near, near_value, tnp.log1p(-tnp.exp(-high)))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logsf(x, loc, scale))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    z = standardized(x, loc, scale)
    return tnp.where(z < 0, 0.0, -z)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    q = inexact(q)
    return -tnp.log1p(-q) * scale + loc
