"""JAX's out-of-bounds modes for `x.at[index]`: what an index outside an axis reads or writes.

- `get`: by default (and with mode 'clip' or 'promise_in_bounds') an out-of-bounds index is
  clamped into the axis, as `x[index]` is; with mode 'fill' it reads `fill_value` (NaN for
  inexact dtypes, the lowest signed / highest unsigned integer, True).
- updates (`set`, `add`, ...): by default (and with mode 'drop' or 'fill') an out-of-bounds
  update is dropped; with mode 'clip' or 'promise_in_bounds' its index is clamped.

Filling and dropping pad each axis an integer index may leave by one slot, and send the
out-of-bounds indices there: a get reads the pad (`fill_value`), an update writes it and the
pad is cut off. Constant indices that are all in bounds need no pad.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import ParameterError
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from . import _arithmetic as arithmetic
from ._core import asarray, full_of
from ._indexing import _items, expand_ellipsis, is_int_index
from ._logic import greater_equal, less, logical_and, where
from ._shape import concatenate

MODES = ("clip", "fill", "drop", "promise_in_bounds")


def mode_name(mode: Any, what: str) -> str | None:
    """JAX's mode (a string or a GatherScatterMode-like enum) as its lower-case name."""
    if mode is None:
        return None
    name = getattr(mode, "name", mode)
    name = name.lower() if isinstance(name, str) else name
    if name == "fill_or_drop":
        name = "fill"
    if name not in MODES:
        raise ParameterError(f"{what}: unknown mode {mode!r} (JAX's: {', '.join(MODES)})")
    return name


def default_fill(dtype: np.dtype) -> Any:
    """JAX's fill value for a 'fill' get of this dtype."""
    if dt.is_inexact(dtype):
        return np.nan
    if dtype == dt.bool_:
        return True
    info = np.iinfo(dtype)
    return info.min if dtype.kind == "i" else info.max


def bounded(x: TracedTensor, index: Any, clamp: bool, fill: Any) -> tuple[TracedTensor, Any, list]:
    """(x, index, padded axes): with `clamp`, every integer index clamped into its axis;
    else the out-of-bounds ones sent to a pad slot (holding `fill`) added to their axis."""
    expanded = expand_ellipsis(_items(index), x.ndim)
    items, padded, axis = [], [], 0
    for item in expanded:
        if item is None or isinstance(item, slice):
            items.append(item)
            axis += item is not None
            continue
        dim = x.shape[axis]
        if isinstance(dim, int) and dim > 0:
            item = _bounded_index(item, dim, clamp)
            if item is None:  # out of bounds: to the pad slot
                item = _to_pad(expanded[len(items)], dim)
                padded.append(axis)
        items.append(item)
        axis += 1
    for a in sorted(set(padded)):
        pad_shape = tuple(1 if k == a else d for k, d in enumerate(x.shape))
        x = concatenate([x, full_of(fill, pad_shape, x.dtype)], axis=a)
    return x, tuple(items), sorted(set(padded))


def _wrap(i: Any, dim: int) -> Any:
    if isinstance(i, TracedTensor):
        return where(less(i, 0), arithmetic.add(i, dim), i)
    array = np.asarray(i, dtype=np.int64)
    return np.where(array < 0, array + dim, array)


def _bounded_index(item: Any, dim: int, clamp: bool) -> Any:
    """The index with negatives wrapped: clamped into [0, dim) with `clamp`; None when it may
    leave the axis (a traced index, or a constant one out of bounds) and must go to a pad."""
    if is_int_index(item):  # the common case, in Python ints
        i = int(item) + dim if item < 0 else int(item)
        if 0 <= i < dim:
            return i
        return min(max(i, 0), dim - 1) if clamp else None
    wrapped = _wrap(item, dim)
    if clamp:
        if isinstance(wrapped, TracedTensor):
            return arithmetic.minimum(arithmetic.maximum(wrapped, 0), dim - 1)
        return _scalar_or_array(np.clip(wrapped, 0, dim - 1), item)
    if isinstance(wrapped, TracedTensor):
        return None
    if wrapped.size and (wrapped.min() < 0 or wrapped.max() >= dim):
        return None
    return _scalar_or_array(wrapped, item)


def _to_pad(item: Any, dim: int) -> Any:
    """The index with its out-of-bounds entries pointing at the pad slot `dim`."""
    wrapped = _wrap(item, dim)
    if isinstance(wrapped, TracedTensor):
        inside = logical_and(greater_equal(wrapped, 0), less(wrapped, dim))
        return where(inside, wrapped, asarray(dim).astype(wrapped.dtype))
    inside = (wrapped >= 0) & (wrapped < dim)
    return _scalar_or_array(np.where(inside, wrapped, dim), item)


def _scalar_or_array(array: np.ndarray, like: Any) -> Any:
    """A Python int where the index was one (a basic index keeps its meaning), else the array."""
    return int(array) if is_int_index(like) else array


def trim(x: TracedTensor, padded: list, shape: tuple) -> TracedTensor:
    """`x` without the pad slots `bounded` added."""
    if not padded:
        return x
    return x[tuple(slice(0, d) if a in padded else slice(None) for a, d in enumerate(shape))]
