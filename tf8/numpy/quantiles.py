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
from ._arithmetic import clip
from ._core import ArrayLike, asarray, astype, broadcast_to, inexact, normalize_axes
from ._float_ufuncs import ceil, floor, isnan, rint
from ._logic import where
from ._reductions import any as any_
from ._reductions import sum as sum_
from ._shape import reshape, transpose

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


def _quantile_function(name: str, scale: float, ignore_nan: bool, doc: str):
    """numpy's quantile-family function `name`, for q in [0, scale]."""

    def fn(
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
        _check_unsupported(name, out, weights)
        _check_q(q, scale, name)
        fraction = q if scale == 1.0 else asarray(q) / scale
        return _quantile(name, a, fraction, axis, interpolation or method, keepdims, ignore_nan)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _median_function(name: str, ignore_nan: bool, doc: str):
    def fn(
        a: ArrayLike,
        axis: Any = None,
        out: Any = None,
        overwrite_input: bool = False,
        keepdims: bool = False,
    ) -> TracedTensor:
        _check_unsupported(name, out, None)
        return _quantile(name, a, 0.5, axis, "linear", keepdims, ignore_nan)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


quantile = _quantile_function(
    "quantile", 1.0, False, "numpy.quantile (q in [0, 1]); NaN where a reduced slice holds a NaN."
)
nanquantile = _quantile_function(
    "nanquantile", 1.0, True, "numpy.nanquantile: quantiles of the non-NaN values."
)
percentile = _quantile_function("percentile", 100.0, False, "numpy.percentile (q in [0, 100]).")
nanpercentile = _quantile_function(
    "nanpercentile", 100.0, True, "numpy.nanpercentile (q in [0, 100]) of the non-NaN values."
)
median = _median_function(
    "median", False, "numpy.median: the mean of the two middle values for an even count."
)
nanmedian = _median_function(
    "nanmedian", True, "numpy.nanmedian: the median of the non-NaN values."
)


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
