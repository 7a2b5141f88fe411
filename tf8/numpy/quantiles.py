"""numpy's quantile family on the sort op: quantile, percentile, median and their nan-
ignoring forms, with numpy's `method`s linear, lower, higher, nearest and midpoint.

The reduced axes are sorted as one trailing axis; each quantile reads one or two order
statistics (a gather) at the virtual index q * (count - 1), numpy's formula, and linear
interpolates as numpy's `_lerp`. Derivatives flow through the gathers and the sort's JVP.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tf8.errors import ParameterError, UnsupportedOperationError
from tf8.lax.sorting import sort_all
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._along import take_along_axis
from ._core import ArrayLike, asarray, astype, broadcast_to, inexact, normalize_axes
from ._math import isnan
from ._reductions import any as any_
from ._reductions import sum as sum_
from ._shape import reshape, transpose
from ._ufuncs import ceil, clip, floor, rint, where

METHODS = ("linear", "lower", "higher", "nearest", "midpoint")
_DISCRETE = ("lower", "higher", "nearest")  # they pick an element: integers stay integers


def _check_q(q: Any, scale: float, name: str) -> None:
    if isinstance(q, TracedTensor) and q._value is None:
        return  # checked only when known
    values = np.asarray(q._value if isinstance(q, TracedTensor) else q, dtype=np.float64)
    if np.any((values < 0) | (values > scale)):
        raise ParameterError(f"{name}: q must be in the range [0, {scale:g}], got {q!r}")


def _quantile(
    name: str,
    a: ArrayLike,
    q: ArrayLike,
    axis: Any,
    method: str,
    keepdims: bool,
    ignore_nan: bool,
) -> TracedTensor:
    if method not in METHODS:
        raise UnsupportedOperationError(f"{name}: method must be one of {METHODS}, got {method!r}")
    x = asarray(a)
    if method not in _DISCRETE or x.dtype.kind in "bc":
        x = inexact(x)
    axes = normalize_axes(axis, x.ndim)
    kept = [i for i in range(x.ndim) if i not in axes]
    rows = tuple(x.shape[i] for i in kept)
    n = math.prod(x.shape[i] for i in axes)
    flat = reshape(transpose(x, kept + list(axes)), rows + (n,))
    qs = asarray(q)
    q_shape = qs.shape
    qs = reshape(astype(qs, dt.float_dtype(x.dtype) if x.dtype.kind == "f" else dt.float64), (-1,))
    ordered = sort_all([flat], flat.ndim - 1)[0]
    floats = x.dtype.kind == "f"
    if ignore_nan and floats:  # NaNs sort last: count what comes before them
        count = sum_(~isnan(flat), axis=-1, keepdims=True).astype(qs.dtype)
    else:
        count = float(n)
    position = qs * (count - 1)  # numpy's virtual index (alpha = beta = 1)
    span = rows + qs.shape

    def at(index: TracedTensor) -> TracedTensor:
        index = broadcast_to(clip(index, 0, max(n - 1, 0)).astype(dt.int64), span)
        return take_along_axis(ordered, index, -1)

    if method == "lower":
        result = at(floor(position))
    elif method == "higher":
        result = at(ceil(position))
    elif method == "nearest":
        result = at(rint(position))  # half to even, as numpy
    else:
        low, high = floor(position), ceil(position)
        a_, b_ = at(low), at(high)
        t = position - low if method == "linear" else where(low == high, 0.0, 0.5)
        diff = b_ - a_
        result = where(t >= 0.5, b_ - diff * (1 - t), a_ + diff * t)  # numpy's _lerp
    if floats and not ignore_nan:
        result = where(any_(isnan(flat), axis=-1, keepdims=True), np.nan, result)
    result = reshape(result, rows + q_shape)
    # numpy puts the quantile axes first
    nr, nq = len(rows), len(q_shape)
    result = transpose(result, list(range(nr, nr + nq)) + list(range(nr)))
    if keepdims:
        full = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        result = reshape(result, q_shape + full)
    return result


def quantile(
    a: ArrayLike,
    q: ArrayLike,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
    interpolation: str | None = None,
) -> TracedTensor:
    """numpy.quantile (q in [0, 1]); NaN where a reduced slice holds a NaN."""
    _check_unsupported("quantile", out, weights)
    _check_q(q, 1.0, "quantile")
    return _quantile("quantile", a, q, axis, interpolation or method, keepdims, False)


def nanquantile(
    a: ArrayLike,
    q: ArrayLike,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
    interpolation: str | None = None,
) -> TracedTensor:
    """numpy.nanquantile: quantiles of the non-NaN values (NaN for an all-NaN slice)."""
    _check_unsupported("nanquantile", out, weights)
    _check_q(q, 1.0, "nanquantile")
    return _quantile("nanquantile", a, q, axis, interpolation or method, keepdims, True)


def percentile(
    a: ArrayLike,
    q: ArrayLike,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
    interpolation: str | None = None,
) -> TracedTensor:
    """numpy.percentile (q in [0, 100])."""
    _check_unsupported("percentile", out, weights)
    _check_q(q, 100.0, "percentile")
    return _quantile(
        "percentile", a, asarray(q) / 100.0, axis, interpolation or method, keepdims, False
    )


def nanpercentile(
    a: ArrayLike,
    q: ArrayLike,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
    interpolation: str | None = None,
) -> TracedTensor:
    """numpy.nanpercentile (q in [0, 100]) of the non-NaN values."""
    _check_unsupported("nanpercentile", out, weights)
    _check_q(q, 100.0, "nanpercentile")
    return _quantile(
        "nanpercentile", a, asarray(q) / 100.0, axis, interpolation or method, keepdims, True
    )


def median(
    a: ArrayLike,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    keepdims: bool = False,
) -> TracedTensor:
    """numpy.median: the mean of the two middle values for an even count."""
    _check_unsupported("median", out, None)
    return _quantile("median", a, 0.5, axis, "linear", keepdims, False)


def nanmedian(
    a: ArrayLike,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    keepdims: bool = False,
) -> TracedTensor:
    """numpy.nanmedian: the median of the non-NaN values."""
    _check_unsupported("nanmedian", out, None)
    return _quantile("nanmedian", a, 0.5, axis, "linear", keepdims, True)


def _check_unsupported(name: str, out: Any, weights: Any) -> None:
    if out is not None:
        raise UnsupportedOperationError(f"{name}: out= is not supported (use the result)")
    if weights is not None:
        raise UnsupportedOperationError(f"{name}: weights= is not supported")


__all__ = [
    "median",
    "nanmedian",
    "nanpercentile",
    "nanquantile",
    "percentile",
    "quantile",
]
