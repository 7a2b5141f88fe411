"""The logistic distribution, CDF expit((x - loc) / scale)."""

from __future__ import annotations

from typing import Any

import tf8.numpy as tnp
from tf8.scipy._logsumexp import log_sigmoid
from tf8.scipy.special import expit, logit
from tf8.traced import TracedTensor

from ._common import args_inexact, const, standardized

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    """-2 logaddexp(z / 2, -z / 2) - log(scale), z = (x - loc) / scale (JAX's form)."""
    x, loc, scale = args_inexact("logistic.logpdf", x, loc, scale)
    half_z = (x - loc) / scale / const(x, 2)
    return -const(x, 2) * tnp.logaddexp(half_z, -half_z) - tnp.log(scale)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return expit(standardized(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return log_sigmoid(standardized(x, loc, scale))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return expit(-standardized(x, loc, scale))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return log_sigmoid(-standardized(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    return logit(q) * scale + loc
