"""numpy's sorting and searching functions on the sort op (`tf8.lax.sort`): sort, argsort,
lexsort, partition, argpartition, searchsorted, unique and numpy 2's unique_values,
unique_counts, unique_inverse and unique_all.

Sorts are stable with NaNs last, as numpy's; `kind=` is accepted and ignored (every sort is
stable). `partition` returns a full sort, which satisfies numpy's contract (the k-th element
in place, nothing larger before it, nothing smaller after). The quantile family is in
`quantiles`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from tf8.errors import ConcretizationError, ParameterError, ShapeError, UnsupportedOperationError
from tf8.lax.sorting import iota_like, sort_all
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._along import take_along_axis
from ._arithmetic import add
from ._core import ArrayLike, asarray, broadcast_arrays, constant, normalize_axis, promote
from ._float_ufuncs import isnan
from ._indexing import take
from ._logic import equal, logical_and, logical_not, logical_or, where
from ._rearrange import flip
from ._reductions import cumsum, sum
from ._shape import concatenate, ravel, reshape

_INDEX = dt.int64  # numpy's intp


def _along(a: ArrayLike, axis: int | None) -> tuple[TracedTensor, int]:
    """`a` and the axis to sort it along (the flattened array when axis is None)."""
    x = asarray(a)
    if axis is None:
        return ravel(x), 0
    if x.ndim == 0:
        raise ShapeError(f"cannot sort along axis {axis} of a 0-d array ({x.aval})")
    return x, normalize_axis(axis, x.ndim)


def _argsort(x: TracedTensor, axis: int, descending: bool) -> TracedTensor:
    if not descending:
        return sort_all([x, iota_like(x, axis)], axis)[1]
    # A stable descending order: sort the reversed array, reverse the result, and map the
    # positions back; equal elements then keep their original order.
    reversed_order = sort_all([flip(x, axis), iota_like(x, axis)], axis)[1]
    last = constant(np.int64(x.shape[axis] - 1))
    return add(last, -flip(reversed_order, axis))


def _sort_function(name: str, indices: bool, doc: str):
    """numpy.sort or numpy.argsort (one signature: `kind=` and `stable=` are accepted and
    ignored, every sort being stable; `descending=` as jax.numpy)."""

    def fn(
        a: ArrayLike,
        axis: int | None = -1,
        kind: str | None = None,
        order: Any = None,
        *,
        stable: bool | None = None,
        descending: bool = False,
    ) -> TracedTensor:
        if order is not None:
            raise UnsupportedOperationError(f"{name}: order= (structured arrays) is not supported")
        x, axis = _along(a, axis)
        if indices:
            return _argsort(x, axis, descending)
        if descending:
            return take_along_axis(x, _argsort(x, axis, True), axis, mode="clip")
        return sort_all([x], axis)[0]

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


sort = _sort_function("sort", False, "numpy.sort (stable, NaNs last).")
argsort = _sort_function("argsort", True, "numpy.argsort (stable, NaNs last; int64 indices).")


def lexsort(keys: Sequence[ArrayLike], axis: int = -1) -> TracedTensor:
    """numpy.lexsort: indices sorting by the last key first, then the one before, ..."""
    arrays = broadcast_arrays(*keys) if len(keys) else []
    if not arrays:
        raise ParameterError("lexsort: needs at least one key")
    if arrays[0].ndim == 0:
        raise ShapeError("lexsort: keys must have at least one dimension")
    axis = normalize_axis(axis, arrays[0].ndim)
    ordered = list(reversed(arrays))
    return sort_all([*ordered, iota_like(ordered[0], axis)], axis, num_keys=len(keys))[-1]


def _check_kth(kth: Any, x: TracedTensor, axis: int) -> None:
    n = x.shape[axis]
    for k in np.ravel(np.asarray(kth)):
        if not isinstance(n, int):
            return
        if not -n <= int(k) < n:
            raise ParameterError(f"kth(={int(k)}) out of bounds ({n}) for {x.aval}")


def partition(a: ArrayLike, kth: Any, axis: int = -1) -> TracedTensor:
    """numpy.partition, as a full sort (which meets its contract for every kth)."""
    x, axis = _along(a, axis)
    _check_kth(kth, x, axis)
    return sort(x, axis)


def argpartition(a: ArrayLike, kth: Any, axis: int = -1) -> TracedTensor:
    """numpy.argpartition, as a full argsort (which meets its contract for every kth)."""
    x, axis = _along(a, axis)
    _check_kth(kth, x, axis)
    return argsort(x, axis)


# --- searchsorted ------------------------------------------------------------------------------


def _before(a: TracedTensor, v: TracedTensor, side: str) -> TracedTensor:
    """Whether a sorts before v (side='left': a < v) or not after it (side='right': a <= v),
    in numpy's order where NaN is the largest value."""
    if side == "left":
        return logical_or(a < v, logical_and(isnan(v), logical_not(isnan(a))))
    return logical_or(a <= v, isnan(v))


