"""Shape and dtype inference for every catalog row.

`infer_primitive(op, avals, guards)` returns the output avals of primitive `op` applied to
`avals`; constraints it cannot prove on symbolic dimensions are appended to `guards` as run-time
`ShapeGuard`s. (`tf8.ops.definition.infer` is the entry point for every kind of op.) Errors
name the op, the shapes and the dtypes involved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tf8.errors import ArityError, AxisError, DTypeError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.dtype_rules import infer_dtype
from tf8.ops.gather import gather_shape, scatter_add_shape
from tf8.ops.shape_checks import Guards, check_axis, describe, require_equal
from tf8.ops.shapes import Dim, DimExpr, dims_equal, shape_str

ShapeRule = Callable[[Any, Sequence[Aval], Guards], tuple[Dim, ...]]


# --- shape rules ------------------------------------------------------------------------------


def elementwise_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    first = avals[0].shape
    for other in avals[1:]:
        if len(other.shape) != len(first):
            raise ShapeError(
                f"{op.name}: operands must have equal shapes (broadcast first), got "
                f"{describe(avals)}"
            )
        for axis, (a, b) in enumerate(zip(first, other.shape)):
            if dims_equal(a, b) is False:
                raise ShapeError(
                    f"{op.name}: operands must have equal shapes (broadcast first), got "
                    f"{describe(avals)}"
                )
            require_equal(op, a, b, lambda axis=axis: f"axis {axis} of {describe(avals)}", guards)
    return first


def infer_primitive(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Aval, ...]:
    """Output avals of catalog primitive `op` on `avals`, with arity, dtypes and shapes
    validated (tf8.ops.definition.infer is the entry point for every kind of op)."""
    if not op.row.accepts_arity(len(avals)):
        raise ArityError(f"{op.name} takes {op.row.arity_str()} operands, got {len(avals)}")
    dtype = infer_dtype(op, avals)
    return (Aval(tuple(op.definition.shape(op, avals, guards)), dtype),)


def axes_param(op: Any, axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    """Axis parameters `axes` of `op` checked against rank `ndim` (no repeats), normalised."""
    norm = tuple(check_axis(op, a, ndim) for a in axes)
    if len(set(norm)) != len(norm):
        raise AxisError(f"{op.name}: repeated axis in {tuple(axes)}")
    return norm


def _same_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    return avals[0].shape


def _slice_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    start, limit = op["start"], op["limit"]
    strides = op["strides"] or (1,) * len(shape)
    if not len(start) == len(limit) == len(strides) == len(shape):
        raise ShapeError(f"slice: start/limit/strides must have rank {len(shape)}")
    out = []
    for s, l, st, d in zip(start, limit, strides, shape):
        if st < 1 or (isinstance(s, int) and s < 0):
            raise ShapeError(f"slice: bad bounds start={start} limit={limit} strides={strides}")
        extent = l - s
        if isinstance(extent, int) and extent < 0:
            raise ShapeError(f"slice: limit {limit} below start {start} for {shape_str(shape)}")
        if isinstance(l, int) and isinstance(d, int) and l > d:
            raise ShapeError(f"slice: limit {limit} exceeds {shape_str(shape)}")
        out.append(extent if st == 1 else (extent + st - 1) // st)
    return tuple(out)


def _pad_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape, config = avals[0].shape, op["config"]
    if avals[1].shape != ():
        raise ShapeError(f"pad: padding value must be a scalar, got {avals[1]}")
    if len(config) != len(shape):
        raise ShapeError(f"pad: config {config} does not fit {shape_str(shape)}")
    out = []
    for (lo, hi, interior), d in zip(config, shape):
        if interior < 0:
            raise ShapeError(f"pad: negative interior padding in {config}")
        # Interior padding goes between elements: none for an empty (or one-element) axis.
        gaps = max(d - 1, 0) if isinstance(d, int) else d - 1
        size = lo + hi + d + gaps * interior
        if isinstance(size, int) and size < 0:
            raise ShapeError(f"pad: config {config} crops {shape_str(shape)} below size 0")
        out.append(size)
    return tuple(out)


def _constant_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    return op["value"].array.shape


def _shape_of_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    check_axis(op, op["axis"], avals[0].ndim)
    return ()


def _index_scalars(op: Any, indices: Sequence[Aval], ndim: int) -> None:
    if len(indices) != ndim:
        raise ShapeError(f"{op.name}: needs {ndim} start indices, got {len(indices)}")
    for a in indices:
        if a.shape != () or a.dtype not in dt.INTEGERS:
            raise DTypeError(f"{op.name}: start indices must be int scalars, got {a}")


def _dynamic_slice_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape, sizes = avals[0].shape, op["slice_sizes"]
    _index_scalars(op, avals[1:], len(shape))
    if len(sizes) != len(shape):
        raise ShapeError(f"dynamic_slice: slice_sizes {sizes} do not fit {shape_str(shape)}")
    for s, d in zip(sizes, shape):
        if isinstance(s, int) and isinstance(d, int) and not 0 <= s <= d:
            raise ShapeError(f"dynamic_slice: slice_sizes {sizes} exceed {shape_str(shape)}")
    return tuple(sizes)


def _dynamic_update_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape, update = avals[0].shape, avals[1].shape
    _index_scalars(op, avals[2:], len(shape))
    if len(update) != len(shape) or any(
        isinstance(u, int) and isinstance(d, int) and u > d for u, d in zip(update, shape)
    ):
        raise ShapeError(
            f"dynamic_update_slice: update {shape_str(update)} does not fit {shape_str(shape)}"
        )
    return shape


def _dynamic_truncate_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    axis = check_axis(op, op["axis"], len(shape))
    if avals[1].shape != () or avals[1].dtype not in dt.INTEGERS:
        raise DTypeError(f"dynamic_truncate: size must be an int scalar, got {avals[1]}")
    return shape[:axis] + (DimExpr.symbol(op["size_name"]),) + shape[axis + 1 :]


def _pad_to_match_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape, ref = avals[0].shape, avals[1].shape
    axis = check_axis(op, op["axis"], len(shape))
    if len(ref) <= axis:
        raise ShapeError(f"pad_to_match: reference {shape_str(ref)} has no axis {axis}")
    return shape[:axis] + (ref[axis],) + shape[axis + 1 :]


SHAPE_RULES: dict[str, ShapeRule] = {
    "convert": _same_shape,
    "slice": _slice_shape,
    "pad": _pad_shape,
    "constant": _constant_shape,
    "shape_of": _shape_of_shape,
    "dynamic_slice": _dynamic_slice_shape,
    "dynamic_update_slice": _dynamic_update_shape,
    "dynamic_truncate": _dynamic_truncate_shape,
    "pad_to_match": _pad_to_match_shape,
    "gather": gather_shape,
    "scatter_add": scatter_add_shape,
}
