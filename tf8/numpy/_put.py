"""jax.numpy's functional versions of numpy's in-place writers: put, place, put_along_axis and
fill_diagonal return an updated copy when called with `inplace=False` (as jax.numpy; the
default `inplace=True` is refused, since traced values are immutable).

Each one turns its arguments into flat positions of the array and the values to write there,
then writes them with one scatter (`_at.set_flat`). Positions out of range are dropped (JAX's
'drop' mode); negative ones count from the end first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import (
    DTypeError,
    ParameterError,
    ShapeError,
    UnsupportedOperationError,
)
from tf8.lax.core import apply1
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._arithmetic import add, clip, multiply, remainder
from ._at import set_flat
from ._core import ArrayLike, asarray, astype, broadcast_to, normalize_axis
from ._indexing import take
from ._logic import greater_equal, less, logical_and, where
from ._nonzero import nonzero
from ._shape import ravel, reshape

_IN_PLACE = "it writes in place and traced values are immutable; pass inplace=False for a copy"


def _refuse_in_place(name: str, inplace: bool) -> None:
    if inplace:
        raise UnsupportedOperationError(f"numpy.{name}: {_IN_PLACE}")


def _tile_to(v: TracedTensor, size: int) -> TracedTensor:
    """The flat `v` repeated (or cut) to `size` values, as jax.numpy's `_tile_to_size`."""
    return take(v, np.arange(size) % v.shape[0])


def _int_index(name: str, index: ArrayLike) -> np.ndarray | TracedTensor:
    """Integer indices: a numpy array when constant, else a traced int64 array."""
    if isinstance(index, TracedTensor):
        if index.dtype not in dt.INTEGERS:
            raise DTypeError(f"{name}: indices must be integers, got {index.aval}")
        return index if index.dtype == dt.int64 else apply1("convert", [index], dtype=dt.int64)
    array = np.asarray(index)
    if array.dtype.kind not in "iu":
        raise DTypeError(f"{name}: indices must be integers, got {array.dtype}")
    return array.astype(np.int64)


def _in_range(index: Any, size: Any) -> Any:
    """Negative indices wrapped once; those still out of [0, size) become `size` (dropped)."""
    if isinstance(index, np.ndarray):
        index = np.where(index < 0, index + size, index)
        return np.where((index >= 0) & (index < size), index, size)
    index = where(less(index, 0), add(index, size), index)
    return where(logical_and(greater_equal(index, 0), less(index, size)), index, size)


def _clip(index: Any, size: Any) -> Any:
    if isinstance(index, np.ndarray):
        return np.clip(index, 0, size - 1)
    return clip(index, 0, size - 1)


def put(
    a: ArrayLike, ind: ArrayLike, v: ArrayLike, mode: str | None = None, *, inplace: bool = True
) -> TracedTensor:
    """numpy.put as jax.numpy (`inplace=False`): a copy of `a` with the flat positions `ind`
    set to `v` (repeated to their number). Out of range: dropped (mode None), clipped
    ('clip') or wrapped ('wrap')."""
    _refuse_in_place("put", inplace)
    x = asarray(a)
    index = _int_index("put", ind).reshape(-1)
    values = ravel(asarray(v))
    if x.size == 0 or index.size == 0 or values.size == 0:
        return x
    size = x.size
    if mode is None:
        index = _in_range(index, size)
    elif mode == "clip":
        index = _clip(index, size)
    elif mode == "wrap":
        index = index % size if isinstance(index, np.ndarray) else remainder(index, size)
    elif mode == "raise":
        raise UnsupportedOperationError("put: mode='raise' is not supported (as jax.numpy)")
    else:
        raise ParameterError(f"put: mode must be None, 'clip' or 'wrap', got {mode!r}")
    out = set_flat(ravel(x), index, _tile_to(astype(values, x.dtype), index.size))
    return reshape(out, x.shape)


def place(arr: ArrayLike, mask: ArrayLike, vals: ArrayLike, *, inplace: bool = True) -> Any:
    """numpy.place as jax.numpy (`inplace=False`): a copy of `arr` whose positions where
    `mask` holds take `vals` in turn (repeated as needed)."""
    _refuse_in_place("place", inplace)
    x, m, values = asarray(arr), asarray(mask), ravel(asarray(vals))
    if x.size != m.size:
        raise ShapeError(f"place: arr {x.aval} and mask {m.aval} must have the same size")
    if values.size == 0:
        raise ShapeError("place: cannot place values from an empty array")
    if x.size == 0:
        return x
    (index,) = nonzero(ravel(m), size=m.size, fill_value=m.size)
    out = set_flat(ravel(x), index, _tile_to(astype(values, x.dtype), m.size))
    return reshape(out, x.shape)


