"""Array creation: zeros, ones, full, empty, *_like, arange, linspace, logspace, eye, ...

Fills are a broadcast scalar constant (so `zeros((n, 3))` works for a symbolic `n` and a large
array never becomes a large constant); integer ranges and identity matrices are `iota`s; float
ranges with Python bounds are numpy's own values as a constant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ParameterError, UnsupportedOperationError
from tf8.lax.core import apply1
from tf8.ops import dtypes as dt
from tf8.ops.shapes import Dim, DimExpr, dim_max
from tf8.traced import TracedTensor

from ._arithmetic import add, divide, multiply, power, subtract
from ._core import (
    ArrayLike,
    as_shape_arg,
    asarray,
    astype,
    broadcast_arrays,
    broadcast_to,
    constant,
    full_of,
    inexact,
    promote,
)
from ._logic import equal, greater_equal
from ._shape import concatenate, expand_dims, moveaxis, reshape


def _dtype(dtype: Any, default: Any) -> np.dtype:
    """`dtype`, or the creation function's default (both canonical: float32 with x64 off)."""
    return dt.as_dtype(default) if dtype is None else dt.requested_dtype(dtype, "array")


def zeros(shape: Any, dtype: Any = None, order: str = "C", *, like: Any = None) -> TracedTensor:
    """An array of zeros (float64 by default)."""
    return full_of(0, as_shape_arg(shape), _dtype(dtype, dt.float64))


def ones(shape: Any, dtype: Any = None, order: str = "C", *, like: Any = None) -> TracedTensor:
    """An array of ones (float64 by default)."""
    return full_of(1, as_shape_arg(shape), _dtype(dtype, dt.float64))


empty = zeros  # traced arrays are never uninitialised


def full(
    shape: Any, fill_value: ArrayLike, dtype: Any = None, order: str = "C", *, like: Any = None
) -> TracedTensor:
    """An array of `fill_value` (which may be traced, or an array broadcast to `shape`)."""
    value = asarray(fill_value) if dtype is None else astype(asarray(fill_value), dtype)
    return broadcast_to(value, as_shape_arg(shape))


def _like(a: ArrayLike, dtype: Any, shape: Any) -> tuple[tuple[Dim, ...], np.dtype]:
    x = asarray(a)
    return (x.shape if shape is None else as_shape_arg(shape)), _dtype(dtype, x.dtype)


def _weak_as(out: TracedTensor, a: ArrayLike, dtype: Any, *inputs: Any) -> TracedTensor:
    """The *_like result is weakly typed when `a` is and no dtype is given (JAX's rule); an
    input handed back unchanged keeps its own flag."""
    if not any(out is i for i in inputs):
        out._weak = dtype is None and bool(asarray(a)._weak)
    return out


def zeros_like(
    a: ArrayLike, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None
) -> TracedTensor:
    """Zeros with the shape and dtype of `a`."""
    shape_, dtype_ = _like(a, dtype, shape)
    return _weak_as(full_of(0, shape_, dtype_), a, dtype)


def ones_like(
    a: ArrayLike, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None
) -> TracedTensor:
    """Ones with the shape and dtype of `a`."""
    shape_, dtype_ = _like(a, dtype, shape)
    return _weak_as(full_of(1, shape_, dtype_), a, dtype)


empty_like = zeros_like


def full_like(
    a: ArrayLike,
    fill_value: ArrayLike,
    dtype: Any = None,
    order: str = "K",
    subok: bool = True,
    shape: Any = None,
) -> TracedTensor:
    """`fill_value` with the shape and dtype of `a`."""
    shape_, dtype_ = _like(a, dtype, shape)
    out = broadcast_to(astype(asarray(fill_value), dtype_), shape_)
    return _weak_as(out, a, dtype, fill_value)


def _iota(n: Dim, dtype: np.dtype) -> TracedTensor:
    return apply1("iota", [], shape=(n,), dtype=dtype, dimension=0)


def _is_int_like(v: Any) -> bool:
    return isinstance(v, (int, np.integer, DimExpr)) and not isinstance(v, (bool, np.bool_))


