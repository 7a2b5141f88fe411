"""numpy's extremes on traced values: max, min, argmax, argmin, ptp.

Complex values are ordered as numpy orders them, lexicographically (real part first, then
imaginary part), without a sort: the real extreme, then the imaginary extreme among the
elements that attain it. NaN components are not given numpy's special order.
"""

from __future__ import annotations

import numpy as np

from tf8.lax.core import apply1
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._along import take_along_axis
from ._arithmetic import imag, real, subtract
from ._core import ArrayLike, asarray, astype, normalize_axes, normalize_axis
from ._logic import equal, logical_and, where
from ._reductions import Axis, keep_axes, reduce_axes, strong
from ._shape import expand_dims, moveaxis, ravel, reshape, squeeze


def max(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> TracedTensor:  # noqa: A001
    x = asarray(a)
    if dt.is_complex(x.dtype):
        return _complex_extreme("max", x, normalize_axes(axis, x.ndim), keepdims)
    if x.dtype == dt.bool_:
        return astype(max(astype(x, dt.int32), axis, keepdims), dt.bool_)
    return reduce_axes("reduce_max", x, axis, keepdims)


def min(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> TracedTensor:  # noqa: A001
    x = asarray(a)
    if dt.is_complex(x.dtype):
        return _complex_extreme("min", x, normalize_axes(axis, x.ndim), keepdims)
    if x.dtype == dt.bool_:
        return astype(min(astype(x, dt.int32), axis, keepdims), dt.bool_)
    return reduce_axes("reduce_min", x, axis, keepdims)


amax, amin = max, min


def _arg(name: str, a: ArrayLike, axis: int | None, keepdims: bool) -> TracedTensor:
    x = asarray(a)
    if dt.is_complex(x.dtype):
        return _complex_arg(name, x, axis, keepdims)
    if x.dtype == dt.bool_:
        x = astype(x, dt.int32)
    if axis is None:
        out = apply1(name, [ravel(x)], axis=0)
        return strong(keep_axes(out, tuple(range(x.ndim)), keepdims), x)
    ax = normalize_axis(axis, x.ndim)
    return strong(keep_axes(apply1(name, [x], axis=ax), (ax,), keepdims), x)


def argmax(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> TracedTensor:
    return _arg("argmax", a, axis, keepdims)


def argmin(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> TracedTensor:
    return _arg("argmin", a, axis, keepdims)


def ptp(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> TracedTensor:
    """max - min (peak to peak)."""
    return subtract(max(a, axis, keepdims), min(a, axis, keepdims))


def _complex_arg(name: str, x: TracedTensor, axis: int | None, keepdims: bool) -> TracedTensor:
    """argmax / argmin of complex x along `axis` (flattened when None): the first index of the
    lexicographic extreme."""
    ndim = x.ndim
    if axis is None:
        x, ax = ravel(x), 0
    else:
        ax = normalize_axis(axis, ndim)
    extreme = max if name == "argmax" else min
    far = -np.inf if name == "argmax" else np.inf
    re, im = real(x), imag(x)
    best_re = extreme(re, axis=ax, keepdims=True)
    ties = equal(re, best_re)
    im_among = where(ties, im, far)
    best_im = extreme(im_among, axis=ax, keepdims=True)
    winner = logical_and(ties, equal(im_among, best_im))
    out = argmax(winner, axis=ax)
    if keepdims:
        out = expand_dims(out, tuple(range(ndim)) if axis is None else ax)
    return out


def _complex_extreme(
    name: str, x: TracedTensor, axes: tuple[int, ...], keepdims: bool
) -> TracedTensor:
    """max / min of complex x over `axes`: the element the lexicographic arg-extreme picks
    (so the derivative flows to that element)."""
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = moveaxis(x, axes, tuple(range(len(rest), x.ndim))) if axes else x
    flat = reshape(moved, (*[x.shape[i] for i in rest], -1))
    index = _complex_arg("argmax" if name == "max" else "argmin", flat, -1, True)
    picked = squeeze(take_along_axis(flat, index, -1), -1)
    if keepdims:
        picked = reshape(picked, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
    return picked
