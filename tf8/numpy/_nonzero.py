"""Functions whose result's shape depends on the data: nonzero, flatnonzero, argwhere,
one-argument where, extract, compress, bincount, and boolean-mask indexing.

On concrete values (eagerly, and under grad/jvp/vjp of concrete arguments) the indices are
computed from the value and enter the graph as constants, so what is indexed with them stays
differentiable. Under jit the data is unknown: JAX's rule applies, a clear error unless
`size=` fixes the result's length (padded with `fill_value`, default 0, or truncated);
bincount's is `length=`.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from tf8.errors import (
    ConcretizationError,
    IndexingError,
    ParameterError,
    ShapeError,
    UnsupportedOperationError,
)
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._arithmetic import floor_divide, remainder, subtract
from ._core import ArrayLike, asarray, constant, normalize_axis, stack
from ._creation import arange
from ._logic import equal, logical_and, not_equal
from ._logic import where as where_elementwise
from ._reductions import any as any_
from ._reductions import cumsum
from ._reductions import sum as sum_
from ._shape import expand_dims, ravel, reshape


def concrete_or_none(x: TracedTensor) -> np.ndarray | None:
    """x's value when it is known at trace time (no derivative is read), else None."""
    try:
        return x._concrete("Reading the data-dependent shape")
    except ConcretizationError:
        return None


def _need_size(fn: str, x: TracedTensor) -> ConcretizationError:
    return ConcretizationError(
        f"{fn}: the size of the result depends on the values of {x.aval}, which are not known "
        f"under jit; pass size= (and fill_value=) as in JAX, or call it outside jit"
    )


