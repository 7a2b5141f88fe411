"""take_along_axis and cross: numpy functions built from indexing and products."""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.lax.core import apply1
from tf8.ops import dtypes as dt
from tf8.ops.shapes import dims_equal, shape_str
from tf8.traced import TracedTensor

from ._arithmetic import add, clip, multiply, subtract
from ._core import (
    ArrayLike,
    asarray,
    broadcast_shapes,
    broadcast_to,
    constant,
    normalize_axis,
    promote,
    shape_of,
    stack,
)
from ._indexing import fill_default
from ._logic import greater_equal, less, logical_and, where
from ._shape import moveaxis, ravel


def take_along_axis(
    arr: ArrayLike,
    indices: ArrayLike,
    axis: int | None,
    mode: str | None = None,
    fill_value: Any = None,
) -> TracedTensor:
    """numpy.take_along_axis: pick values along `axis` at `indices` (same rank as `arr`,
    broadcast against it on the other axes); negative indices count from the end. Out of
    bounds, as jax.numpy: mode None/'fill' reads `fill_value` (NaN, the extreme int or True by
    default), 'clip' the nearest end."""
    if mode not in (None, "fill", "clip"):
        raise ParameterError(f"take_along_axis: invalid mode {mode!r} (use 'fill' or 'clip')")
    x, idx = asarray(arr), asarray(indices)
    if idx.dtype not in dt.INTEGERS:
        raise DTypeError(f"take_along_axis: indices must be integers, got {idx.dtype}")
    if axis is None:
        x, axis = ravel(x), 0
        if idx.ndim != 1:
            raise ShapeError(f"take_along_axis: with axis=None indices must be 1-D, got {idx.aval}")
    if idx.ndim != x.ndim:
        raise ShapeError(
            f"take_along_axis: `indices` and `arr` must have the same number of dimensions, "
            f"got {shape_str(idx.shape)} and {shape_str(x.shape)}"
        )
    ax = normalize_axis(axis, x.ndim)
    others = broadcast_shapes(
        tuple(d for i, d in enumerate(x.shape) if i != ax),
        tuple(d for i, d in enumerate(idx.shape) if i != ax),
    )
    shape = others[:ax] + (idx.shape[ax],) + others[ax:]
    n = shape_of(x, ax)
    idx = where(less(idx, 0), add(idx, n), idx)
    valid = logical_and(greater_equal(idx, 0), less(idx, n))
    idx = clip(idx, 0, n - 1)
    grids: list[Any] = []
    for d in range(x.ndim):
        if d == ax:
            grids.append(broadcast_to(idx, shape))
        else:
            grids.append(apply1("iota", [], shape=shape, dtype=dt.int64, dimension=d))
    if any(
        dims_equal(a, b) is False and dims_equal(a, 1) is not True
        for i, (a, b) in enumerate(zip(x.shape, shape))
        if i != ax
    ):
        raise ShapeError(
            f"take_along_axis: cannot broadcast {shape_str(x.shape)} to {shape_str(shape)}"
        )
    source = broadcast_to(x, tuple(s if i != ax else x.shape[ax] for i, s in enumerate(shape)))
    taken = source[tuple(grids)]
    if mode == "clip":
        return taken
    fill = fill_default(x.dtype) if fill_value is None else fill_value
    out = where(valid, taken, constant(np.asarray(fill).astype(x.dtype)))
    out._weak = x._weak
    return out


def cross(
    a: ArrayLike,
    b: ArrayLike,
    axisa: int = -1,
    axisb: int = -1,
    axisc: int = -1,
    axis: int | None = None,
) -> TracedTensor:
    """numpy.cross of 3-vectors along `axisa` of a and `axisb` of b, the result's vectors along
    `axisc` (`axis` sets all three); a 2-vector has z = 0, and two 2-vectors give z alone."""
    if axis is not None:
        axisa = axisb = axisc = axis
    x, y = promote(a, b)
    if x.ndim == 0 or y.ndim == 0:
        raise ShapeError("cross: operands must have at least one dimension")
    x, y = moveaxis(x, axisa, -1), moveaxis(y, axisb, -1)
    n, m = x.shape[-1], y.shape[-1]
    if {n, m} - {2, 3}:
        raise ShapeError(
            f"cross: incompatible vector sizes {n} and {m} (each must be 2 or 3, as numpy)"
        )

    def part(v: TracedTensor, i: int) -> Any:
        return v[..., i] if i < v.shape[-1] else 0  # a 2-vector's z component is 0

    def det2(i: int, j: int) -> TracedTensor:
        return subtract(multiply(part(x, i), part(y, j)), multiply(part(x, j), part(y, i)))

    if n == 2 and m == 2:
        return det2(0, 1)
    out = stack([det2(1, 2), det2(2, 0), det2(0, 1)], axis=-1)
    return moveaxis(out, -1, normalize_axis(axisc, out.ndim))
