"""numpy's slice semantics on static and symbolic axes, lowered to the `slice` row.

On a static axis `slice.indices` gives numpy's answer. On a symbolic axis of size `n` the
bounds are clamped exactly as numpy clamps them, with `dim_min`/`dim_max`, so the result's
size is always right (`x[1:]` has size `max(n - 1, 0)`, `x[:k]` has `min(k, n)`) and no
run-time guard is needed; integer indices on a symbolic axis add a guard that the selected
extent is 1 (the index is in bounds).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tf8.errors import IndexingError, UnsupportedOperationError
from tf8.lax.core import apply1
from tf8.ops import switches
from tf8.ops.shapes import Dim, DimExpr, dim_max, dim_min, dims_equal
from tf8.traced import TracedTensor


@dataclass(frozen=True, slots=True)
class AxisSlice:
    """What one axis of a basic index selects: `start:limit:step`, after an optional flip."""

    start: Dim
    limit: Dim
    step: int
    flip: bool = False

    @property
    def size(self) -> Dim:
        extent = self.limit - self.start
        return extent if self.step == 1 else (extent + self.step - 1) // self.step


def _bound(value: object, what: str) -> int | DimExpr | None:
    if value is None or isinstance(value, DimExpr):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, TracedTensor):
        raise UnsupportedOperationError(
            f"slice {what} must be a Python int, got a traced value ({value.aval}); the result's "
            "shape would depend on data (use tf8.numpy.take or lax-style dynamic_slice)"
        )
    try:
        return int(value.__index__())  # type: ignore[attr-defined]
    except (AttributeError, TypeError):
        raise IndexingError(f"slice {what} must be an integer or None, got {value!r}") from None


def clamp_slice(item: slice, dim: Dim) -> AxisSlice:
    """numpy's meaning of `item` on an axis of size `dim` (ints or DimExprs)."""
    start, stop = _bound(item.start, "start"), _bound(item.stop, "stop")
    step = _bound(item.step, "step")
    step = 1 if step is None else step
    if isinstance(step, DimExpr):
        raise UnsupportedOperationError("a slice step must be a Python int, not symbolic")
    if step == 0:
        raise IndexingError("slice step cannot be zero")
    if isinstance(dim, int) and not isinstance(start, DimExpr) and not isinstance(stop, DimExpr):
        lo, hi, st = slice(start, stop, step).indices(dim)
        if st > 0:
            n = max(0, -(-(hi - lo) // st))
            return AxisSlice(lo, lo + (n - 1) * st + 1 if n else lo, st)
        # Reverse the axis, then take the equivalent forward slice.
        lo, hi, st = dim - 1 - lo, dim - 1 - hi, -st
        n = max(0, -(-(hi - lo) // st))
        return AxisSlice(lo, lo + (n - 1) * st + 1 if n else lo, st, flip=True)
    if step < 0:
        if start is None and stop is None:
            return AxisSlice(0, dim, -step, flip=True)
        raise UnsupportedOperationError(
            f"a negative-step slice with bounds on the symbolic axis of size {dim} is not "
            "supported; flip first (tf8.numpy.flip), then slice forwards"
        )
    begin = _clamp_bound(start, dim, 0)
    end = _clamp_bound(stop, dim, dim)
    if dims_equal(begin, 0) is True:
        extent = end
    elif stop is None and isinstance(start, int) and start > 0:
        extent = dim_max(dim - start, 0)
    elif stop is None and isinstance(start, int) and start < 0:
        extent = dim_min(-start, dim)
    else:
        extent = dim_max(end - begin, 0)
    return AxisSlice(begin, begin + extent, step)


def _clamp_bound(bound: int | DimExpr | None, dim: Dim, default: Dim) -> Dim:
    """A slice bound clamped into [0, dim] the way numpy clamps it."""
    if bound is None:
        return default
    if isinstance(bound, int) and bound < 0:
        return dim_max(dim + bound, 0)
    return dim_min(bound, dim)


def index_slice(index: int, dim: Dim, axis: int) -> AxisSlice:
    """The one-element slice an integer index selects. Out of bounds it is clamped into the
    axis, as JAX clamps it (IndexingError with `tf8_strict_indexing` on, or on an empty axis)."""
    if isinstance(dim, int):
        if not -dim <= index < dim:
            if switches.strict_indexing or dim == 0:
                raise IndexingError(
                    f"index {index} is out of bounds for axis {axis} with size {dim}"
                    + ("" if dim == 0 else " (tf8_strict_indexing is on; JAX clamps it)")
                )
            index = min(max(index + dim if index < 0 else index, 0), dim - 1)
        index %= dim
        return AxisSlice(index, index + 1, 1)
    # Symbolic: clamp both bounds; the caller's reshape guards that the extent is 1.
    if index >= 0:
        return AxisSlice(dim_min(index, dim), dim_min(index + 1, dim), 1)
    return AxisSlice(dim_max(dim + index, 0), dim_max(dim + index + 1, 0), 1)


def apply_slices(x: TracedTensor, slices: list[AxisSlice]) -> TracedTensor:
    """`x` with one AxisSlice per axis applied (a reverse, then one slice; no-ops skipped)."""
    flips = tuple(axis for axis, s in enumerate(slices) if s.flip)
    out = apply1("reverse", [x], axes=flips) if flips else x
    starts = tuple(s.start for s in slices)
    limits = tuple(s.limit for s in slices)
    steps = tuple(s.step for s in slices)
    trivial = all(
        dims_equal(s.start, 0) is True and dims_equal(s.limit, d) is True and s.step == 1
        for s, d in zip(slices, x.shape)
    )
    if trivial:
        return out
    strides = None if all(st == 1 for st in steps) else steps
    return apply1("slice", [out], start=starts, limit=limits, strides=strides)


def slice_axis(x: TracedTensor, axis: int, item: slice) -> TracedTensor:
    """`x[..., item, ...]` with `item` on `axis` only (numpy's clamping)."""
    slices = [AxisSlice(0, d, 1) for d in x.shape]
    slices[axis] = clamp_slice(item, x.shape[axis])
    return apply_slices(x, slices)
