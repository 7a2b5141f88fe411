"""The chi-squared distribution with df degrees of freedom (scipy.stats.chi2): the gamma
distribution with shape df / 2 and scale 2, as jax.scipy.stats.chi2 computes it."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8 import lax
from tf8.scipy.special import gammainc, gammaincc
from tf8.traced import TracedTensor

from ._common import args_inexact, const

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, df, loc, scale = args_inexact("chi2.logpdf", x, df, loc, scale)
    one, two = const(x, 1), const(x, 2)
    y = (x - loc) / scale
    df_on_two = df / two
    kernel = (df_on_two - one) * tnp.log(y) - y / two
    normalizer = -(lax.lgamma(df_on_two) + tnp.log(two) * df / two)
    return tnp.where(x < loc, -math.inf, normalizer - tnp.log(scale) + kernel)


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, df, loc, scale))


def _half_y(x: TracedTensor, loc: TracedTensor, scale: TracedTensor) -> TracedTensor:
    y = (x - loc) / (scale * const(scale, 2))
    return lax.clamp(const(x, 0), y, const(x, math.inf))


def cdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, df, loc, scale = args_inexact("chi2.cdf", x, df, loc, scale)
    return gammainc(df / const(scale, 2), _half_y(x, loc, scale))


def logcdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(cdf(x, df, loc, scale))


def sf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, df, loc, scale = args_inexact("chi2.sf", x, df, loc, scale)
    return gammaincc(df / const(scale, 2), _half_y(x, loc, scale))


def logsf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(sf(x, df, loc, scale))
