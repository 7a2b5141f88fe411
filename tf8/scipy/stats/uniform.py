"""The uniform distribution on [loc, loc + scale]."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.traced import TracedTensor

from ._common import inexact, standardized

__all__ = ["cdf", "logcdf", "logpdf", "pdf", "ppf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    z = standardized(x, loc, scale)
    outside = (z < 0) | (z > 1)
    return tnp.where(outside, -math.inf, -tnp.log(scale * tnp.ones_like(z)))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.clip(standardized(x, loc, scale), 0, 1)


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(cdf(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    q = inexact(q)
    return tnp.where((q < 0) | (q > 1), math.nan, loc + q * scale)
