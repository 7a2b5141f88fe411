"""The multivariate normal N(mean, cov) over the last axis of x, by the Cholesky factor of cov.

A 0-d or 1-d cov is a (broadcast) diagonal, as JAX's; a 2-d cov is one matrix shared by every
x in the batch.
"""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8 import linalg
from tf8.errors import ShapeError
from tf8.scipy.linalg import solve_triangular
from tf8.traced import TracedTensor

from ._common import inexact

__all__ = ["logpdf", "pdf"]

_LOG_2PI = math.log(2 * math.pi)


def logpdf(x: Any, mean: Any = 0, cov: Any = 1, allow_singular: Any = None) -> TracedTensor:
    """log N(x; mean, cov); `allow_singular` is accepted and ignored (as JAX)."""
    x = inexact(x)
    mean = inexact(mean)
    cov = inexact(cov)
    diff = x - mean
    if diff.ndim == 0:  # univariate: cov is the variance
        return -0.5 * (diff * diff / cov + _LOG_2PI + tnp.log(cov))
    if cov.ndim < 2:
        terms = diff * diff / cov + _LOG_2PI + tnp.log(cov) * tnp.ones_like(diff)
        return -0.5 * tnp.sum(terms, axis=-1)
    if cov.ndim != 2:
        raise ShapeError(f"multivariate_normal.logpdf: cov must be at most 2-d, got {cov.shape}")
    size = cov.shape[-1]
    factor = linalg.cholesky(cov)
    batch = diff.shape[:-1]
    columns = tnp.transpose(tnp.reshape(diff, (-1, size)))
    whitened = solve_triangular(factor, columns, lower=True)
    mahalanobis = tnp.reshape(tnp.sum(whitened * whitened, axis=0), batch)
    half_log_det = tnp.sum(tnp.log(tnp.diagonal(factor)))
    return -0.5 * (mahalanobis + size * _LOG_2PI) - half_log_det


def pdf(x: Any, mean: Any = 0, cov: Any = 1, allow_singular: Any = None) -> TracedTensor:
    return tnp.exp(logpdf(x, mean, cov, allow_singular))
