"""numpy.pad: modes constant/empty (the `pad` row) and edge/reflect/symmetric/wrap (the
value-building modes are in `_pad_modes`).

On a static axis the index modes read `np.pad(arange(n), ...)`, so they are numpy's own
semantics (repeated reflection included) and lower to one `gather`. On a symbolic axis they
are built from slices and flips; a run-time guard checks the axis is long enough for the pad
(numpy would repeat the pattern there).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import ParameterError, ShapeError, UnsupportedOperationError
from tf8.lax.core import apply1
from tf8.traced import TracedTensor

from ._core import ArrayLike, asarray, astype, broadcast_to
from ._indexing import take
from ._pad_modes import pad_linear_ramp, pad_odd_reflection, pad_statistic
from ._rearrange import flip
from ._shape import concatenate, reshape
from ._slicing import slice_axis

_INDEX_MODES = ("edge", "reflect", "symmetric", "wrap")
_VALUE_MODES = ("linear_ramp", "maximum", "mean", "median", "minimum")


def _widths(pad_width: Any, ndim: int) -> list[tuple[int, int]]:
    try:
        array = np.asarray(pad_width)
        if array.dtype.kind not in "iu":
            raise TypeError
        widths = np.broadcast_to(array, (ndim, 2))
    except (TypeError, ValueError):
        raise ShapeError(
            f"pad: pad_width {pad_width!r} must be ints broadcastable to ({ndim}, 2)"
        ) from None
    if widths.size and widths.min() < 0:
        raise ShapeError(f"pad: pad_width {pad_width!r} can't contain negative values")
    return [(int(lo), int(hi)) for lo, hi in widths]


def pad(array: ArrayLike, pad_width: Any, mode: str = "constant", **kwargs: Any) -> TracedTensor:
    """numpy.pad for every mode numpy names (a callable mode is not supported)."""
    x = asarray(array)
    widths = _widths(pad_width, x.ndim)
    if not isinstance(mode, str):
        raise UnsupportedOperationError("pad: a callable mode is not supported")
    if mode in ("constant", "empty"):
        values = kwargs.pop("constant_values", 0)
        _no_more(mode, kwargs)
        return _constant(x, widths, values)
    if mode in ("maximum", "minimum", "mean", "median"):
        stat_length = kwargs.pop("stat_length", None)
        _no_more(mode, kwargs)
        return pad_statistic(x, widths, mode, stat_length)
    if mode == "linear_ramp":
        end_values = kwargs.pop("end_values", 0)
        _no_more(mode, kwargs)
        return pad_linear_ramp(x, widths, end_values)
    if mode not in _INDEX_MODES:
        raise ParameterError(
            f"pad: mode {mode!r} is not supported (supported: constant, empty, "
            + ", ".join(_INDEX_MODES + _VALUE_MODES)
            + ")"
        )
    reflect_type = (
        kwargs.pop("reflect_type", "even") if mode in ("reflect", "symmetric") else "even"
    )
    if reflect_type not in ("even", "odd"):
        raise ParameterError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    _no_more(mode, kwargs)
    if reflect_type == "odd":
        return pad_odd_reflection(x, widths, mode)
    for axis, (lo, hi) in enumerate(widths):
        if lo or hi:
            x = _index_pad(x, axis, lo, hi, mode)
    return x


def _no_more(mode: str, kwargs: dict) -> None:
    if kwargs:
        raise UnsupportedOperationError(f"pad: mode {mode!r} takes no arguments {sorted(kwargs)}")


def _constant(x: TracedTensor, widths: list[tuple[int, int]], values: Any) -> TracedTensor:
    if isinstance(values, TracedTensor) and values.ndim == 0:
        return apply1(
            "pad", [x, astype(values, x.dtype)], config=tuple((lo, hi, 0) for lo, hi in widths)
        )
    if isinstance(values, TracedTensor):
        raise UnsupportedOperationError("pad: traced constant_values must be a scalar")
    table = np.broadcast_to(np.asarray(values), (x.ndim, 2)) if x.ndim else np.asarray(values)
    if x.ndim == 0:
        return x
    if np.all(table == table.flat[0]):
        value = asarray(np.asarray(table.flat[0]).astype(x.dtype))
        return apply1("pad", [x, value], config=tuple((lo, hi, 0) for lo, hi in widths))
    for axis, ((lo, hi), (v_lo, v_hi)) in enumerate(zip(widths, table)):
        for width, value, low in ((lo, v_lo, True), (hi, v_hi, False)):
            if width:
                config = [(0, 0, 0)] * x.ndim
                config[axis] = (width, 0, 0) if low else (0, width, 0)
                fill = asarray(np.asarray(value).astype(x.dtype))
                x = apply1("pad", [x, fill], config=tuple(config))
    return x


def _index_pad(x: TracedTensor, axis: int, lo: int, hi: int, mode: str) -> TracedTensor:
    n = x.shape[axis]
    if isinstance(n, int):
        if n == 0:
            raise ShapeError(f"pad: can't extend empty axis {axis} of {x.aval} using mode {mode!r}")
        return take(x, np.pad(np.arange(n), (lo, hi), mode=mode), axis)
    pieces = [_side(x, axis, lo, mode, low=True), x, _side(x, axis, hi, mode, low=False)]
    return concatenate([p for p in pieces if p is not None], axis=axis)


def _side(x: TracedTensor, axis: int, width: int, mode: str, low: bool) -> TracedTensor | None:
    """The `width` elements padded on one side of a symbolic axis (guarded to fit)."""
    if not width:
        return None
    if mode == "edge":
        edge = _exact(slice_axis(x, axis, slice(None, 1) if low else slice(-1, None)), axis, 1)
        return broadcast_to(edge, x.shape[:axis] + (width,) + x.shape[axis + 1 :])
    cut = {
        ("wrap", True): slice(-width, None),
        ("wrap", False): slice(None, width),
        ("reflect", True): slice(1, width + 1),
        ("reflect", False): slice(-width - 1, -1),
        ("symmetric", True): slice(None, width),
        ("symmetric", False): slice(-width, None),
    }[mode, low]
    piece = _exact(slice_axis(x, axis, cut), axis, width)
    return piece if mode == "wrap" else flip(piece, axis)


def _exact(x: TracedTensor, axis: int, size: int) -> TracedTensor:
    """`x` declared to have `size` elements on `axis`: reshape adds the run-time guard."""
    return reshape(x, x.shape[:axis] + (size,) + x.shape[axis + 1 :])
