"""The beta distribution (scipy.stats.beta): density y^(a-1) (1-y)^(b-1) / B(a, b) on
y = (x - loc) / scale in [0, 1], distribution functions from the regularized incomplete beta."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import betainc, betaln, xlog1py, xlogy
from tf8.traced import TracedTensor

from ._common import inexact, standardized

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    y = standardized(x, loc, scale)
    a, b = inexact(a), inexact(b)
    inside = (y >= 0) & (y <= 1)
    safe = tnp.where(inside, y, 0.5)
    density = xlogy(a - 1, safe) + xlog1py(b - 1, -safe) - betaln(a, b) - tnp.log(scale)
    return tnp.where(inside, density, -math.inf)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return betainc(a, b, tnp.clip(standardized(x, loc, scale), 0.0, 1.0))


def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(cdf(x, a, b, loc, scale))


def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """1 - cdf, as I_{1-y}(b, a) (no cancellation where the cdf is near 1)."""
    return betainc(b, a, tnp.clip(1 - standardized(x, loc, scale), 0.0, 1.0))


def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(sf(x, a, b, loc, scale))
