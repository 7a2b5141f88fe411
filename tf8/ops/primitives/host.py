"""Host and dynamic rows: `constant` (a literal array), `shape_of` (the size of an axis) and
the rows whose sizes are known only while running: `dynamic_truncate` cuts an axis to a
size computed by the program, `pad_to_match` zero-pads an axis to another array's size.

They run on the host (`host_only`); the Dask engine refuses all but `constant`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import DTypeError, RaggedBatchError, ShapeError, ShapeGuardError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define, zero_jvp
from tf8.ops.fusion import Fusion
from tf8.ops.shape_checks import Guards, check_axis
from tf8.ops.shapes import Dim, DimExpr, shape_str

from .common import no_operands

_H, _D, _P = Category.HOST, Category.DYNAMIC, DTypePolicy

_size_names = itertools.count()


def _fresh_size_name() -> str:
    """Each dynamic_truncate names its own run-time size, so two never pass as equal."""
    return f"truncated{next(_size_names)}"


# --- constant ---------------------------------------------------------------------------------


def _constant_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    return op["value"].array.shape


CONSTANT = define(
    Row("constant", _H, _P.CONSTANT, 0, 0, ("value",), host_only=True, doc="a literal array"),
    kernel=lambda op: op["value"].array,
    shape=_constant_shape,
    dtype=lambda op, avals: op["value"].array.dtype,  # its value's
    jvp=zero_jvp,
    batch=no_operands,
    fusion=Fusion(dask=lambda kit, op: op["value"].array),
    literal=lambda op: op["value"].array,
)


# --- shape_of ---------------------------------------------------------------------------------


def _shape_of_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    check_axis(op, op["axis"], avals[0].ndim)
    return ()


def _shape_of_batch(lax: Any, op: Any, args: list, dims: list) -> tuple[list, list]:
    (x,), (d,) = args, dims
    axis = lax.batched_axis(lax.example_axis(op["axis"], x.ndim - 1), d)
    return [lax.apply(lax.with_params(op, axis=axis), [x])[0]], [None]


def _static_shape_of(op: Any, avals: Sequence[Aval]) -> np.ndarray | None:
    """The size of a concrete dimension is known without the operand's data."""
    shape = avals[0].shape
    dim = shape[op["axis"]] if shape else 1
    return np.asarray(dim, dtype=np.int64) if type(dim) is int else None


SHAPE_OF = define(
    Row("shape_of", _H, _P.SHAPE, 1, 1, ("axis",), host_only=True, doc="size of one axis (int64)"),
    kernel=lambda op, x: np.asarray(x.shape[op["axis"]], dtype=np.int64),
    shape=_shape_of_shape,
    jvp=zero_jvp,
    batch=_shape_of_batch,
    static_value=_static_shape_of,
)


# --- dynamic_truncate -------------------------------------------------------------------------


def _dynamic_truncate(op: Any, x: np.ndarray, size: np.ndarray) -> np.ndarray:
    axis = op["axis"]
    n = int(size)
    if not 0 <= n <= x.shape[axis]:
        raise ShapeGuardError(f"dynamic_truncate: size {n} outside [0, {x.shape[axis]}]")
    return np.take(x, np.arange(n), axis=axis)


def _dynamic_truncate_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    axis = check_axis(op, op["axis"], len(shape))
    if avals[1].shape != () or avals[1].dtype not in dt.INTEGERS:
        raise DTypeError(f"dynamic_truncate: size must be an int scalar, got {avals[1]}")
    return shape[:axis] + (DimExpr.symbol(op["size_name"]),) + shape[axis + 1 :]


def _dynamic_truncate_transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
    # Pad back to the operand's size; a zeros reference carries that (possibly symbolic) size.
    x, size = operands
    return [lax.apply1("pad_to_match", [ct, lax.zeros(x.aval)], axis=op["axis"]), None]


def _dynamic_truncate_batch(lax: Any, op: Any, args: list, dims: list) -> tuple[list, list]:
    (x, size), (dx, ds) = args, dims
    if ds is not None:
        raise RaggedBatchError(
            f"vmap: dynamic_truncate to a size that depends on the mapped axis (size {size.aval}"
            " batched) would give examples of different sizes (ragged); truncate to one size"
        )
    axis = lax.batched_axis(lax.example_axis(op["axis"], x.ndim - 1), dx)
    return [lax.apply(lax.with_params(op, axis=axis), [x, size])[0]], [dx]


DYNAMIC_TRUNCATE = define(
    Row(
        "dynamic_truncate",
        _D,
        _P.SAME_ANY,
        2,
        2,
        ("axis", "size_name"),
        host_only=True,
        doc="cut an axis to a size known only at run time",
        defaults=(("size_name", _fresh_size_name),),
        linear_in=(0,),
        dtype_operands=(0,),
    ),
    kernel=_dynamic_truncate,
    shape=_dynamic_truncate_shape,
    transpose=_dynamic_truncate_transpose,
    batch=_dynamic_truncate_batch,
)


# --- pad_to_match -----------------------------------------------------------------------------


def _pad_to_match(op: Any, x: np.ndarray, ref: np.ndarray) -> np.ndarray:
    axis = op["axis"]
    extra = ref.shape[axis] - x.shape[axis]
    if extra < 0:
        raise ShapeGuardError(
            f"pad_to_match: axis {axis} of {x.shape} is longer than the reference {ref.shape}"
        )
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, extra)
    return np.pad(x, widths)


def _pad_to_match_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape, ref = avals[0].shape, avals[1].shape
    axis = check_axis(op, op["axis"], len(shape))
    if len(ref) <= axis:
        raise ShapeError(f"pad_to_match: reference {shape_str(ref)} has no axis {axis}")
    return shape[:axis] + (ref[axis],) + shape[axis + 1 :]


def _pad_to_match_transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
    x, ref = operands
    (axis,) = lax.normalize_axes([op["axis"]], ct.ndim)
    limit = tuple(x.shape[axis] if i == axis else d for i, d in enumerate(ct.shape))
    return [lax.apply1("slice", [ct], start=(0,) * ct.ndim, limit=limit, strides=None), None]


def _pad_to_match_batch(lax: Any, op: Any, args: list, dims: list) -> tuple[list, list]:
    """Both operands' batch axes move last, so the per-example axis number stays right."""
    (x, ref), (dx, dr) = args, dims
    if dx is not None:
        x = lax.moveaxis(x, dx, x.ndim - 1)
    if dr is not None:
        ref = lax.moveaxis(ref, dr, ref.ndim - 1)
    axis = lax.example_axis(op["axis"], x.ndim - (dx is not None))
    out = lax.apply(lax.with_params(op, axis=axis), [x, ref])[0]
    return [out], [None if dx is None else x.ndim - 1]


PAD_TO_MATCH = define(
    Row(
        "pad_to_match",
        _D,
        _P.SAME_ANY,
        2,
        2,
        ("axis",),
        host_only=True,
        doc="zero-pad an axis of x to the size of the same axis of a reference",
        linear_in=(0,),
        dtype_operands=(0,),
    ),
    kernel=_pad_to_match,
    shape=_pad_to_match_shape,
    transpose=_pad_to_match_transpose,
    batch=_pad_to_match_batch,
)


DEFINITIONS: tuple[OpDefinition, ...] = (SHAPE_OF, DYNAMIC_TRUNCATE, PAD_TO_MATCH, CONSTANT)
