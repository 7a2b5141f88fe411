"""The Laplace distribution with density exp(-|x - loc| / scale) / (2 scale)."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.traced import TracedTensor

from ._common import inexact, split_at, standardized

__all__ = ["cdf", "logcdf", "logpdf", "pdf", "ppf", "sf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    z = standardized(x, loc, scale)
    return -tnp.abs(z) - tnp.log(2 * scale)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    z = standardized(x, loc, scale)
    below = z < 0
    low, high = split_at(below, z, 0.0, 0.0)
    return tnp.where(below, 0.5 * tnp.exp(low), 1 - 0.5 * tnp.exp(-high))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    z = standardized(x, loc, scale)
    below = z < 0
    low, high = split_at(below, z, 0.0, 0.0)
    return tnp.where(below, low - math.log(2), tnp.log1p(-0.5 * tnp.exp(-high)))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return cdf(-standardized(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    centred = inexact(q) - 0.5
    return loc - scale * tnp.sign(centred) * tnp.log1p(-2 * tnp.abs(centred))
