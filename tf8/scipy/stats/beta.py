"""The beta distribution (scipy.stats.beta): density y^(a-1) (1-y)^(b-1) / B(a, b) on
y = (x - loc) / scale in [0, 1], distribution functions from the regularized incomplete beta
(as jax.scipy.stats.beta computes them: NaN for a, b or scale <= 0)."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8 import lax
from tf8.scipy.special import betainc, betaln, xlog1py, xlogy
from tf8.traced import TracedTensor

from ._common import args_inexact, const

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, a, b, loc, scale = args_inexact("beta.logpdf", x, a, b, loc, scale)
    one = const(x, 1)
    y = (x - loc) / scale
    log_linear_term = xlogy(a - one, y) + xlog1py(b - one, -y)
    log_probs = -betaln(a, b) + log_linear_term - tnp.log(scale)
    result = tnp.where((x > loc + scale) | (x < loc), -math.inf, log_probs)
    zero = const(a, 0)
    return tnp.where((a <= zero) | (b <= zero) | (scale <= zero), math.nan, result)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, a, b, loc, scale))


def _clamped(x: TracedTensor, loc: TracedTensor, scale: TracedTensor) -> TracedTensor:
    """(x - loc) / scale clamped to [0, 1] by lax.clamp (derivative 0 outside, as JAX)."""
    y = (x - loc) / scale
    return lax.clamp(const(y, 0), y, const(y, 1))


def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, a, b, loc, scale = args_inexact("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, _clamped(x, loc, scale))


def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(cdf(x, a, b, loc, scale))


def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """1 - cdf, as I_{1-y}(b, a)."""
    x, a, b, loc, scale = args_inexact("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - _clamped(x, loc, scale))


def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(sf(x, a, b, loc, scale))