def arange(
    start: Any, stop: Any = None, step: Any = None, dtype: Any = None, *, like: Any = None
) -> TracedTensor:
    """Evenly spaced values in [start, stop): an `iota` for integers (stop may be symbolic),
    numpy's own values as a constant for floats."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    for v in (start, stop, step):
        if isinstance(v, TracedTensor):
            raise UnsupportedOperationError(
                f"arange with a traced bound ({v.aval}): the result's length would depend on data"
            )
    if not all(_is_int_like(v) for v in (start, stop, step)):
        values = np.arange(start, stop, step, dtype=None if dtype is None else dt.as_dtype(dtype))
        return constant(values)
    if isinstance(start, DimExpr) or isinstance(step, DimExpr):
        raise UnsupportedOperationError("arange: only the stop may be a symbolic dimension")
    start, step = int(start), int(step)
    if step == 0:
        raise ParameterError("arange: step must not be 0")
    if isinstance(stop, DimExpr):
        if step != 1:
            raise UnsupportedOperationError("arange: a symbolic stop needs step 1")
        n: Dim = stop if start == 0 else dim_max(stop - start, 0)
    else:
        n = max(0, -(-(int(stop) - start) // step))
    target = _dtype(dtype, dt.int64)
    if start == 0 and step == 1:
        return _iota(n, target)
    return astype(_iota(n, dt.int64) * step + start, target)


def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """`num` evenly spaced samples over [start, stop] (numpy's values; traced bounds work)."""
    num = int(num)
    if num < 0:
        raise ParameterError(f"linspace: number of samples, {num}, must be non-negative")
    if not isinstance(start, TracedTensor) and not isinstance(stop, TracedTensor):
        values, step = np.linspace(start, stop, num, endpoint, True, dtype, axis)
        out = constant(values)
        return (out, step) if retstep else out
    lo, hi = broadcast_arrays(*_float_pair(start, stop))
    div = num - 1 if endpoint else num
    delta = subtract(hi, lo)
    step = divide(delta, div) if div > 0 else multiply(delta, math.nan)
    ramp = reshape(_iota(num, lo.dtype), (num,) + (1,) * lo.ndim)
    # with no interval (num=1 with the endpoint) numpy's step is nan but the sample is start:
    # 0 * delta, not 0 * nan, which would make the value (and its derivative) nan
    y = add(multiply(ramp, step if div > 0 else delta), lo)
    if endpoint and num > 1:
        y = concatenate([y[: num - 1], expand_dims(hi, 0)], axis=0)
    if dtype is not None:
        y = astype(y, dtype)
    y = moveaxis(y, 0, axis) if axis != 0 else y
    return (y, step) if retstep else y


def _float_pair(start: ArrayLike, stop: ArrayLike) -> list[TracedTensor]:
    return [inexact(v) for v in promote(start, stop)]


def logspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    base: float = 10.0,
    dtype: Any = None,
    axis: int = 0,
) -> TracedTensor:
    """base ** linspace(start, stop, num)."""
    if int(num) < 0:
        raise ParameterError(f"logspace: number of samples, {num}, must be non-negative")
    if not isinstance(start, TracedTensor) and not isinstance(stop, TracedTensor):
        return constant(np.logspace(start, stop, num, endpoint, base, dtype, axis))
    out = power(base, linspace(start, stop, num, endpoint, axis=axis))
    return out if dtype is None else astype(out, dtype)


def _grid(n: Dim, m: Dim, dimension: int) -> TracedTensor:
    return apply1("iota", [], shape=(n, m), dtype=dt.int64, dimension=dimension)


def eye(
    N: Any,
    M: Any = None,
    k: int = 0,
    dtype: Any = None,
    order: str = "C",
    *,
    like: Any = None,  # noqa: N803
) -> TracedTensor:
    """Ones on the k-th diagonal of an N x M matrix (sizes may be symbolic)."""
    n = as_shape_arg(N)[0]
    m = n if M is None else as_shape_arg(M)[0]
    ones_at = equal(_grid(n, m, 0) + int(k), _grid(n, m, 1))
    return astype(ones_at, _dtype(dtype, dt.float64))


def identity(n: Any, dtype: Any = None, *, like: Any = None) -> TracedTensor:
    """The n x n identity matrix."""
    return eye(n, dtype=dtype)


def tri(
    N: Any,
    M: Any = None,
    k: int = 0,
    dtype: Any = None,
    *,
    like: Any = None,  # noqa: N803
) -> TracedTensor:
    """Ones at and below the k-th diagonal of an N x M matrix (float32 by default: JAX's
    default for tri, even with x64)."""
    n = as_shape_arg(N)[0]
    m = n if M is None else as_shape_arg(M)[0]
    return astype(greater_equal(_grid(n, m, 0) + int(k), _grid(n, m, 1)), _dtype(dtype, dt.float32))


def meshgrid(
    *xi: ArrayLike, copy: bool = True, sparse: bool = False, indexing: str = "xy"
) -> tuple[TracedTensor, ...]:
    """Coordinate arrays from coordinate vectors ('xy' or 'ij' indexing)."""
    if indexing not in ("xy", "ij"):
        raise ParameterError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    ndim = len(xi)
    ones_: Sequence[int] = (1,) * ndim
    out = []
    for i, x in enumerate(xi):
        v = asarray(x)
        flat = reshape(v, (v.size,))
        out.append(reshape(flat, tuple(ones_[:i]) + (v.size,) + tuple(ones_[i + 1 :])))
    if indexing == "xy" and ndim > 1:
        out[0] = reshape(out[0], (1, out[0].size) + tuple(ones_[2:]))
        out[1] = reshape(out[1], (out[1].size, 1) + tuple(ones_[2:]))
    if not sparse:
        out = broadcast_arrays(*out)
    return tuple(out)
