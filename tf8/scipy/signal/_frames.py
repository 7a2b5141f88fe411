"""What the spectral functions share: windows, cutting a signal into overlapping segments and
adding them back, and the extensions of a signal at its ends.

Segments are cut with slices and reshapes only (no gather): the signal, as rows of `step`
samples, holds segment i in rows i .. i + k - 1 (k = ceil(nperseg / step)), so k shifted
slices of the rows, side by side, are every segment at once. Overlap-add is the same in
reverse: k zero-padded shifts of the segments' row blocks, summed. Both are linear and
structural, so the transforms need nothing of their own.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8.errors import ParameterError, ShapeError
from tf8.lax.fft import resize
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

__all__ = [
    "BOUNDARIES",
    "complex_of",
    "extend",
    "frames",
    "hann",
    "named_window",
    "overlap_add",
    "window_array",
]


def hann(size: int) -> np.ndarray:
    """The periodic Hann window, as JAX computes it (sin² over [0, π))."""
    if size == 1:
        return np.ones(1)
    return np.sin(np.linspace(0, np.pi, size, endpoint=False)) ** 2


def named_window(name: str, window: Any, size: int) -> np.ndarray:
    if isinstance(window, str) and window == "hann":
        return hann(size)
    from scipy.signal import get_window  # scipy's catalogue of named windows

    try:
        return np.asarray(get_window(window, size))
    except (ValueError, TypeError) as err:
        raise ParameterError(f"{name}: unknown window {window!r} ({err})") from None


def window_array(
    name: str, window: Any, nperseg: int | None, length: int, dtype: np.dtype
) -> tuple[TracedTensor, int]:
    """(window, nperseg) as scipy's `_triage_segments` (in JAX's form): a name or tuple is
    made `nperseg` long (default and at most the signal's `length`, with a warning); an array
    gives nperseg and must be 1-D and no longer than the signal."""
    if isinstance(window, (str, tuple)):
        size = length if nperseg is None else int(nperseg)
        if size > length:
            warnings.warn(
                f"{name}: nperseg={size} is greater than the input length {length}, using "
                f"nperseg={length}",
                stacklevel=3,
            )
            size = length
        return tnp.asarray(named_window(name, window, size).astype(dtype)), size
    win = tnp.asarray(window).astype(dtype)
    if win.ndim != 1:
        raise ShapeError(f"{name}: window must be 1-D, got {win.aval}")
    size = win.shape[0] if nperseg is None else int(nperseg)
    if length < win.shape[0]:
        raise ShapeError(f"{name}: window {win.aval} is longer than the signal ({length})")
    if size != win.shape[0]:
        raise ParameterError(f"{name}: nperseg={size} differs from the window's length {win.aval}")
    return win, size


def frames(x: TracedTensor, nperseg: int, step: int) -> TracedTensor:
    """(..., L) → (..., nseg, nperseg): segment i is x[..., i·step : i·step + nperseg], for
    the nseg = (L − nperseg) // step + 1 segments that fit."""
    length = x.shape[-1]
    count = max((length - nperseg) // step + 1, 0)
    k = -(-nperseg // step)
    rows = count + k - 1
    blocks = tnp.reshape(resize(x, x.ndim - 1, rows * step), (*x.shape[:-1], rows, step))
    if k == 1:
        wide = blocks
    else:
        wide = tnp.concatenate([blocks[..., j : j + count, :] for j in range(k)], axis=-1)
    return wide if k * step == nperseg else wide[..., :nperseg]


def overlap_add(segments: TracedTensor, step: int) -> TracedTensor:
    """(..., nseg, nperseg) → (..., step·(nseg − 1) + nperseg): segment i added in at i·step."""
    *batch, count, nperseg = segments.shape
    k = -(-nperseg // step)
    padded = resize(segments, segments.ndim - 1, k * step)
    blocks = tnp.reshape(padded, (*batch, count, k, step))

    def shifted(j: int) -> TracedTensor:
        return tnp.pad(blocks[..., j, :], [(0, 0)] * len(batch) + [(j, k - 1 - j), (0, 0)])

    total = shifted(0)
    for j in range(1, k):
        total = total + shifted(j)
    flat = tnp.reshape(total, (*batch, (count + k - 1) * step))
    return flat[..., : step * (count - 1) + nperseg]


def odd_extension(name: str, x: TracedTensor, n: int) -> TracedTensor:
    """x extended by n points at each end of its last axis by odd symmetry about the end
    points (scipy's `odd_ext`)."""
    if n < 1:
        return x
    if n > x.shape[-1] - 1:
        raise ShapeError(
            f"{name}: the odd extension length {n} must not exceed the signal's length minus "
            f"one ({x.shape[-1] - 1})"
        )
    left = 2 * x[..., :1] - tnp.flip(x[..., 1 : n + 1], -1)
    right = 2 * x[..., -1:] - tnp.flip(x[..., -(n + 1) : -1], -1)
    return tnp.concatenate([left, x, right], axis=-1)


_PAD_MODES = {"even": "reflect", "constant": "edge", "zeros": "constant"}
BOUNDARIES = (*_PAD_MODES, "odd", None)


def extend(name: str, x: TracedTensor, boundary: str | None, n: int) -> TracedTensor:
    """x extended by n points at both ends of its last axis as `boundary` says."""
    if boundary is None:
        return x
    if boundary == "odd":
        return odd_extension(name, x, n)
    width = [(0, 0)] * (x.ndim - 1) + [(n, n)]
    return tnp.pad(x, width, mode=_PAD_MODES[boundary])


def complex_of(dtype: np.dtype) -> np.dtype:
    """The complex dtype of an inexact dtype's precision."""
    return dt.complex_dtype(dt.float_dtype(dtype))
