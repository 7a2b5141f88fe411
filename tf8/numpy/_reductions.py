"""numpy's reductions (sum, prod, mean, var, all, cumsum, nansum, ...) on traced values; the
extremes (max, argmax, ...) are _extremes.py's, on `reduce_axes` and `keep_axes` from here."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tf8.errors import ParameterError, ShapeError
from tf8.lax.core import apply1
from tf8.lax.eager_reduce import fast_reduction
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._arithmetic import absolute, multiply, subtract, true_divide
from ._core import ArrayLike, asarray, astype, broadcast_to, normalize_axes, normalize_axis
from ._float_ufuncs import isnan, sqrt
from ._logic import equal, greater, greater_equal, logical_not, not_equal, where
from ._shape import expand_dims, moveaxis, ravel, reshape

Axis = int | Sequence[int] | None


def keep_axes(x: TracedTensor, axes: tuple[int, ...], keepdims: bool) -> TracedTensor:
    """`x` with the reduced `axes` back as size-1 axes when `keepdims`."""
    if not keepdims:
        return x
    return expand_dims(x, axes)


def reduce_axes(
    name: str, a: ArrayLike, axis: Axis, keepdims: bool, dtype: Any = None
) -> TracedTensor:
    """The reduction row `name` over numpy's `axis` argument (in `dtype` when given)."""
    x = asarray(a)
    if dtype is not None:
        x = astype(x, dtype)
    axes = normalize_axes(axis, x.ndim)
    out = apply1(name, [x], axes=axes) if axes else x
    return strong(keep_axes(out, axes, keepdims), x)


def strong(out: TracedTensor, x: TracedTensor) -> TracedTensor:
    """A reduction's result, strongly typed as JAX's are (`jnp.sum(2.0)` is not weak)."""
    if not out._weak:
        return out
    if out is x:  # nothing was reduced: a strong copy, not the input changed
        out = apply1("convert", [x], dtype=x.dtype)
    out._weak = False
    return out


def _sum_dtype(x: TracedTensor) -> Any:
    # numpy sums bools and small ints in the default integer (int64), unsigned ones in uint64
    # (which tf8 widens to int64).
    return dt.int64 if x.dtype in (dt.bool_, dt.int32, *dt.UNSIGNED) else None


def sum(a: ArrayLike, axis: Axis = None, dtype: Any = None, keepdims: bool = False) -> TracedTensor:  # noqa: A001
    x = asarray(a)
    return reduce_axes("reduce_sum", x, axis, keepdims, dtype or _sum_dtype(x))


sum = fast_reduction("reduce_sum", sum)  # noqa: A001 - float sums, op by op at once


def prod(
    a: ArrayLike, axis: Axis = None, dtype: Any = None, keepdims: bool = False
) -> TracedTensor:
    x = asarray(a)
    return reduce_axes("reduce_prod", x, axis, keepdims, dtype or _sum_dtype(x))


