"""The logistic distribution, CDF expit((x - loc) / scale)."""

from __future__ import annotations

from typing import Any

import tf8.numpy as tnp
from tf8.scipy._logsumexp import log_sigmoid, softplus
from tf8.scipy.special import expit, logit
from tf8.traced import TracedTensor

from ._common import standardized

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
    z = standardized(x, loc, scale)
    return -z - 2 * softplus(-z) - tnp.log(scale)


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
