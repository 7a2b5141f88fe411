"""Basic indexing (`x[1:3, None, ..., 0]`) on traced values, lowered to slice/reverse/reshape."""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import ShapeError
from tf8.ops.shapes import shape_str
from tf8.traced import TracedTensor, apply1

from ._core import asarray
from ._shape import reshape


def _expand_index(index: Any, ndim: int) -> list[Any]:
    items = list(index) if isinstance(index, tuple) else [index]
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    if used > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, but {used} were indexed"
        )
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at : at + 1] = [slice(None)] * (ndim - used)
    else:
        items += [slice(None)] * (ndim - used)
    return items


def is_basic_index(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(
        i is None
        or i is Ellipsis
        or isinstance(i, slice)
        or (isinstance(i, (int, np.integer)) and not isinstance(i, bool))
        for i in items
    )


def basic_getitem(x: TracedTensor, index: Any) -> TracedTensor:
    """x[index] for ints, slices, None and Ellipsis (numpy's basic indexing)."""
    items = _expand_index(index, x.ndim)
    start, limit, strides, flips, shape = [], [], [], [], []
    axis = 0
    for item in items:
        if item is None:
            shape.append(1)
            continue
        dim = x.shape[axis]
        if isinstance(item, slice):
            if not isinstance(dim, int):
                if item != slice(None):
                    raise ShapeError(
                        f"slicing symbolic axis {axis} ({shape_str(x.shape)}) needs tf8.numpy.slice"
                    )
                start.append(0), limit.append(dim), strides.append(1), shape.append(dim)
                axis += 1
                continue
            lo, hi, step = item.indices(dim)
            if step < 0:
                # Reverse the axis, then take the equivalent forward slice.
                flips.append(axis)
                lo, hi, step = dim - 1 - lo, dim - 1 - hi, -step
            n = max(0, -(-(hi - lo) // step))
            hi = lo + (n - 1) * step + 1 if n else lo
            start.append(lo), limit.append(hi), strides.append(step), shape.append(n)
        else:
            i = int(item)
            if not isinstance(dim, int):
                raise ShapeError(f"integer index on symbolic axis {axis} of {shape_str(x.shape)}")
            if not -dim <= i < dim:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {dim}")
            i %= dim
            start.append(i), limit.append(i + 1), strides.append(1)
        axis += 1
    out = x
    if flips:
        out = apply1("reverse", [out], axes=tuple(flips))
    if (
        tuple(start) != (0,) * x.ndim
        or tuple(limit) != tuple(x.shape)
        or any(s != 1 for s in strides)
    ):
        out = apply1(
            "slice",
            [out],
            start=tuple(start),
            limit=tuple(limit),
            strides=None if all(s == 1 for s in strides) else tuple(strides),
        )
    return reshape(out, tuple(shape))


def getitem(x: TracedTensor, index: Any) -> TracedTensor:
    x = asarray(x)
    if is_basic_index(index):
        return basic_getitem(x, index)
    from tf8.errors import UnsupportedOperationError

    raise UnsupportedOperationError(
        f"advanced indexing with {type(index).__name__} is not supported yet"
    )
