"""Structural rows: ops that move, copy or generate elements without arithmetic — transpose,
reshape, broadcast_in_dim, concatenate, reverse and iota (the diagonal and triangle ops are
in diagonals.py).

Each row sits with its numpy kernel, shape rule, transpose rule (they are linear: their JVP
is the op on the tangents) and batching rule, written with the builders the transforms hand
in as `lax`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import AxisError, ShapeError
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define, zero_jvp
from tf8.ops.fusion import Fusion, Index, Read, Shape, View, offset_index
from tf8.ops.infer import axes_param
from tf8.ops.shape_checks import Guards, check_axis, describe, require_equal
from tf8.ops.shapes import Dim, DimExpr, ShapeGuard, dims_equal, shape_str

from .batch_axes import (
    batch_size,
    batched_axis,
    example_axes,
    example_axis,
)
from .common import no_operands, transpose_each

_S, _P = Category.STRUCTURAL, DTypePolicy


def _shape_param(op: Any, name: str) -> tuple[Dim, ...]:
    """The shape parameter `name`, checked to hold sizes (ints >= 0 or symbolic dims)."""
    shape = op[name]
    if not isinstance(shape, tuple) or not all(
        isinstance(d, DimExpr) or (type(d) is int and d >= 0) for d in shape
    ):
        raise ShapeError(f"{op.name}: {name} {shape!r} must be a tuple of sizes >= 0")
    return shape


def _size(shape: Sequence[Dim]) -> Dim:
    total: Dim = 1
    for d in shape:
        total = total * d
    return total


# --- transpose, reshape, broadcast_in_dim -----------------------------------------------------


def _transpose_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape, perm = avals[0].shape, op["permutation"]
    if sorted(perm) != list(range(len(shape))):
        raise AxisError(f"transpose: permutation {perm} does not fit {shape_str(shape)}")
    return tuple(shape[p] for p in perm)


def _transpose_index(op: Any, shape: Shape, out: Shape, idx: Index) -> Index:
    result = [""] * len(shape)
    for k, axis in enumerate(op["permutation"]):
        result[axis % len(shape)] = idx[k]
    return tuple(result)


def _transpose_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list:
    inverse = tuple(int(i) for i in np.argsort(op["permutation"]))
    return [lax.transpose(ct, inverse)]


def _transpose_batch(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
    (x,), (d,) = args, dims
    perm = (d, *(batched_axis(p, d) for p in op["permutation"]))
    return [lax.transpose(x, perm)], [0]


def _reshape_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    old, new = avals[0].shape, _shape_param(op, "shape")
    same = dims_equal(_size(old), _size(new))
    if same is False:
        raise ShapeError(f"reshape: cannot reshape {shape_str(old)} into {shape_str(new)}")
    if same is None:
        guards.append(ShapeGuard(_size(old), _size(new), f"reshape {shape_str(old)} → ..."))
    return tuple(new)


def _reshape_index(op: Any, shape: Shape, out: Shape, idx: Index) -> Index:
    """Row-major: through the flat position, unless the reshape only adds or drops axes of
    size 1 (then the other axes map one to one)."""
    kept_out = [i for i, n in zip(idx, out) if n != 1]
    if [n for n in shape if n != 1] == [n for n in out if n != 1]:
        it = iter(kept_out)
        return tuple("0" if n == 1 else next(it) for n in shape)
    terms, stride = [], 1
    for i, n in reversed(list(zip(idx, out))):
        if n != 1:
            terms.append(i if stride == 1 else f"{i} * {stride}")
        stride *= n
    flat = "(" + " + ".join(reversed(terms)) + ")" if terms else "0"
    result, stride = [], 1
    for n in reversed(shape):
        result.append("0" if n == 1 else f"(({flat} // {stride}) % {n})")
        stride *= n
    return tuple(reversed(result))


def _reshape_batch(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
    (x,), (d,) = args, dims
    x = lax.moveaxis(x, d, 0)
    return [lax.reshape(x, (x.shape[0], *op["shape"]))], [0]


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


def _broadcast(op: Any, x: np.ndarray) -> np.ndarray:
    shape, dims = op["shape"], op["broadcast_dimensions"]
    expanded = [1] * len(shape)
    for axis, d in zip(dims, x.shape):
        expanded[axis] = d
    return np.broadcast_to(x.reshape(expanded), shape)


def _broadcast_index(op: Any, shape: Shape, out: Shape, idx: Index) -> Index:
    return tuple("0" if n == 1 else idx[d] for n, d in zip(shape, op["broadcast_dimensions"]))


def _broadcast_dask(kit: Any, op: Any, x: Any) -> Any:
    shape, dims = op["shape"], op["broadcast_dimensions"]
    expanded = [1] * len(shape)
    for axis, d in zip(dims, x.shape):
        expanded[axis] = d
    return kit.array.broadcast_to(kit.as_dask(x).reshape(expanded), shape)


def _broadcast_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list:
    (x,) = operands
    dims = op["broadcast_dimensions"]
    target = op["shape"]
    summed = [i for i in range(len(target)) if i not in dims]
    # Operand axes of size 1 that were stretched are summed too (then reshaped back).
    stretched = [dims[i] for i, d in enumerate(x.shape) if d == 1 and target[dims[i]] != 1]
    total = lax.reduce_sum(ct, sorted(summed + stretched))
    return [lax.reshape(total, x.shape)]


def _broadcast_batch(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
    (x,), (d,) = args, dims
    x = lax.moveaxis(x, d, 0)
    shape = (x.shape[0], *op["shape"])
    kept = (0, *(b + 1 for b in op["broadcast_dimensions"]))
    return [lax.apply1("broadcast_in_dim", [x], shape=shape, broadcast_dimensions=kept)], [0]


# --- concatenate, reverse, iota ---------------------------------------------------------------


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


def _concatenate_element(
    op: Any, shapes: Sequence[Shape], out: Shape, idx: Index, read: Read
) -> str:
    axis = op["axis"] % len(out)
    offsets = np.cumsum([0] + [s[axis] for s in shapes]).tolist()
    i = idx[axis]
    expression = ""
    for position in range(len(shapes) - 1, -1, -1):
        index = (*idx[:axis], offset_index(i, 1, -offsets[position]), *idx[axis + 1 :])
        element = read(position, index)
        if not expression:
            expression = element
        else:
            expression = f"({element} if {i} < {offsets[position + 1]} else {expression})"
    return expression


def _concatenate_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list:
    (axis,) = lax.normalize_axes([op["axis"]], ct.ndim)
    result: list = []
    offset = 0
    for x, is_linear in zip(operands, linear):
        size = x.shape[axis]
        if is_linear:
            start = tuple(offset if i == axis else 0 for i in range(ct.ndim))
            limit = tuple(offset + size if i == axis else d for i, d in enumerate(ct.shape))
            result.append(lax.apply1("slice", [ct], start=start, limit=limit, strides=None))
        else:
            result.append(None)
        offset = offset + size
    return result


def _concatenate_batch(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
    size = batch_size(args, dims)
    axis = example_axis(op["axis"], args[0].ndim - (dims[0] is not None))
    operands = [lax.at_front(x, d, size) for x, d in zip(args, dims)]
    return [lax.apply(lax.with_params(op, axis=axis + 1), operands)[0]], [0]


def _reverse_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    axes_param(op, op["axes"], avals[0].ndim)
    return avals[0].shape


def _reverse_index(op: Any, shape: Shape, out: Shape, idx: Index) -> Index:
    axes = {a % len(shape) for a in op["axes"]}
    return tuple(
        f"({n - 1} - {i})" if a in axes and n > 1 else i for a, (i, n) in enumerate(zip(idx, shape))
    )


def _reverse_batch(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
    (x,), (d,) = args, dims
    axes = tuple(batched_axis(a, d) for a in example_axes(op["axes"], x.ndim - 1))
    return [lax.apply(lax.with_params(op, axes=axes), [x])[0]], [d]


def _iota_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = _shape_param(op, "shape")
    check_axis(op, op["dimension"], len(shape))
    return shape


def _iota_in(array: Any) -> Any:
    """iota's kernel on the array module `array` (numpy; dask.array for the Dask engine)."""

    def iota(op: Any) -> Any:
        shape, dim = tuple(op["shape"]), op["dimension"]
        ramp = array.arange(shape[dim], dtype=np.dtype(op["dtype"]))
        view = [1] * len(shape)
        view[dim] = shape[dim]
        return array.broadcast_to(ramp.reshape(view), shape)

    return iota


