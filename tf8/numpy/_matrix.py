"""Matrix structure: tril, triu, diag, diagonal, trace, diagflat."""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import ShapeError
from tf8.lax.core import apply1
from tf8.ops.shapes import dim_max, dim_min
from tf8.traced import TracedTensor

from ._core import ArrayLike, asarray, broadcast_to, constant, normalize_axis
from ._reductions import sum as sum_
from ._shape import moveaxis, ravel
from ._slicing import AxisSlice, apply_slices


def _triangle(name: str, m: ArrayLike, k: int) -> TracedTensor:
    x = asarray(m)
    if x.ndim == 0:
        raise ShapeError(f"{name}: input must be at least 1-d, got a scalar")
    if x.ndim == 1:  # numpy broadcasts a vector against the (n, n) mask
        x = broadcast_to(x, (x.shape[0], x.shape[0]))
    return apply1(name, [x], k=int(k))


def tril(m: ArrayLike, k: int = 0) -> TracedTensor:
    """Lower triangle of the last two axes (elements above the k-th diagonal zeroed)."""
    return _triangle("tril", m, k)


def triu(m: ArrayLike, k: int = 0) -> TracedTensor:
    """Upper triangle of the last two axes (elements below the k-th diagonal zeroed)."""
    return _triangle("triu", m, k)


def diagonal(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> TracedTensor:
    """The `offset` diagonal of the plane (axis1, axis2), as a new last axis."""
    x = asarray(a)
    if x.ndim < 2:
        raise ShapeError(f"diagonal requires an array of at least two dimensions, got {x.aval}")
    a1, a2 = normalize_axis(axis1, x.ndim, "axis1"), normalize_axis(axis2, x.ndim, "axis2")
    if a1 == a2:
        raise ShapeError(f"diagonal: axis1 and axis2 cannot be the same ({axis1}, {axis2})")
    x = moveaxis(x, (a1, a2), (-2, -1))
    rows, cols = x.shape[-2], x.shape[-1]
    offset = int(offset)
    if offset == 0:
        length, r0, c0 = dim_min(rows, cols), 0, 0
    elif offset > 0:
        length = dim_max(dim_min(rows, cols - offset), 0)
        r0, c0 = 0, dim_min(offset, cols)
    else:
        length = dim_max(dim_min(rows + offset, cols), 0)
        r0, c0 = dim_min(-offset, rows), 0
    slices = [AxisSlice(0, d, 1) for d in x.shape[:-2]]
    slices += [AxisSlice(r0, r0 + length, 1), AxisSlice(c0, c0 + length, 1)]
    return apply1("extract_diag", [apply_slices(x, slices)])


def trace(
    a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None
) -> TracedTensor:
    """Sum along the `offset` diagonal (int32/bool sum in int64, as numpy)."""
    return sum_(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def diag(v: ArrayLike, k: int = 0) -> TracedTensor:
    """1-D input: a square matrix with v on the k-th diagonal; 2-D: its k-th diagonal."""
    x = asarray(v)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise ShapeError(f"diag: input must be 1-d or 2-d, got {x.aval}")
    k = int(k)
    square = apply1("embed_diag", [x])
    if k == 0:
        return square
    zero = constant(np.zeros((), dtype=x.dtype))
    shift = abs(k)
    config = ((0, shift, 0), (shift, 0, 0)) if k > 0 else ((shift, 0, 0), (0, shift, 0))
    return apply1("pad", [square, zero], config=config)


def diagflat(v: ArrayLike, k: int = 0) -> TracedTensor:
    """diag of the flattened input."""
    return diag(ravel(v), k)
