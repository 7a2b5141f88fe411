"""The core of tf8.numpy: lifting Python values, promotion, broadcasting, elementwise ops.

Every function here validates its inputs and emits catalog primitives through
`tf8.traced.apply1`; broadcasting is explicit in the graph (broadcast_in_dim), dtype
promotion is numpy ≥ 2's (Python scalars are weak and enter as `constant`s).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import AxisError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.primitive import ConstantValue
from tf8.ops.shapes import Dim, dims_equal, shape_str
from tf8.traced import TracedTensor, apply1, concrete_array

ArrayLike = Any
_SCALARS = (bool, int, float, complex)


def constant(value: ArrayLike, dtype: Any = None) -> TracedTensor:
    """A literal array as a structural `constant` node (part of the program's identity)."""
    array = concrete_array(value)
    if dtype is not None:
        array = array.astype(dt.as_dtype(dtype))
    return apply1("constant", [], value=ConstantValue(array))


def asarray(value: ArrayLike, dtype: Any = None) -> TracedTensor:
    """`value` as a TracedTensor: traced values pass through, lists of them are stacked."""
    if isinstance(value, TracedTensor):
        return value if dtype is None else astype(value, dtype)
    if isinstance(value, (list, tuple)) and _contains_traced(value):
        from tf8.numpy._shape import stack

        result = stack([asarray(v) for v in value])
        return result if dtype is None else astype(result, dtype)
    return constant(value, dtype)


def _contains_traced(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, TracedTensor):
            return True
        if isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def astype(x: TracedTensor, dtype: Any) -> TracedTensor:
    target = dt.as_dtype(dtype)
    if x.dtype == target:
        return x
    return apply1("convert", [x], dtype=target)


def promote(*values: ArrayLike) -> list[TracedTensor]:
    """Lift `values` to TracedTensors of one dtype under numpy ≥ 2 (weak scalar) promotion."""
    operands = [v if isinstance(v, (TracedTensor, *_SCALARS)) else asarray(v) for v in values]
    dtype = dt.result_type(*[v.dtype if isinstance(v, TracedTensor) else v for v in operands])
    return [
        astype(v, dtype) if isinstance(v, TracedTensor) else constant(np.asarray(v, dtype=dtype))
        for v in operands
    ]


def broadcast_shapes(*shapes: Sequence[Dim]) -> tuple[Dim, ...]:
    """numpy's broadcasting on (possibly symbolic) shapes; ShapeError naming all of them."""
    ndim = max((len(s) for s in shapes), default=0)
    result: list[Dim] = []
    for axis in range(ndim):
        dim: Dim = 1
        for s in shapes:
            d = s[axis - ndim + len(s)] if axis - ndim + len(s) >= 0 else 1
            if dims_equal(d, 1) is True:
                continue
            if dims_equal(dim, 1) is True or dims_equal(dim, d) is True:
                dim = d
            elif dims_equal(dim, d) is None:
                dim = dim  # symbolic: the elementwise rule adds a run-time guard
            else:
                raise ShapeError(
                    "operands could not be broadcast together with shapes "
                    + " ".join(shape_str(s) for s in shapes)
                )
        result.append(dim)
    return tuple(result)


def broadcast_to(x: ArrayLike, shape: Sequence[Dim]) -> TracedTensor:
    x = asarray(x)
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ShapeError(f"cannot broadcast {shape_str(x.shape)} to {shape_str(shape)}")
    for d, target in zip(x.shape, shape[lead:]):
        if dims_equal(d, 1) is not True and dims_equal(d, target) is False:
            raise ShapeError(f"cannot broadcast {shape_str(x.shape)} to {shape_str(shape)}")
    dims = tuple(range(lead, len(shape)))
    return apply1("broadcast_in_dim", [x], shape=shape, broadcast_dimensions=dims)


def broadcast_arrays(*values: TracedTensor) -> list[TracedTensor]:
    shape = broadcast_shapes(*[v.shape for v in values])
    return [broadcast_to(v, shape) for v in values]


def elementwise(name: str, *values: ArrayLike, **params: Any) -> TracedTensor:
    """Promote, broadcast and apply the elementwise primitive `name`."""
    return apply1(name, broadcast_arrays(*promote(*values)), **params)


def inexact(x: ArrayLike) -> TracedTensor:
    """`x` in an inexact dtype (ints and bools → float64), as numpy's float ufuncs do."""
    x = asarray(x)
    return astype(x, dt.float_dtype(x.dtype))


def normalize_axis(axis: int, ndim: int, what: str = "axis") -> int:
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise AxisError(f"{what} must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise AxisError(f"{what} {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % ndim


def normalize_axes(axis: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """numpy's `axis=` argument as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    norm = tuple(normalize_axis(a, ndim) for a in axes)
    if len(set(norm)) != len(norm):
        raise AxisError(f"repeated axis in {axis}")
    return tuple(sorted(norm))