def searchsorted(
    a: ArrayLike,
    v: ArrayLike,
    side: str = "left",
    sorter: ArrayLike | None = None,
    *,
    method: str = "scan",
) -> TracedTensor:
    """numpy.searchsorted on a sorted 1-D `a`: int32 indices of v's shape (as jax.numpy).
    `method` as jax.numpy: 'scan' (and 'scan_unrolled') is a binary search of
    ceil(log2(n + 1)) steps (gathers), 'compare_all' (and 'sort') compares every pair
    (n x size(v) booleans); all give the same answer."""
    if side not in ("left", "right"):
        raise ParameterError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if method not in ("scan", "scan_unrolled", "compare_all", "sort"):
        raise ParameterError(
            "searchsorted: method must be 'scan', 'scan_unrolled', 'sort' or 'compare_all', "
            f"got {method!r}"
        )
    x, values = asarray(a), asarray(v)
    if x.ndim != 1:
        raise ShapeError(f"searchsorted: a must be 1-D, got {x.aval}")
    if x.shape[0] == 0:  # every value goes in front
        return constant(np.zeros(values.shape, np.int32))
    if sorter is not None:
        x = take(x, sorter)
    x, values = promote(x, values)
    n = x.shape[0]
    if method in ("compare_all", "sort") or not isinstance(n, int):
        grid = _before(reshape(x, (n,) + (1,) * values.ndim), values, side)
        return sum(grid.astype(dt.int32), axis=0, dtype=dt.int32)
    lo = constant(np.zeros(values.shape, np.int64)) if values.ndim else constant(np.int64(0))
    hi = add(lo, n)
    for _ in range(int(np.ceil(np.log2(n + 1)))):
        mid = (lo + hi) // 2
        right = logical_and(_before(take(x, mid, mode="clip"), values, side), mid < hi)
        lo, hi = where(right, mid + 1, lo), where(right, hi, mid)
    return lo.astype(dt.int32)


# --- unique --------------------------------------------------------------------------------------


