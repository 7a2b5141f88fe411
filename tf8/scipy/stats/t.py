"""Student's t distribution with df degrees of freedom (scipy.stats.t); cdf and sf from the
regularized incomplete beta: P(|T| > |y|) = I_{df / (df + y²)}(df / 2, 1 / 2)."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import betainc, gammaln
from tf8.traced import TracedTensor

from ._common import args_inexact, const, inexact, standardized

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """JAX's form: -(lgamma(df/2) + log(scale² π df) / 2 - lgamma((df+1)/2)
    + (df+1)/2 log1p(y² / df)), y = (x - loc) / scale."""
    x, df, loc, scale = args_inexact("t.logpdf", x, df, loc, scale)
    two = const(x, 2)
    y = (x - loc) / scale
    half_df = df / two
    half_df_plus = half_df + const(x, 0.5)
    normalize = gammaln(half_df) + tnp.log(scale * scale * const(x, math.pi) * df) / two
    normalize = normalize - gammaln(half_df_plus)
    return -(normalize + half_df_plus * tnp.log1p(y * y / df))


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
