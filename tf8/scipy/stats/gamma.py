"""The gamma distribution with shape a (scipy.stats.gamma): density x^(a-1) e^-x / Γ(a) of
y = (x - loc) / scale, distribution functions from the regularized incomplete gamma."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import gammainc, gammaincc, gammaln, xlogy
from tf8.traced import TracedTensor

from ._common import inexact, standardized

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    y = standardized(x, loc, scale)
    a = inexact(a)
    inside = y >= 0
    safe = tnp.where(inside, y, 1.0)
    density = xlogy(a - 1, safe) - safe - gammaln(a) - tnp.log(scale)
    return tnp.where(inside, density, -math.inf)


def pdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, a, loc, scale))


def cdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return gammainc(a, tnp.maximum(standardized(x, loc, scale), 0.0))


def logcdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(cdf(x, a, loc, scale))


def sf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return gammaincc(a, tnp.maximum(standardized(x, loc, scale), 0.0))


def logsf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(sf(x, a, loc, scale))