def nonzero(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> tuple:
    """The indices of the non-zero elements, one int64 array per axis (numpy.nonzero); with
    `size`, exactly that many (padded with `fill_value`, default 0), which also works under jit."""
    x = asarray(a)
    if x.ndim == 0:
        raise ShapeError("nonzero: calling nonzero on a 0-d array is not allowed (numpy ≥ 2.1)")
    value = concrete_or_none(x)
    if value is not None:
        indices = np.nonzero(value)
        if size is not None:
            indices = tuple(_fit(i, size, _fill(fill_value, d)) for d, i in enumerate(indices))
        return tuple(constant(i.astype(np.int64)) for i in indices)
    if size is None:
        raise _need_size("nonzero", x)
    return _traced_nonzero(x, int(size), fill_value)


def where(
    condition: ArrayLike,
    x: ArrayLike = None,
    y: ArrayLike = None,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """numpy.where(condition, x, y); where(condition) is nonzero(condition) (concrete values,
    or `size=` under jit, as JAX)."""
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    return where_elementwise(condition, x, y)


def _fill(fill_value: Any, axis: int) -> Any:
    if fill_value is None:
        return 0
    return fill_value[axis] if isinstance(fill_value, (tuple, list)) else fill_value


def _fit(index: np.ndarray, size: int, fill: Any) -> np.ndarray:
    """Truncate or pad `index` to `size`."""
    if len(index) >= size:
        return index[:size]
    return np.concatenate([index, np.full(size - len(index), fill, index.dtype)])


def _traced_nonzero(x: TracedTensor, size: int, fill_value: Any) -> tuple:
    """The first `size` non-zero positions of an unknown x: slot j is the element whose
    running count of non-zeros is j + 1 (a (size, n) comparison; no sort needed)."""
    mask = not_equal(ravel(x), 0)
    n = mask.shape[0]
    rank = subtract(cumsum(mask.astype(dt.index_dtype())), 1)
    slots = expand_dims(arange(size, dtype=dt.index_dtype()), 1)
    hit = logical_and(expand_dims(mask, 0), equal(expand_dims(rank, 0), slots))
    flat = sum_(where(hit, expand_dims(arange(n, dtype=dt.index_dtype()), 0), 0), axis=1)
    found = any_(hit, axis=1)
    out = []
    stride = 1
    for axis in reversed(range(x.ndim)):
        index = remainder(floor_divide(flat, stride), x.shape[axis])
        out.append(where(found, index, _fill(fill_value, axis)).astype(dt.index_dtype()))
        stride *= x.shape[axis]
    return tuple(reversed(out))


def flatnonzero(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the non-zero elements of ravel(a)."""
    return nonzero(ravel(asarray(a)), size=size, fill_value=fill_value)[0]


def argwhere(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> TracedTensor:
    """The indices of the non-zero elements, one row per element (shape (count, ndim))."""
    x = asarray(a)
    if x.ndim == 0:
        x = reshape(x, (1,))
        (index,) = nonzero(x, size=size, fill_value=fill_value)
        return reshape(index, (index.shape[0], 1))[:, :0]  # one row of no columns per hit
    return stack(nonzero(x, size=size, fill_value=fill_value), axis=1)


def extract(
    condition: ArrayLike, arr: ArrayLike, *, size: int | None = None, fill_value: Any = 0
) -> TracedTensor:
    """The elements of ravel(arr) where ravel(condition) is non-zero (the shorter of the two
    is what counts, as jax.numpy)."""
    return compress(
        ravel(asarray(condition)), ravel(asarray(arr)), size=size, fill_value=fill_value
    )


def compress(
    condition: ArrayLike,
    a: ArrayLike,
    axis: int | None = None,
    *,
    size: int | None = None,
    fill_value: Any = 0,
    out: Any = None,
) -> TracedTensor:
    """The slices of `a` along `axis` (flattened when None) where the 1-D condition holds.
    As jax.numpy: a shorter condition truncates `a`; a longer one must be False past its end
    (without `size`); with `size` the first `size` slices, padded with `fill_value`."""
    if out is not None:
        raise UnsupportedOperationError(
            "compress: out= is not supported (traced values are immutable)"
        )
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis(axis, x.ndim)
    cond = not_equal(asarray(condition), 0)
    if cond.ndim != 1:
        raise ShapeError(f"compress: condition must be 1-D, got shape {cond.shape}")
    n, m = x.shape[axis], cond.shape[0]
    before = (slice(None),) * axis
    if m > n:
        extra = concrete_or_none(any_(cond[n:]))
        if size is None and extra is not None and bool(extra):
            raise IndexingError(
                f"compress: condition {cond.aval} is True past the end of axis {axis} of {x.aval}"
            )
        cond = cond[:n]
    elif m < n:
        x = x[before + (slice(0, m),)]
    if size is None:
        (index,) = nonzero(cond)
        return x[before + (index,)]
    if not 0 <= size <= x.shape[axis]:
        raise ParameterError(
            f"compress: size must be in [0, {x.shape[axis]}] (the length of axis {axis}), "
            f"got {size}"
        )
    (index,) = nonzero(cond, size=size)
    keep = arange(size) < sum_(cond.astype(dt.index_dtype()))
    keep = reshape(keep, (size,) + (1,) * (x.ndim - axis - 1))
    fill = constant(np.asarray(fill_value).astype(x.dtype))
    return where_elementwise(keep, x[before + (index,)], fill)


def mask_indices(mask: TracedTensor) -> tuple:
    """Boolean-mask indexing `x[mask]`: the mask's nonzero indices, or a clear error under jit
    (a boolean mask has no `size=`; use nonzero(mask, size=...) or where(mask, x, 0))."""
    value = concrete_or_none(mask)
    if value is None:
        raise ConcretizationError(
            f"boolean mask indexing with a mask ({mask.aval}) whose values are unknown under "
            "jit: the result's shape depends on them. Use x[tf8.numpy.nonzero(mask, size=n)] "
            "or tf8.numpy.where(mask, x, 0), or index outside jit"
        )
    return tuple(constant(i.astype(np.int64)) for i in np.nonzero(value))


def bincount(
    x: ArrayLike, weights: ArrayLike = None, minlength: int = 0, *, length: int | None = None
) -> TracedTensor:
    """How often each value 0, 1, … occurs in the 1-D non-negative integer x (summing
    `weights` instead of counting ones): max(x) + 1 bins (at least `minlength`) from a
    concrete x, `length` bins under jit (values past the end are dropped and negative ones
    counted in bin 0, as JAX)."""
    values = asarray(x)
    if values.ndim != 1 or not (dt.is_integer(values.dtype) or values.dtype == dt.bool_):
        raise ShapeError(f"bincount: x must be a 1-D array of integers, got {values.aval}")
    if length is None:
        known = concrete_or_none(values)
        if known is None:
            raise ConcretizationError(
                f"bincount: the number of bins depends on the values of {values.aval}, which "
                "are not known under jit; pass length= as in JAX, or call it outside jit"
            )
        length = builtins.max(int(known.max()) + 1 if known.size else 0, int(minlength))
    index = values.astype(dt.index_dtype())
    index = where_elementwise(index < 0, 0, index)  # negatives count in bin 0, as JAX
    slots = equal(expand_dims(index, 1), expand_dims(arange(length), 0))
    if weights is None:
        return sum_(slots, axis=0)
    w = asarray(weights)
    return sum_(where(slots, expand_dims(w, 1), 0), axis=0)
