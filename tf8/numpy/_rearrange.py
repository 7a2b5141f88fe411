"""Rearranging elements: flip, roll, rot90, tile, repeat, diff."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ConcretizationError, ShapeError
from tf8.lax.core import apply1
from tf8.ops import dtypes as dt
from tf8.ops.shapes import Dim, dims_equal
from tf8.traced import TracedTensor

from ._arithmetic import remainder, subtract
from ._core import ArrayLike, asarray, broadcast_to, normalize_axes, normalize_axis, shape_of
from ._indexing import take
from ._logic import less_equal, not_equal
from ._reductions import cumsum
from ._reductions import sum as sum_
from ._shape import concatenate, ravel, reshape, swapaxes
from ._slicing import AxisSlice, apply_slices


def flip(m: ArrayLike, axis: int | Sequence[int] | None = None) -> TracedTensor:
    """Reverse the order of elements along `axis` (all axes when None)."""
    x = asarray(m)
    axes = normalize_axes(axis, x.ndim)
    return apply1("reverse", [x], axes=axes) if axes else x


def fliplr(m: ArrayLike) -> TracedTensor:
    """flip(m, 1) (needs at least 2 axes)."""
    x = asarray(m)
    if x.ndim < 2:
        raise ShapeError(f"fliplr: input must be >= 2-d, got {x.aval}")
    return flip(x, 1)


def flipud(m: ArrayLike) -> TracedTensor:
    """flip(m, 0) (needs at least 1 axis)."""
    x = asarray(m)
    if x.ndim < 1:
        raise ShapeError(f"flipud: input must be >= 1-d, got {x.aval}")
    return flip(x, 0)


def _cut(x: TracedTensor, axis: int, lo: Dim, hi: Dim) -> TracedTensor:
    slices = [AxisSlice(0, d, 1) for d in x.shape]
    slices[axis] = AxisSlice(lo, hi, 1)
    return apply_slices(x, slices)


def _roll_axis(x: TracedTensor, shift: Any, axis: int) -> TracedTensor:
    n = x.shape[axis]
    if isinstance(shift, TracedTensor):
        ramp = apply1("iota", [], shape=(n,), dtype=dt.int64, dimension=0)
        size = n if isinstance(n, int) else shape_of(x, axis)
        return take(x, remainder(subtract(ramp, shift), size), axis, mode="clip")  # in range
    if isinstance(n, int) and n == 0:
        return x
    k = int(shift) % n  # symbolic n: a `mod` dimension
    if dims_equal(k, 0) is True:
        return x
    return concatenate([_cut(x, axis, n - k, n), _cut(x, axis, 0, n - k)], axis=axis)


def roll(a: ArrayLike, shift: Any, axis: int | Sequence[int] | None = None) -> TracedTensor:
    """Shift elements cyclically along `axis` (the flattened array when None)."""
    x = asarray(a)
    if axis is None:
        return reshape(roll(ravel(x), shift, 0), x.shape)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    shifts = (shift,) if not isinstance(shift, (tuple, list)) else tuple(shift)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ShapeError(f"roll: shift {shift} and axis {axis} must have the same length")
    total: dict[int, Any] = {}
    for s, ax in zip(shifts, axes):
        ax = normalize_axis(ax, x.ndim)
        total[ax] = s if ax not in total else total[ax] + s
    for ax, s in total.items():
        x = _roll_axis(x, s, ax)
    return x


def rot90(m: ArrayLike, k: int = 1, axes: tuple[int, int] = (0, 1)) -> TracedTensor:
    """Rotate by 90 degrees `k` times in the plane of `axes` (from the first toward the second)."""
    x = asarray(m)
    if len(axes) != 2:
        raise ShapeError("rot90: len(axes) must be 2")
    a0, a1 = normalize_axis(axes[0], x.ndim), normalize_axis(axes[1], x.ndim)
    if a0 == a1:
        raise ShapeError("rot90: axes must be different")
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, a0), a1)
    if k == 1:
        return swapaxes(flip(x, a1), a0, a1)
    return flip(swapaxes(x, a0, a1), a1)


def tile(A: ArrayLike, reps: int | Sequence[int]) -> TracedTensor:  # noqa: N803 - numpy's name
    """Repeat the whole array `reps` times along each axis (broadcast + reshape)."""
    x = asarray(A)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(int(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ShapeError(f"tile: negative repetitions {reps}")
    ndim = max(x.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + tuple(reps)
    x = reshape(x, (1,) * (ndim - x.ndim) + x.shape)
    interleaved = reshape(x, tuple(d for dim in x.shape for d in (1, dim)))
    target = tuple(d for r, dim in zip(reps, x.shape) for d in (r, dim))
    return reshape(broadcast_to(interleaved, target), tuple(r * d for r, d in zip(reps, x.shape)))


def repeat(
    a: ArrayLike, repeats: Any, axis: int | None = None, *, total_repeat_length: int | None = None
) -> TracedTensor:
    """Repeat each element `repeats` times (an int, or one count per element). Counts known
    only at run time need `total_repeat_length` (as jax.numpy): the output's length, cut or
    padded with the last element."""
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(repeats, TracedTensor):
        if total_repeat_length is None:
            value = repeats._value
            if value is None:
                raise ConcretizationError(
                    f"repeat with traced repeats ({repeats.aval}): the result's length depends "
                    "on their values; pass total_repeat_length= (as jax.numpy)"
                )
            repeats = value
        else:
            index = _traced_repeat_index(repeats, n, int(total_repeat_length))
            return take(x, index, axis, mode="clip")  # in range by construction
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "iu" or (counts.size and counts.min() < 0):
        raise ShapeError(f"repeat: repeats must be non-negative integers, got {repeats!r}")
    if total_repeat_length is not None:
        if not isinstance(n, int):
            raise ShapeError(f"repeat: total_repeat_length needs a static axis {axis}")
        counts = np.broadcast_to(counts, (n,))
        return take(x, _repeat_index(counts, int(total_repeat_length)), axis)
    if counts.ndim == 0 or counts.size == 1:
        r = int(counts.reshape(-1)[0])
        spread = reshape(x, x.shape[: axis + 1] + (1,) + x.shape[axis + 1 :])
        grown = broadcast_to(spread, x.shape[: axis + 1] + (r,) + x.shape[axis + 1 :])
        return reshape(grown, x.shape[:axis] + (n * r,) + x.shape[axis + 1 :])
    if not isinstance(n, int) or counts.shape != (n,):
        raise ShapeError(f"repeat: {counts.size} repeats do not match axis {axis} of size {n}")
    return take(x, np.repeat(np.arange(n), counts), axis)


def _repeat_index(counts: np.ndarray, total: int) -> np.ndarray:
    """Output j reads the element whose run (starting at the exclusive cumsum) holds j."""
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return (starts[None, :] <= np.arange(total)[:, None]).sum(axis=1) - 1


def _traced_repeat_index(repeats: TracedTensor, n: Dim, total: int) -> TracedTensor:
    """`_repeat_index` on counts known at run time (a (total, n) comparison)."""
    counts = broadcast_to(repeats, (n,))
    starts = subtract(cumsum(counts), counts)
    ramp = reshape(apply1("iota", [], shape=(total,), dtype=dt.int64, dimension=0), (total, 1))
    hits = less_equal(reshape(starts, (1, n)), ramp)
    return subtract(sum_(hits.astype(dt.index_dtype()), axis=1), 1)


def diff(
    a: ArrayLike, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None
) -> TracedTensor:
    """numpy.diff: the n-th discrete difference along `axis` (bool: not-equal, as numpy), of
    `a` with `prepend` / `append` (scalars are broadcast to one slice) joined on first."""
    x = asarray(a)
    if x.ndim == 0:
        raise ShapeError("diff requires input that is at least one dimensional")
    if not isinstance(n, int) or n < 0:
        raise ShapeError(f"order must be non-negative but got {n!r}")
    ax = normalize_axis(axis, x.ndim)
    if prepend is not None or append is not None:
        parts = []
        for extra in (prepend, x, append):
            if extra is None:
                continue
            extra = asarray(extra)
            if extra.ndim == 0:
                extra = broadcast_to(extra, x.shape[:ax] + (1,) + x.shape[ax + 1 :])
            parts.append(extra)
        x = concatenate(parts, axis=ax)
    for _ in range(n):
        size = x.shape[ax]
        if dims_equal(size, 0) is True:
            break
        upper, lower = _cut(x, ax, 1, size), _cut(x, ax, 0, size - 1)
        x = not_equal(upper, lower) if x.dtype == dt.bool_ else subtract(upper, lower)
    return x