def _iota_element(op: Any, shapes: Sequence[Shape], out: Shape, idx: Index, read: Read) -> str:
    return f"np.{np.dtype(op['dtype']).name}({idx[op['dimension'] % len(out)]})"


def _to_shape_rank(op: Any, ndim: int) -> int:
    """The rank of a reshape's or broadcast's result: its `shape` parameter's."""
    return len(op["shape"])


# numpy views (no copy): transpose and reshape are ndarray methods, a broadcast its kernel
TRANSPOSE_VIEW = View(
    code=lambda op, x, bind: f"{x}.transpose({tuple(op['permutation'])!r})", method=True
)
RESHAPE_VIEW = View(
    code=lambda op, x, bind: f"{x}.reshape({tuple(op['shape'])!r})",
    method=True,
    rank=_to_shape_rank,
)
BROADCAST_VIEW = View(rank=_to_shape_rank, broadcast=True)


DEFINITIONS: tuple[OpDefinition, ...] = (
    define(
        Row("transpose", _S, _P.SAME_ANY, 1, 1, ("permutation",), linear=True, doc="permute axes"),
        kernel=lambda op, x: np.transpose(x, op["permutation"]),
        shape=_transpose_shape,
        transpose=_transpose_transpose,
        batch=_transpose_batch,
        fusion=Fusion(
            index=_transpose_index,
            dask=lambda kit, op, x: kit.array.transpose(kit.as_dask(x), op["permutation"]),
            view=TRANSPOSE_VIEW,
        ),
    ),
    define(
        Row("reshape", _S, _P.SAME_ANY, 1, 1, ("shape",), linear=True, doc="row-major reshape"),
        kernel=lambda op, x: np.reshape(x, op["shape"]),
        shape=_reshape_shape,
        transpose=transpose_each(lambda lax, ct, x: lax.reshape(ct, x.shape)),
        batch=_reshape_batch,
        fusion=Fusion(
            index=_reshape_index,
            dask=lambda kit, op, x: kit.array.reshape(kit.as_dask(x), op["shape"]),
            view=RESHAPE_VIEW,
        ),
    ),
    define(
        Row(
            "broadcast_in_dim",
            _S,
            _P.SAME_ANY,
            1,
            1,
            ("shape", "broadcast_dimensions"),
            linear=True,
            doc="operand axis i becomes result axis broadcast_dimensions[i]",
        ),
        kernel=_broadcast,
        shape=_broadcast_shape,
        transpose=_broadcast_transpose,
        batch=_broadcast_batch,
        # numba: of a 0-d value only (NumbaEngine.supports); other shapes are index arithmetic
        fusion=Fusion(
            scalar=lambda op, a: a[0],
            dask=_broadcast_dask,
            index=_broadcast_index,
            reads=lambda op, shapes, out, p: math.prod(out) / math.prod(shapes[p]),
            view=BROADCAST_VIEW,
        ),
    ),
    define(
        Row("concatenate", _S, _P.SAME_ANY, 1, None, ("axis",), linear=True, doc="join along axis"),
        kernel=lambda op, *xs: np.concatenate(xs, axis=op["axis"]),
        shape=_concatenate_shape,
        transpose=_concatenate_transpose,
        batch=_concatenate_batch,
        fusion=Fusion(
            element=_concatenate_element,
            dask=lambda kit, op, *xs: kit.array.concatenate(
                [kit.as_dask(x) for x in xs], axis=op["axis"]
            ),
        ),
    ),
    define(
        Row("reverse", _S, _P.SAME_ANY, 1, 1, ("axes",), linear=True, doc="flip axes"),
        kernel=lambda op, x: np.flip(x, op["axes"]),
        shape=_reverse_shape,
        transpose=lambda lax, op, operands, linear, ct: [
            lax.apply1("reverse", [ct], axes=op["axes"])
        ],
        batch=_reverse_batch,
        fusion=Fusion(
            index=_reverse_index,
            dask=lambda kit, op, x: kit.array.flip(kit.as_dask(x), op["axes"]),
        ),
    ),
    define(
        Row(
            "iota",
            _S,
            _P.CONSTANT,
            0,
            0,
            ("shape", "dtype", "dimension"),
            doc="0, 1, 2 ... on one axis",
        ),
        kernel=_iota_in(np),
        shape=_iota_shape,
        jvp=zero_jvp,  # a constant ramp
        batch=no_operands,
        fusion=Fusion(element=_iota_element, dask=lambda kit, op: _iota_in(kit.array)(op)),
    ),
)
