"""The multivariate normal N(mean, cov) over the last axis of x, as jax.scipy.stats computes
it: a 0-d mean makes it univariate (elementwise, cov the variance); a 0-d cov is the variance
of every component; otherwise cov is (a batch of) n×n matrices, through their Cholesky
factors, batch dimensions broadcast against x's."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8 import linalg
from tf8.errors import ShapeError, UnsupportedOperationError
from tf8.numpy._core import inexact, promote
from tf8.scipy.linalg import solve_triangular
from tf8.traced import TracedTensor

__all__ = ["logpdf", "pdf"]

_LOG_2PI = math.log(2 * math.pi)


def logpdf(x: Any, mean: Any, cov: Any, allow_singular: Any = None) -> TracedTensor:
    """log N(x; mean, cov); `allow_singular` is not supported (as in JAX)."""
    if allow_singular is not None:
        raise UnsupportedOperationError(
            "multivariate_normal.logpdf: allow_singular is not supported (as in JAX)"
        )
    x, mean, cov = [inexact(v) for v in promote(x, mean, cov)]
    if mean.ndim == 0:  # univariate: cov is the variance
        return -0.5 * tnp.square(x - mean) / cov - 0.5 * (_LOG_2PI + tnp.log(cov))
    n = mean.shape[-1]
    y = x - mean
    if cov.ndim == 0:
        return -0.5 * tnp.sum(y * y, axis=-1) / cov - n / 2 * (_LOG_2PI + tnp.log(cov))
    if cov.ndim < 2 or tuple(cov.shape[-2:]) != (n, n):
        raise ShapeError(
            f"multivariate_normal.logpdf: cov of shape {cov.shape} does not fit mean of shape "
            f"{mean.shape} (cov must be a scalar or end in ({n}, {n}))"
        )
    factor = linalg.cholesky(cov)
    log_det = tnp.sum(tnp.log(tnp.diagonal(factor, axis1=-2, axis2=-1)), axis=-1)
    if factor.ndim == 2:  # one matrix: every x of the batch is a column of one solve
        columns = tnp.transpose(tnp.reshape(y, (-1, n)))
        whitened = solve_triangular(factor, columns, lower=True)
        mahalanobis = tnp.reshape(tnp.sum(whitened * whitened, axis=0), y.shape[:-1])
    else:
        batch = tnp.broadcast_shapes(y.shape[:-1], factor.shape[:-2])
        factors = tnp.broadcast_to(factor, (*batch, n, n))
        columns = tnp.broadcast_to(y, (*batch, n))[..., None]
        whitened = solve_triangular(factors, columns, lower=True)[..., 0]
        mahalanobis = tnp.sum(whitened * whitened, axis=-1)
    return -0.5 * mahalanobis - n / 2 * _LOG_2PI - log_det


def pdf(x: Any, mean: Any, cov: Any) -> TracedTensor:
    return tnp.exp(logpdf(x, mean, cov))
