"""max, min, argmax and argmin of complex values in numpy's lexicographic order (real part
first, then imaginary part), without a sort: the real extreme, then the imaginary extreme
among the elements that attain it. NaN components are not given numpy's special order."""

from __future__ import annotations

import numpy as np

from tf8.traced import TracedTensor

from ._core import normalize_axis
from ._shape import expand_dims, ravel, squeeze
from ._ufuncs import equal, imag, logical_and, real, where


def complex_arg(name: str, x: TracedTensor, axis: int | None, keepdims: bool) -> TracedTensor:
    """argmax / argmin of complex x along `axis` (flattened when None): the first index of the
    lexicographic extreme."""
    from ._reductions import argmax, max, min

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


def complex_extreme(
    name: str, x: TracedTensor, axes: tuple[int, ...], keepdims: bool
) -> TracedTensor:
    """max / min of complex x over `axes`: the element the lexicographic arg-extreme picks
    (so the derivative flows to that element)."""
    from ._along import take_along_axis
    from ._shape import moveaxis, reshape

    rest = [i for i in range(x.ndim) if i not in axes]
    moved = moveaxis(x, axes, tuple(range(len(rest), x.ndim))) if axes else x
    flat = reshape(moved, (*[x.shape[i] for i in rest], -1))
    index = complex_arg("argmax" if name == "max" else "argmin", flat, -1, True)
    picked = squeeze(take_along_axis(flat, index, -1), -1)
    if keepdims:
        picked = reshape(picked, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
    return picked