def unique(
    ar: ArrayLike,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> Any:
    """numpy.unique. The number of unique values depends on the data: on a concrete array it
    is read from the values (the unique values are still gathered from `ar`, so derivatives
    flow); under jit give `size=` (as jax.numpy): the first `size` unique values, padded with
    `fill_value` (default: the smallest value), padded counts 0."""
    x = asarray(ar)
    flags = (return_index, return_inverse, return_counts)
    if size is None:
        if x._unbound:
            raise ConcretizationError(
                f"unique: the number of unique values of a traced value ({x.aval}) depends on "
                "data only known when the program runs (under jit); pass size= (and fill_value=)"
            )
        axis = None if axis is None else normalize_axis(axis, x.ndim)
        return _unique_concrete(x, flags, axis, equal_nan)
    if axis is not None:
        raise UnsupportedOperationError("unique: axis= with size= is not supported")
    values, *extras = _unique_sized(ravel(x), equal_nan, int(size), fill_value)
    extras[1] = reshape(extras[1], x.shape)  # the inverse has the input's shape (numpy 2)
    return _pack(values, extras, flags)


def _pack(values: TracedTensor, extras: list[TracedTensor], flags: tuple) -> Any:
    chosen = [e for e, f in zip(extras, flags) if f]
    return (values, *chosen) if chosen else values


def _unique_concrete(x: TracedTensor, flags: tuple, axis: int | None, equal_nan: bool) -> Any:
    value = x._concrete("unique")
    _, index, inverse, counts = np.unique(value, True, True, True, axis=axis, equal_nan=equal_nan)
    if axis is None:
        values = take(ravel(x), index.astype(np.int64))
    else:
        values = take(x, index.astype(np.int64), axis=axis)
    extras = [constant(a.astype(np.int64)) for a in (index, inverse, counts)]
    return _pack(values, extras, flags)


def _unique_sized(
    x: TracedTensor, equal_nan: bool, size: int, fill_value: Any
) -> list[TracedTensor]:
    """(values, index, inverse, counts) of the first `size` unique values of 1-D `x`."""
    n = x.shape[0]
    if not isinstance(n, int):
        raise UnsupportedOperationError("unique(size=) needs a static array size")
    positions = iota_like(x, 0)
    ordered, perm = sort_all([x, positions], 0)
    if n == 0:
        raise ShapeError("unique(size=): the array is empty")
    same = equal(ordered[1:], ordered[:-1])
    if equal_nan and x.dtype.kind in "fc":
        same = logical_or(same, logical_and(isnan(ordered[1:]), isnan(ordered[:-1])))
    first = concatenate([constant(np.array([True])), logical_not(same)])
    # positions of the run starts, in order, then n for every other slot
    starts = sort_all([where(first, positions, n)], 0)[0]
    if size + 1 > n:
        starts = concatenate([starts, constant(np.full(size + 1 - n, n, np.int64))])
    valid = starts[:size] < n
    fill = ordered[0] if fill_value is None else asarray(fill_value).astype(x.dtype)
    values = where(valid, take(ordered, starts[:size], mode="clip"), fill)
    index = where(valid, take(perm, starts[:size], mode="clip"), perm[0])  # JAX pads: perm[0]
    counts = starts[1 : size + 1] - starts[:size]
    run = cumsum(first.astype(_INDEX)) - 1  # the unique value each sorted element belongs to
    inverse = sort_all([perm, run], 0)[1]  # back to the original order
    return [values, index, inverse, counts]


class UniqueAllResult(NamedTuple):
    values: TracedTensor
    indices: TracedTensor
    inverse_indices: TracedTensor
    counts: TracedTensor


class UniqueCountsResult(NamedTuple):
    values: TracedTensor
    counts: TracedTensor


class UniqueInverseResult(NamedTuple):
    values: TracedTensor
    inverse_indices: TracedTensor


def unique_values(x: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> Any:
    """numpy.unique_values (NaNs kept apart, as numpy's); `size=` as jax.numpy."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> Any:
    """numpy.unique_counts: (values, counts)."""
    out = unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value)
    return UniqueCountsResult(*out)


def unique_inverse(x: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> Any:
    """numpy.unique_inverse: (values, inverse_indices of x's shape)."""
    out = unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value)
    return UniqueInverseResult(out[0], reshape(out[1], asarray(x).shape))


def unique_all(x: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> Any:
    """numpy.unique_all: (values, indices, inverse_indices of x's shape, counts)."""
    values, index, inverse, counts = unique(
        x, True, True, True, equal_nan=False, size=size, fill_value=fill_value
    )
    return UniqueAllResult(values, index, reshape(inverse, asarray(x).shape), counts)


__all__ = [
    "argpartition",
    "argsort",
    "lexsort",
    "partition",
    "searchsorted",
    "sort",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
]