def all(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> TracedTensor:  # noqa: A001
    """Whether every element is nonzero (True for an empty axis): no zero is counted."""
    zeros = sum(astype(equal(asarray(a), False), dt.int64), axis, keepdims=keepdims)
    return equal(zeros, 0)


def any(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> TracedTensor:  # noqa: A001
    """Whether some element is nonzero (False for an empty axis)."""
    nonzeros = sum(astype(not_equal(asarray(a), False), dt.int64), axis, keepdims=keepdims)
    return greater(nonzeros, 0)


def _count(x: TracedTensor, axes: tuple[int, ...], ddof: int = 0) -> Any:
    """How many elements `axes` of `x` hold (minus ddof): a float, or a traced value when
    some of those axes are symbolic (read at run time with shape_of)."""
    static = [x.shape[a] for a in axes if isinstance(x.shape[a], int)]
    symbolic = [a for a in axes if not isinstance(x.shape[a], int)]
    count: Any = float(math.prod(static))
    if not symbolic:
        return count - ddof
    value: Any = count
    for a in symbolic:
        value = multiply(value, apply1("shape_of", [x], axis=a))
    return astype(subtract(value, ddof), dt.real_dtype(dt.float_dtype(x.dtype)))


def mean(
    a: ArrayLike, axis: Axis = None, dtype: Any = None, keepdims: bool = False
) -> TracedTensor:
    x = asarray(a)
    result = dt.as_dtype(dtype or dt.float_dtype(x.dtype))
    # float16 accumulates in float32, as numpy's and JAX's means do
    x = astype(x, dt.float32 if result == dt.float16 else result)
    axes = normalize_axes(axis, x.ndim)
    return astype(true_divide(sum(x, axes, keepdims=keepdims), _count(x, axes)), result)


def var(
    a: ArrayLike, axis: Axis = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False
) -> TracedTensor:
    x = asarray(a)
    x = astype(x, dtype or dt.float_dtype(x.dtype))
    axes = normalize_axes(axis, x.ndim)
    centered = subtract(x, mean(x, axes, keepdims=True))
    if dt.is_complex(x.dtype):
        centered = absolute(centered)
    sq = multiply(centered, centered)
    total = sum(sq, axes, keepdims=keepdims)
    return true_divide(total, _count(x, axes, ddof))


def std(
    a: ArrayLike, axis: Axis = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False
) -> TracedTensor:
    variance = var(a, axis, dtype, ddof, keepdims)
    # sqrt'(0) is infinite; at zero variance the gradient is 0 (not 0 * inf = NaN).
    zero = equal(variance, 0)
    return where(zero, 0, sqrt(where(zero, 1, variance)))


def _cumulative_operand(name: str, a: ArrayLike, dtype: Any, unexpected: dict) -> TracedTensor:
    """`a` in the dtype of its running sum or product: `dtype`, else its own (JAX's: int32
    stays int32), bools as int64."""
    if unexpected:
        raise ParameterError(f"{name}() got unexpected keyword arguments {sorted(unexpected)}")
    x = asarray(a)
    return astype(x, dtype or (dt.int64 if x.dtype == dt.bool_ else x.dtype))


def cumsum(
    a: ArrayLike, axis: int | None = None, dtype: Any = None, **unexpected: Any
) -> TracedTensor:
    x = _cumulative_operand("cumsum", a, dtype, unexpected)
    if axis is None:
        x, axis = ravel(x), 0
    return strong(apply1("cumsum", [x], axis=normalize_axis(axis, x.ndim), reverse=False), x)


def cumprod(
    a: ArrayLike, axis: int | None = None, dtype: Any = None, **unexpected: Any
) -> TracedTensor:
    """Running product, as a product over a lower-triangular mask (no cumprod row exists).

    Costs n² elements along the axis; exact (each output is a plain product).
    """
    x = _cumulative_operand("cumprod", a, dtype, unexpected)
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis(axis, x.ndim)
    last = moveaxis(x, axis, -1)
    n = last.shape[-1]
    rows = apply1("iota", [], shape=(n, n), dtype=dt.int64, dimension=0)
    cols = apply1("iota", [], shape=(n, n), dtype=dt.int64, dimension=1)
    masked = where(greater_equal(rows, cols), expand_dims(last, -2), 1)
    products = apply1("reduce_prod", [masked], axes=(masked.ndim - 1,))
    return strong(moveaxis(products, -1, axis), x)


def _nan_free(a: ArrayLike, fill: Any) -> TracedTensor:
    x = asarray(a)
    return where(isnan(x), fill, x) if dt.is_inexact(x.dtype) else x


def nansum(
    a: ArrayLike, axis: Axis = None, dtype: Any = None, keepdims: bool = False
) -> TracedTensor:
    """sum treating NaNs as 0."""
    return sum(_nan_free(a, 0), axis, dtype, keepdims)


def nanprod(
    a: ArrayLike, axis: Axis = None, dtype: Any = None, keepdims: bool = False
) -> TracedTensor:
    """prod treating NaNs as 1."""
    return prod(_nan_free(a, 1), axis, dtype, keepdims)


def nanmean(
    a: ArrayLike, axis: Axis = None, dtype: Any = None, keepdims: bool = False
) -> TracedTensor:
    """mean over the non-NaN elements."""
    x = asarray(a)
    if not dt.is_inexact(x.dtype):
        return mean(x, axis, dtype, keepdims)
    count = sum(logical_not(isnan(x)), axis, keepdims=keepdims)
    total = nansum(x, axis, dtype, keepdims)
    return true_divide(total, astype(count, dt.real_dtype(total.dtype)))


def count_nonzero(a: ArrayLike, axis: Axis = None, *, keepdims: bool = False) -> TracedTensor:
    """How many elements are not 0 (int64)."""
    return sum(not_equal(asarray(a), 0), axis, dt.int64, keepdims)


def average(
    a: ArrayLike,
    axis: Axis = None,
    weights: ArrayLike = None,
    returned: bool = False,
    *,
    keepdims: bool = False,
) -> Any:
    """The weighted mean sum(a * w) / sum(w); 1-D weights with one axis align to that axis."""
    x = asarray(a)
    if weights is None:
        avg = mean(x, axis, keepdims=keepdims)
        if not returned:
            return avg
        count = _count(x, normalize_axes(axis, x.ndim))
        return avg, broadcast_to(astype(asarray(count), avg.dtype), avg.shape)
    w = asarray(weights)
    if w.shape != x.shape:
        if axis is None or w.ndim != 1 or not isinstance(axis, int):
            raise ShapeError(
                f"average: weights {w.aval} must match a {x.aval}, or be 1-D along one axis"
            )
        ax = normalize_axis(axis, x.ndim)
        w = reshape(w, tuple(w.shape[0] if i == ax else 1 for i in range(x.ndim)))
        w = broadcast_to(w, x.shape)
    total_w = sum(inexact_like(w, x), axis, keepdims=keepdims)
    avg = true_divide(sum(multiply(x, inexact_like(w, x)), axis, keepdims=keepdims), total_w)
    return (avg, broadcast_to(total_w, avg.shape)) if returned else avg


def inexact_like(w: TracedTensor, x: TracedTensor) -> TracedTensor:
    """`w` in the float dtype numpy's average computes `x` with."""
    return astype(w, dt.result_type(dt.float_dtype(x.dtype), w.dtype))
