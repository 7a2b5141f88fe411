"""numpy's quantile family on the sort op: quantile, percentile, median and their nan-
ignoring forms, with numpy's `method`s linear, lower, higher, nearest, midpoint and
inverted_cdf (without weights).

The reduced axes are sorted as one trailing axis; each quantile reads one or two order
statistics (a gather) at the virtual index q * (count - 1), numpy's formula, and linear
interpolates as numpy's `_lerp`. Derivatives flow through the gathers and the sort's JVP.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tf8.errors import DTypeError, ParameterError, UnsupportedOperationError
from tf8.lax.sorting import sort_all
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._along import take_along_axis
from ._arithmetic import clip, maximum
from ._core import ArrayLike, asarray, astype, broadcast_to, inexact, normalize_axes
from ._float_ufuncs import ceil, floor, isnan, rint
from ._logic import where
from ._reductions import any as any_
from ._reductions import cumsum
from ._reductions import sum as sum_
from ._shape import expand_dims, reshape, transpose

METHODS = ("linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf")
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
    if dt.is_complex(x.dtype):
        raise DTypeError(f"{name}: complex input ({x.aval}) has no order, as in JAX")
    if method not in _DISCRETE or x.dtype.kind in "bc":
        x = inexact(x)
    axes = normalize_axes(axis, x.ndim)
    kept = [i for i in range(x.ndim) if i not in axes]
    rows = tuple(x.shape[i] for i in kept)
    n = math.prod(x.shape[i] for i in axes)
    flat = reshape(transpose(x, kept + list(axes)), rows + (n,))
    qs = inexact(q)  # JAX computes the positions and weights in q's own inexact dtype
    q_shape = qs.shape
    qs = reshape(qs, (-1,))
    ordered = sort_all([flat], flat.ndim - 1)[0]
    floats = x.dtype.kind == "f"
    if ignore_nan and floats:  # NaNs sort last: count what comes before them
        count = sum_(~isnan(flat), axis=-1, keepdims=True).astype(qs.dtype)
    else:
        count = float(n)
    position = qs * (count - 1)  # numpy's virtual index (alpha = beta = 1)
    span = rows + qs.shape

    def at(index: TracedTensor) -> TracedTensor:
        index = broadcast_to(clip(index, 0, max(n - 1, 0)).astype(dt.index_dtype()), span)
        return take_along_axis(ordered, index, -1, mode="clip")  # clipped above

    if method == "lower":
        result = at(floor(position))
    elif method == "higher":
        result = at(ceil(position))
    elif method == "nearest":
        result = at(rint(position))  # half to even, as numpy
    elif method == "inverted_cdf":
        result = _inverted_cdf(ordered, qs, count, at, ignore_nan and floats)
    elif method == "midpoint":
        low, high = floor(position), ceil(position)
        result = astype((at(low) + at(high)) * 0.5, x.dtype)
    else:  # JAX's weighted sum, in q's dtype
        low = floor(position)
        weight = position - low
        low_value, high_value = at(low), at(ceil(position))
        result = astype(low_value, qs.dtype) * (1 - weight) + astype(high_value, qs.dtype) * weight
        result = astype(result, x.dtype)
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


def _inverted_cdf(
    ordered: TracedTensor, qs: TracedTensor, count: Any, at: Any, ignore_nan: bool
) -> TracedTensor:
    """The first order statistic whose empirical CDF reaches q (numpy's 'inverted_cdf'); NaN
    where a slice has no values left."""
    present = ~isnan(ordered) if ordered.dtype.kind in "fc" else ordered == ordered
    running = cumsum(astype(present, qs.dtype), axis=-1)
    target = qs * running[..., -1:]  # rows + (m,)
    below = sum_(expand_dims(running, -2) < expand_dims(target, -1), axis=-1)
    result = at(clip(below, 0, maximum(count - 1, 0)))
    if ignore_nan:
        result = where(count == 0, np.nan, result)
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
        # q / 100 as XLA computes it in JAX's percentile: times the rounded reciprocal
        fraction = q if scale == 1.0 else inexact(q) * (1.0 / scale)
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
