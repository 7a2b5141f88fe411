"""Shape and dtype inference for every catalog row.

`infer_primitive(op, avals, guards)` returns the output avals of primitive `op` applied to
`avals`; constraints it cannot prove on symbolic dimensions are appended to `guards` as run-time
`ShapeGuard`s. (`tf8.ops.definition.infer` is the entry point for every kind of op.) Errors
name the op, the shapes and the dtypes involved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tf8.errors import ArityError, AxisError, ParameterError, ShapeError
from tf8.ops.avals import Aval
from tf8.ops.dtype_rules import infer_dtype
from tf8.ops.shape_checks import Guards, check_axis, describe, require_equal
from tf8.ops.shapes import Dim, DimExpr, ShapeGuard, dim_min, dims_equal, shape_str

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
    found = op.definition
    dtype = infer_dtype(op, avals) if found.dtype is None else found.dtype(op, avals)
    return (Aval(tuple(op.definition.shape(op, avals, guards)), dtype),)


def _shape_param(op: Any, name: str) -> tuple[Dim, ...]:
    """The shape parameter `name`, checked to hold sizes (ints >= 0 or symbolic dims)."""
    shape = op[name]
    if not isinstance(shape, tuple) or not all(
        isinstance(d, DimExpr) or (type(d) is int and d >= 0) for d in shape
    ):
        raise ShapeError(f"{op.name}: {name} {shape!r} must be a tuple of sizes >= 0")
    return shape


def _axes_param(op: Any, axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    norm = tuple(check_axis(op, a, ndim) for a in axes)
    if len(set(norm)) != len(norm):
        raise AxisError(f"{op.name}: repeated axis in {tuple(axes)}")
    return norm


def _reduce_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    axes = _axes_param(op, op["axes"], len(shape))
    if op.name in ("reduce_max", "reduce_min"):
        if any(shape[a] == 0 for a in axes):
            raise ShapeError(
                f"{op.name}: zero-size axis {axes} of {shape_str(shape)} has no identity"
            )
        for a in axes:
            _guard_nonempty(op, shape, a, guards)
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _guard_nonempty(op: Any, shape: tuple[Dim, ...], axis: int, guards: Guards) -> None:
    """A symbolic axis that max/min/argmax reduces must hold an element when the program runs."""
    if isinstance(shape[axis], DimExpr):
        text = f"axis {axis} of {shape_str(shape)} must not be empty ({op.name} has no identity)"
        require_equal(op, dim_min(shape[axis], 1), 1, text, guards)


def _arg_reduce_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    axis = check_axis(op, op["axis"], len(shape), scalar_as_vector=True)
    if shape and shape[axis] == 0:
        raise ShapeError(f"{op.name}: attempt to take {op.name} of an empty axis")
    if shape:
        _guard_nonempty(op, shape, axis, guards)
    return shape[:axis] + shape[axis + 1 :]


def _same_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    if op.name == "cumsum":
        check_axis(op, op["axis"], avals[0].ndim, scalar_as_vector=True)
    return avals[0].shape


def _matrix_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    if len(shape) < 2:
        raise ShapeError(f"{op.name}: needs at least 2 axes, got {shape_str(shape)}")
    if op.name == "extract_diag":
        require_equal(op, shape[-2], shape[-1], f"square matrix, got {shape_str(shape)}", guards)
        return shape[:-1]
    return shape


def _embed_diag_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    if not shape:
        raise ShapeError(f"{op.name}: needs at least 1 axis, got a scalar")
    return shape + shape[-1:]


def _transpose_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape, perm = avals[0].shape, op["permutation"]
    if sorted(perm) != list(range(len(shape))):
        raise AxisError(f"transpose: permutation {perm} does not fit {shape_str(shape)}")
    return tuple(shape[p] for p in perm)


def _size(shape: Sequence[Dim]) -> Dim:
    total: Dim = 1
    for d in shape:
        total = total * d
    return total


def _reshape_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    old, new = avals[0].shape, _shape_param(op, "shape")
    same = dims_equal(_size(old), _size(new))
    if same is False:
        raise ShapeError(f"reshape: cannot reshape {shape_str(old)} into {shape_str(new)}")
    if same is None:
        guards.append(ShapeGuard(_size(old), _size(new), f"reshape {shape_str(old)} → ..."))
    return tuple(new)


def _broadcast_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape, target, dims = avals[0].shape, _shape_param(op, "shape"), op["broadcast_dimensions"]
    if len(dims) != len(shape) or any(not 0 <= d < len(target) for d in dims):
        raise ShapeError(
            f"broadcast_in_dim: dimensions {dims} do not map {shape_str(shape)} "
            f"into {shape_str(target)}"
        )
    if list(dims) != sorted(set(dims)):
        raise ShapeError(f"broadcast_in_dim: dimensions {dims} must be strictly increasing")
    for axis, d in zip(dims, shape):
        if dims_equal(d, 1) is not True:
            require_equal(
                op,
                d,
                target[axis],
                lambda: f"broadcast {shape_str(shape)} → {shape_str(target)}",
                guards,
            )
    return tuple(target)


def _dot_general_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    lhs, rhs = avals[0].shape, avals[1].shape
    (lc, rc), (lb, rb) = op["contracting"], op["batch"]
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise ParameterError(f"dot_general: contracting {op['contracting']} batch {op['batch']}")
    lhs_axes = _axes_param(op, tuple(lc) + tuple(lb), len(lhs))
    rhs_axes = _axes_param(op, tuple(rc) + tuple(rb), len(rhs))
    # Normalised (negative axes allowed): the free-axis scan below compares positions.
    lc, lb = lhs_axes[: len(lc)], lhs_axes[len(lc) :]
    rc, rb = rhs_axes[: len(rc)], rhs_axes[len(rc) :]
    what = f"contracting dims of {shape_str(lhs)} and {shape_str(rhs)}"
    for a, b in zip(lc, rc):
        if dims_equal(lhs[a], rhs[b]) is False:
            raise ShapeError(f"dot_general: {what} differ ({lhs[a]} vs {rhs[b]})")
        require_equal(op, lhs[a], rhs[b], what, guards)
    for a, b in zip(lb, rb):
        require_equal(
            op, lhs[a], rhs[b], f"batch dims of {shape_str(lhs)}, {shape_str(rhs)}", guards
        )
    lhs_free = [d for i, d in enumerate(lhs) if i not in lc and i not in lb]
    rhs_free = [d for i, d in enumerate(rhs) if i not in rc and i not in rb]
    return tuple(lhs[a] for a in lb) + tuple(lhs_free) + tuple(rhs_free)


def _concatenate_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    first = avals[0].shape
    if not first:
        raise ShapeError("concatenate: zero-dimensional arrays cannot be concatenated")
    axis = check_axis(op, op["axis"], len(first))
    total: Dim = 0
    for a in avals:
        if len(a.shape) != len(first):
            raise ShapeError(f"concatenate: operands of different ranks: {describe(avals)}")
        for i, (x, y) in enumerate(zip(first, a.shape)):
            if i != axis:
                if dims_equal(x, y) is False:
                    raise ShapeError(f"concatenate: axis {i} differs in {describe(avals)}")
                require_equal(op, x, y, lambda i=i: f"axis {i} of {describe(avals)}", guards)
        total = total + a.shape[axis]
    return first[:axis] + (total,) + first[axis + 1 :]


def _reverse_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    _axes_param(op, op["axes"], avals[0].ndim)
    return avals[0].shape


def _iota_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = _shape_param(op, "shape")
    check_axis(op, op["dimension"], len(shape))
    return shape


SHAPE_RULES: dict[str, ShapeRule] = {
    "reduce_sum": _reduce_shape,
    "reduce_prod": _reduce_shape,
    "reduce_max": _reduce_shape,
    "reduce_min": _reduce_shape,
    "argmax": _arg_reduce_shape,
    "argmin": _arg_reduce_shape,
    "cumsum": _same_shape,
    "transpose": _transpose_shape,
    "reshape": _reshape_shape,
    "broadcast_in_dim": _broadcast_shape,
    "dot_general": _dot_general_shape,
    "extract_diag": _matrix_shape,
    "embed_diag": _embed_diag_shape,
    "tril": _matrix_shape,
    "triu": _matrix_shape,
    "concatenate": _concatenate_shape,
    "reverse": _reverse_shape,
    "iota": _iota_shape,
}
