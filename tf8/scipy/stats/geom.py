"""The geometric distribution: trials to the first success, P(k) = (1 - p)^(k-1) p, k >= 1."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import xlog1py
from tf8.traced import TracedTensor

from ._common import args_inexact, const, inexact

__all__ = ["cdf", "logcdf", "logpmf", "logsf", "pmf", "sf"]


def logpmf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    """(k - 1) log(1 - p) + log p for k - loc > 0 (as JAX: a fractional k interpolates)."""
    k, p, loc = args_inexact("geom.logpmf", k, p, loc)
    x = k - loc
    return tnp.where(x <= 0, -math.inf, xlog1py(x - const(k, 1), -p) + tnp.log(p))


def pmf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    return tnp.exp(logpmf(k, p, loc))


def logsf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    """log P(K > k) = floor(k) log(1 - p) for k >= 1 (0 below)."""
    k = tnp.floor(inexact(k) - loc)
    return tnp.where(k < 1, 0.0, tnp.maximum(k, 0) * tnp.log1p(-inexact(p)))


def sf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    return tnp.exp(logsf(k, p, loc))


def cdf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    return -tnp.expm1(logsf(k, p, loc))


def logcdf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    return tnp.log(cdf(k, p, loc))
