"""The Cauchy distribution with density 1 / (π scale (1 + ((x - loc) / scale)²))."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.traced import TracedTensor

from ._common import inexact, split_at, standardized

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    z = standardized(x, loc, scale)
    return -math.log(math.pi) - tnp.log(scale) - tnp.log1p(z * z)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, loc, scale))


def _cdf(z: TracedTensor) -> TracedTensor:
    """1/2 + arctan(z) / π, as arctan(-1/z) / π in the lower tail (no cancellation)."""
    tail = z < -1
    low, rest = split_at(tail, z, -1.0, 0.0)
    return tnp.where(tail, tnp.arctan(-1 / low) / math.pi, 0.5 + tnp.arctan(rest) / math.pi)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return _cdf(standardized(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(cdf(x, loc, scale))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return _cdf(-standardized(x, loc, scale))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(sf(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return loc + scale * tnp.tan(math.pi * (inexact(q) - 0.5))
