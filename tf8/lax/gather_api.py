"""`lax.gather`: JAX's signature, dimension numbers and out-of-bounds modes on tf8's `gather`
row (which clamps every start so the whole slice lies inside the operand).

Modes: CLIP and PROMISE_IN_BOUNDS (the default, as in JAX) are the row as it is;
FILL_OR_DROP selects `fill_value` wherever a window does not fit whole, as JAX lowers it
(so its derivative is the gather's, masked alike). Operand batching dimensions become index
columns (`tf8.lax.dimension_numbers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ParameterError, ShapeError, UnsupportedOperationError
from tf8.lax.builders import broadcast, compare, convert, full, reduce_sum, select
from tf8.lax.core import apply1
from tf8.lax.dimension_numbers import (
    GatherScatterMode,
    check_indices,
    fold_batching_dims,
    gather_numbers,
    parse_mode,
)
from tf8.lax.ops import _array
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.traced import TracedTensor

__all__ = ["default_fill_value", "gather", "window_fits"]


def default_fill_value(dtype: np.dtype) -> Any:
    """JAX's fill value for an out-of-bounds gather: NaN (inexact), the lowest signed or the
    highest unsigned integer, True (bool).

    >>> default_fill_value(np.dtype(np.int32))
    -2147483648
    """
    dtype = np.dtype(dtype)
    if dt.is_inexact(dtype):
        return np.nan
    if dtype == dt.bool_:
        return True
    info = np.iinfo(dtype)
    return int(info.min if dtype.kind == "i" else info.max)


def window_fits(
    indices: TracedTensor, shape: Sequence[Any], index_map: Sequence[int], window: Sequence[Any]
) -> TracedTensor | None:
    """Per index vector (bool, shape `indices.shape[:-1]`): whether its window, of size
    `window[d]` on operand axis d, lies inside `shape`; None when a size is symbolic."""
    limits = [shape[d] - window[d] for d in index_map]
    if not all(isinstance(v, (int, np.integer)) for v in limits):
        return None
    wide = convert(indices, dt.int64)
    vector = apply1("constant", [], value=np.asarray(limits, dtype=np.int64))
    top = broadcast(vector, wide.shape, (wide.ndim - 1,))
    fits = apply1("and", [compare(wide, 0, "ge"), compare(wide, top, "le")])
    count = reduce_sum(convert(fits, dt.int64), [wide.ndim - 1])
    return compare(count, len(index_map), "eq")


def _slice_sizes(slice_sizes: Any, rank: int) -> tuple[int, ...]:
    try:
        sizes = tuple(slice_sizes)
    except TypeError:
        sizes = None
    if sizes is None or any(
        isinstance(s, bool) or not isinstance(s, (int, np.integer)) for s in sizes
    ):
        raise ParameterError(f"gather: slice_sizes must be a sequence of ints, got {slice_sizes!r}")
    if len(sizes) != rank:
        raise ShapeError(
            f"gather: slice_sizes {sizes} must give one size per operand axis ({rank})"
        )
    return tuple(int(s) for s in sizes)


def gather(
    operand: Any,
    start_indices: Any,
    dimension_numbers: Any,
    slice_sizes: Sequence[int],
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode: str | GatherScatterMode | None = None,
    fill_value: Any = None,
) -> TracedTensor:
    """lax.gather: slices of `operand` of size `slice_sizes` starting at `start_indices`.

    Args:
      operand: the array to read.
      start_indices: integer array whose last axis is the index vector (one start per entry
        of `dimension_numbers.start_index_map`).
      dimension_numbers: a `GatherDimensionNumbers` (or a tuple of its fields).
      slice_sizes: one size per operand axis.
      unique_indices, indices_are_sorted: hints, accepted and not needed here.
      mode: out-of-bounds windows: None or 'promise_in_bounds' and 'clip' clamp the start
        (JAX's default for gather is PROMISE_IN_BOUNDS, which XLA clamps); 'fill' or 'drop'
        give `fill_value` for the whole window.
      fill_value: for 'fill': a scalar, cast to the operand's dtype; default NaN for
        inexact dtypes, the lowest signed / highest unsigned integer, True for bool.

    Differences from JAX: none known; `dimension_numbers` may also be a plain tuple.

    >>> import numpy as np, tf8
    >>> numbers = tf8.lax.GatherDimensionNumbers(
    ...     offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    >>> x, idx = np.array([10.0, 11.0, 12.0]), np.array([[2], [0], [5]])
    >>> tf8.lax.gather(x, idx, numbers, (1,))
    Array([12., 10., 12.], dtype=float64)
    >>> tf8.lax.gather(x, idx, numbers, (1,), mode="fill", fill_value=-1.0)
    Array([12., 10., -1.], dtype=float64)
    """
    x, indices = _array(operand), _array(start_indices)
    numbers = gather_numbers(dimension_numbers)
    parsed = parse_mode(mode, GatherScatterMode.PROMISE_IN_BOUNDS, "gather")
    check_indices(indices, "gather", "start_indices")
    sizes = _slice_sizes(slice_sizes, x.ndim)
    index_map = numbers.start_index_map
    if len(index_map) != indices.shape[-1]:
        raise ShapeError(
            f"gather: start_index_map {index_map} has {len(index_map)} entries but the index "
            f"vectors (last axis of start_indices {indices.aval}) have {indices.shape[-1]}"
        )
    batching = numbers.operand_batching_dims
    folded = fold_batching_dims(
        x,
        indices,
        batching,
        numbers.start_indices_batching_dims,
        {"collapsed_slice_dims": numbers.collapsed_slice_dims, "start_index_map": index_map},
        "gather",
    )
    bad = [a for a in batching if sizes[a] != 1]
    if bad:
        raise ShapeError(
            f"gather: slice_sizes {sizes} must be 1 on the operand_batching_dims {batching}"
        )
    collapsed = numbers.collapsed_slice_dims
    if list(collapsed) != sorted(collapsed):
        raise ShapeError(f"gather: collapsed_slice_dims {collapsed} must be sorted")
    out = apply1(
        "gather",
        [x, folded],
        offset_dims=numbers.offset_dims,
        collapsed_slice_dims=tuple(sorted(collapsed + batching)),
        start_index_map=index_map + batching,
        slice_sizes=sizes,
    )
    if parsed is not GatherScatterMode.FILL_OR_DROP:
        return out
    if fill_value is None:
        fill_value = default_fill_value(x.dtype)
    elif np.ndim(fill_value) != 0 or isinstance(fill_value, TracedTensor):
        raise ParameterError(
            f"gather: fill_value must be a Python or numpy scalar, got {fill_value!r}"
        )
    fits = window_fits(indices, x.shape, index_map, sizes)
    if fits is None:
        raise UnsupportedOperationError(
            f"gather: mode FILL_OR_DROP needs the operand's sizes along start_index_map "
            f"{index_map} known when traced, got operand {x.aval}"
        )
    batch_axes = [a for a in range(out.ndim) if a not in numbers.offset_dims]
    mask = broadcast(fits, out.shape, batch_axes)
    with np.errstate(invalid="ignore"):
        fill = np.asarray(fill_value).astype(x.dtype)
    return select(mask, out, full(Aval(out.shape, x.dtype), fill))
