"""numpy.pad's value-building modes, as jax.numpy builds them (axis by axis, each axis padding
the array the earlier axes produced): the statistics (maximum, minimum, mean, median over
`stat_length` elements at each end), linear_ramp (from `end_values` to the edge) and odd
reflection (reflect/symmetric with `reflect_type='odd'`: `2 * edge - mirror image`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import ShapeError
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._arithmetic import add, multiply, subtract
from ._core import ArrayLike, asarray, astype, broadcast_to, constant
from ._extremes import max as max_
from ._extremes import min as min_
from ._float_ufuncs import floor, rint
from ._rearrange import flip
from ._reductions import mean
from ._shape import concatenate
from ._slicing import slice_axis
from .quantiles import median


def _pairs(name: str, value: Any, ndim: int) -> np.ndarray:
    """A per-axis (before, after) table, numpy's broadcasting of pad arguments."""
    try:
        return np.broadcast_to(np.asarray(value), (ndim, 2))
    except ValueError:
        raise ShapeError(f"pad: {name} {value!r} must broadcast to ({ndim}, 2)") from None


def _static(x: TracedTensor, axis: int, mode: str) -> int:
    n = x.shape[axis]
    if not isinstance(n, int):
        raise ShapeError(f"pad: mode {mode!r} needs a static axis {axis}, got {x.aval}")
    return n


def _ends(x: TracedTensor, axis: int) -> tuple[TracedTensor, TracedTensor]:
    return slice_axis(x, axis, slice(0, 1)), slice_axis(x, axis, slice(-1, None))


def _spread(value: TracedTensor, x: TracedTensor, axis: int, width: int) -> TracedTensor:
    return broadcast_to(value, x.shape[:axis] + (width,) + x.shape[axis + 1 :])


_STATISTICS: dict[str, Callable[..., TracedTensor]] = {
    "maximum": max_,
    "minimum": min_,
    "mean": mean,
    "median": median,
}


def pad_statistic(
    x: TracedTensor, widths: list[tuple[int, int]], mode: str, stat_length: Any
) -> TracedTensor:
    """Each side padded with the statistic of the `stat_length` elements at that end (all of
    the axis by default); integer arrays round it (half to even), as jax.numpy."""
    statistic = _STATISTICS[mode]
    lengths = None if stat_length is None else _pairs("stat_length", stat_length, x.ndim)
    for axis, (lo, hi) in enumerate(widths):
        n = _static(x, axis, mode)
        if lengths is None:
            before = after = statistic(x, axis=axis, keepdims=True)
        else:
            first, last = (min(int(v), n) for v in lengths[axis])
            if first == 0 or last == 0:
                raise ShapeError("pad: stat_length of 0 yields no value for padding")
            before = statistic(slice_axis(x, axis, slice(0, first)), axis=axis, keepdims=True)
            after = statistic(slice_axis(x, axis, slice(n - last, n)), axis=axis, keepdims=True)
        if x.dtype in dt.INTEGERS:
            before, after = rint(before), rint(after)
        before, after = astype(before, x.dtype), astype(after, x.dtype)
        x = concatenate([_spread(before, x, axis, lo), x, _spread(after, x, axis, hi)], axis)
    return x


def _ramp(end: Any, edge: TracedTensor, width: int, axis: int, dtype: Any) -> TracedTensor:
    """linspace(end, edge, width, endpoint=False) along `axis` (ints floored, as JAX)."""
    shape = [1] * edge.ndim
    shape[axis] = width
    compute = dtype if dtype in dt.INEXACT else dt.float64
    steps = constant(np.arange(width, dtype=compute).reshape(shape) / max(width, 1))
    start = astype(asarray(np.asarray(end)), compute)
    ramp = add(start, multiply(subtract(astype(edge, compute), start), steps))
    return astype(floor(ramp) if dtype in dt.INTEGERS else ramp, dtype)


def pad_linear_ramp(
    x: TracedTensor, widths: list[tuple[int, int]], end_values: ArrayLike
) -> TracedTensor:
    """Each side a linear ramp from its end value up to (not including) the edge value."""
    table = _pairs("end_values", end_values, x.ndim)
    for axis, (lo, hi) in enumerate(widths):
        _static(x, axis, "linear_ramp")
        first, last = _ends(x, axis)
        before = _ramp(table[axis][0], first, lo, axis, x.dtype)
        after = flip(_ramp(table[axis][1], last, hi, axis, x.dtype), axis)
        x = concatenate([before, x, after], axis)
    return x


def pad_odd_reflection(x: TracedTensor, widths: list[tuple[int, int]], mode: str) -> TracedTensor:
    """reflect/symmetric with reflect_type='odd': each mirrored piece is `2 * edge - piece`,
    the edge moving outwards with each repetition (jax.numpy's loop, numpy's values)."""
    for axis, (lo, hi) in enumerate(widths):
        n = _static(x, axis, mode)
        if n == 0:
            if lo or hi:
                raise ShapeError(f"pad: can't extend empty axis {axis} using mode {mode!r}")
            continue
        offset = 1 if mode == "reflect" and n > 1 else 0
        for before, padding in ((True, lo), (False, hi)):
            edge = _ends(x, axis)[0 if before else 1]
            while padding > 0:
                size = min(padding, n - offset)
                padding -= size
                if before:
                    cut = slice(offset, offset + size)
                else:
                    total = x.shape[axis]
                    stop = total if mode == "symmetric" or n == 1 else total - 1
                    cut = slice(stop - size, stop)
                piece = subtract(multiply(edge, 2), flip(slice_axis(x, axis, cut), axis))
                if n > 1:
                    edge = _ends(piece, axis)[0 if before else 1]
                x = concatenate([piece, x] if before else [x, piece], axis)
    return x
