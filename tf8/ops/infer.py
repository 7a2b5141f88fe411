"""Shape and dtype inference for catalog primitives, from their definitions.

`infer_primitive(op, avals, guards)` returns the output avals of primitive `op` applied to
`avals`; constraints it cannot prove on symbolic dimensions are appended to `guards` as run-time
`ShapeGuard`s. (`tf8.ops.definition.infer` is the entry point for every kind of op.) Errors
name the op, the shapes and the dtypes involved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tf8.errors import ArityError, AxisError, ShapeError
from tf8.ops.avals import Aval
from tf8.ops.dtype_rules import infer_dtype
from tf8.ops.shape_checks import Guards, check_axis, describe, require_equal
from tf8.ops.shapes import Dim, dims_equal

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
    found = op.definition
    dtype = infer_dtype(op, avals) if found.dtype is None else found.dtype(op, avals)
    return (Aval(tuple(found.shape(op, avals, guards)), dtype),)


def axes_param(op: Any, axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    """Axis parameters `axes` of `op` checked against rank `ndim` (no repeats), normalised."""
    norm = tuple(check_axis(op, a, ndim) for a in axes)
    if len(set(norm)) != len(norm):
        raise AxisError(f"{op.name}: repeated axis in {tuple(axes)}")
    return norm
