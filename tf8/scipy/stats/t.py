"""Student's t distribution with df degrees of freedom (scipy.stats.t); cdf and sf from the
regularized incomplete beta: P(|T| > |y|) = I_{df / (df + y²)}(df / 2, 1 / 2)."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import betainc, gammaln
from tf8.traced import TracedTensor

from ._common import inexact, standardized

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    y = standardized(x, loc, scale)
    df = inexact(df)
    half = 0.5 * (df + 1)
    norm = gammaln(half) - gammaln(0.5 * df) - 0.5 * tnp.log(df * math.pi) - tnp.log(scale)
    return norm - half * tnp.log1p(y * y / df)


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, df, loc, scale))


def _tail(y: TracedTensor, df: Any) -> TracedTensor:
    """P(T > |y|)."""
    df = inexact(df)
    return 0.5 * betainc(0.5 * df, tnp.full_like(y, 0.5), df / (df + y * y))


def cdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    y = standardized(x, loc, scale)
    tail = _tail(y, df)
    return tnp.where(y < 0, tail, 1 - tail)


def sf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    y = standardized(x, loc, scale)
    tail = _tail(y, df)
    return tnp.where(y > 0, tail, 1 - tail)


def logcdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(cdf(x, df, loc, scale))


def logsf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(sf(x, df, loc, scale))
