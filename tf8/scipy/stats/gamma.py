"""The gamma distribution with shape a (scipy.stats.gamma): density x^(a-1) e^-x / Γ(a) of
y = (x - loc) / scale, distribution functions from the regularized incomplete gamma."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8 import lax
from tf8.scipy.special import gammainc, gammaincc, gammaln, xlogy
from tf8.traced import TracedTensor

from ._common import args_inexact, const

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, a, loc, scale = args_inexact("gamma.logpdf", x, a, loc, scale)
    ok = x >= loc
    one = const(x, 1)
    y = tnp.where(ok, (x - loc) / scale, one)
    log_probs = xlogy(a - one, y) - y - (gammaln(a) + tnp.log(scale))
    return tnp.where(ok, log_probs, -math.inf)


def pdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, a, loc, scale))


def cdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, a, loc, scale = args_inexact("gamma.cdf", x, a, loc, scale)
    y = lax.clamp(const(x, 0), (x - loc) / scale, const(x, math.inf))
    return gammainc(a, y)


def logcdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(cdf(x, a, loc, scale))


def sf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    x, a, loc, scale = args_inexact("gamma.sf", x, a, loc, scale)
    y = (x - loc) / scale
    return tnp.where(y < 0, 1, gammaincc(a, y))


def logsf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.log(sf(x, a, loc, scale))
