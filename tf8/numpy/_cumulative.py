"""Running maxima, minima and log-sum-exps: JAX's lax.cummax / cummin / cumlogsumexp.

Each is a prefix scan by doubling (Hillis–Steele): ⌈log₂ n⌉ rounds of `combine(shifted, x)`,
where `shifted` is x moved `2^k` places along the axis with the identity filling in. The
rounds are ordinary elementwise ops, so derivatives and vmap come from theirs (a running
maximum's derivative flows to the element that attains it; exact ties split it, as `maximum`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import DTypeError
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._arithmetic import maximum, minimum
from ._core import ArrayLike, asarray, full_of, normalize_axis
from ._logaddexp import logaddexp
from ._rearrange import flip
from ._shape import concatenate, moveaxis


def _scan(
    name: str,
    a: ArrayLike,
    axis: int,
    reverse: bool,
    combine: Callable[[Any, Any], TracedTensor],
    identity: Callable[[np.dtype], Any],
) -> TracedTensor:
    x = asarray(a)
    if x.ndim == 0:
        return x
    if dt.is_complex(x.dtype):
        raise DTypeError(f"{name}: complex values have no order ({x.aval})")
    axis = normalize_axis(axis, x.ndim)
    x = moveaxis(x, axis, -1)
    if reverse:
        x = flip(x, -1)
    n = x.shape[-1]
    fill = identity(x.dtype)
    shift = 1
    while isinstance(n, int) and shift < n:
        pad = full_of(fill, (*x.shape[:-1], shift), x.dtype)
        x = combine(concatenate([pad, x[..., : n - shift]], axis=-1), x)
        shift *= 2
    if reverse:
        x = flip(x, -1)
    return moveaxis(x, -1, axis)


def _lowest(dtype: np.dtype) -> Any:
    if dt.is_inexact(dtype):
        return -np.inf
    return False if dtype == dt.bool_ else np.iinfo(dtype).min


def _highest(dtype: np.dtype) -> Any:
    if dt.is_inexact(dtype):
        return np.inf
    return True if dtype == dt.bool_ else np.iinfo(dtype).max


def cummax(a: ArrayLike, axis: int = 0, reverse: bool = False) -> TracedTensor:
    """The running maximum along `axis` (from the end when `reverse`), as jax.lax.cummax."""
    return _scan("cummax", a, axis, reverse, maximum, _lowest)


def cummin(a: ArrayLike, axis: int = 0, reverse: bool = False) -> TracedTensor:
    """The running minimum along `axis`, as jax.lax.cummin."""
    return _scan("cummin", a, axis, reverse, minimum, _highest)


def cumlogsumexp(a: ArrayLike, axis: int = 0, reverse: bool = False) -> TracedTensor:
    """The running log(sum(exp(a))) along `axis`, computed stably, as jax.lax.cumlogsumexp."""
    x = asarray(a)
    if not dt.is_float(x.dtype):
        x = x.astype(dt.ufunc_float_dtype(x.dtype)) if not dt.is_complex(x.dtype) else x
    return _scan("cumlogsumexp", x, axis, reverse, logaddexp, lambda _: -np.inf)
