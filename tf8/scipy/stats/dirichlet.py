"""The Dirichlet distribution (scipy.stats.dirichlet): x's first axis holds the K components
(or K - 1 of them, the last being 1 - their sum), as scipy and JAX read it; -inf off the
simplex."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.errors import ShapeError
from tf8.numpy._core import inexact, promote
from tf8.scipy.special import gammaln, xlogy
from tf8.traced import TracedTensor

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, alpha: Any) -> TracedTensor:
    x, alpha = [inexact(v) for v in promote(x, alpha)]
    if alpha.ndim != 1:
        raise ShapeError(f"dirichlet: alpha must be one-dimensional, got shape {alpha.shape}")
    k = alpha.shape[0]
    if x.ndim == 0 or x.shape[0] not in (k, k - 1):
        raise ShapeError(
            f"dirichlet: x must have {k} or {k - 1} entries along its first axis, got shape "
            f"{x.shape}"
        )
    if x.shape[0] == k - 1:
        x = tnp.concatenate([x, 1 - tnp.sum(x, axis=0, keepdims=True)], axis=0)
    a = tnp.reshape(alpha, (k,) + (1,) * (x.ndim - 1))
    normalizer = tnp.sum(gammaln(alpha)) - gammaln(tnp.sum(alpha))
    log_density = tnp.sum(xlogy(a - 1, x), axis=0) - normalizer
    on_simplex = tnp.all(x > 0, axis=0) & (tnp.abs(tnp.sum(x, axis=0) - 1) < 1e-6)
    return tnp.where(on_simplex, log_density, -math.inf)


def pdf(x: Any, alpha: Any) -> TracedTensor:
    return tnp.exp(logpdf(x, alpha))