def put_along_axis(
    arr: ArrayLike,
    indices: ArrayLike,
    values: ArrayLike,
    axis: int | None,
    inplace: bool = True,
    *,
    mode: str | None = None,
) -> TracedTensor:
    """numpy.put_along_axis as jax.numpy (`inplace=False`): a copy of `arr` with
    `arr[..., indices[...], ...]` (along `axis`) set to `values`; indices out of range are
    dropped (mode None) or clipped ('clip')."""
    _refuse_in_place("put_along_axis", inplace)
    x = asarray(arr)
    shape = x.shape
    if axis is None:
        x, axis = ravel(x), 0
    index = _int_index("put_along_axis", indices)
    if index.ndim != x.ndim:
        raise ShapeError(
            f"put_along_axis: arr {x.aval} and indices of shape {index.shape} must have the "
            "same number of dimensions"
        )
    axis = normalize_axis(axis, x.ndim)
    try:
        v = broadcast_to(astype(asarray(values), x.dtype), tuple(index.shape))
    except ShapeError as exc:
        raise ShapeError(f"put_along_axis: values must broadcast to indices: {exc}") from None
    n = x.shape[axis]
    if mode == "clip":
        along = _clip(index, n)
    elif mode in (None, "drop", "fill"):
        along = _in_range(index, n)
    else:
        raise ParameterError(f"put_along_axis: mode must be None or 'clip', got {mode!r}")
    strides = np.cumprod((1,) + x.shape[:0:-1])[::-1]
    grid = np.indices(index.shape, sparse=True)
    others = sum(int(strides[d]) * grid[d] for d in range(x.ndim) if d != axis)
    invalid = x.size  # past the end: dropped
    if isinstance(along, np.ndarray):
        flat = np.where(along < n, along * int(strides[axis]) + others, invalid)
    else:
        position = add(multiply(along, int(strides[axis])), np.asarray(others, np.int64))
        flat = where(less(along, n), position, invalid)
    out = set_flat(ravel(x), flat, ravel(v))
    return reshape(out, shape)


def fill_diagonal(
    a: ArrayLike, val: ArrayLike, wrap: bool = False, *, inplace: bool = True
) -> TracedTensor:
    """numpy.fill_diagonal as jax.numpy (`inplace=False`): a copy of `a` (2-D, or N-D with
    equal sides) with its main diagonal set to `val` (a scalar, or values repeated/cut to
    the diagonal's length)."""
    _refuse_in_place("fill_diagonal", inplace)
    if wrap:
        raise UnsupportedOperationError("fill_diagonal: wrap=True is not supported (as jax.numpy)")
    x, v = asarray(a), asarray(val)
    if x.ndim < 2:
        raise ShapeError(f"fill_diagonal: the array must be at least 2-D, got {x.aval}")
    if x.ndim > 2 and len(set(x.shape)) != 1:
        raise ShapeError(f"fill_diagonal: every axis must have the same length, got {x.aval}")
    n = min(x.shape)
    strides = np.cumprod((1,) + x.shape[:0:-1])[::-1]
    positions = np.arange(n, dtype=np.int64) * int(np.sum(strides))
    values = astype(v, x.dtype)
    values = broadcast_to(values, (n,)) if values.ndim == 0 else _tile_to(ravel(values), n)
    return reshape(set_flat(ravel(x), positions, values), x.shape)


def trim_zeros(filt: ArrayLike, trim: str = "fb", axis: Any = None) -> TracedTensor:
    """numpy.trim_zeros of a 1-D array: the slice without the leading ('f') and/or trailing
    ('b') zeros. Its length depends on the values: known op by op, not under jit."""
    x = asarray(filt)
    if axis is not None:
        raise UnsupportedOperationError("trim_zeros: axis= is not supported")
    if x.ndim != 1:
        raise ShapeError(f"trim_zeros: the array must be 1-D, got {x.aval}")
    trim = trim.lower()
    if not set(trim) <= {"f", "b"}:
        raise ParameterError(f"trim_zeros: trim must contain only 'f' and 'b', got {trim!r}")
    nonzero_at = np.flatnonzero(x._concrete("trim_zeros: the length of the result"))
    if nonzero_at.size == 0:
        return x[0:0]
    start = int(nonzero_at[0]) if "f" in trim else 0
    stop = int(nonzero_at[-1]) + 1 if "b" in trim else x.shape[0]
    return x[start:stop]


__all__ = ["fill_diagonal", "place", "put", "put_along_axis", "trim_zeros"]
