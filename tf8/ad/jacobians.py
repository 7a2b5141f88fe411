"""jacfwd, jacrev and hessian over pytrees, with JAX's argnums/has_aux/holomorphic semantics.

Both build the linearised graph once. jacfwd pushes one basis tangent per input element
through it, jacrev pulls one basis cotangent per output element back; the rows or columns are
stacked into blocks of shape out.shape + in.shape. The result is nested like JAX's: the
output's pytree, each of whose leaves holds the (per-argnums) input pytree of blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import DifferentiationError
from tf8.lax.builders import reshape, zeros
from tf8.ops import dtypes as dt
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from .arguments import as_traced, check_differentiable, zeros_for
from .linearize import jvp_graph, transpose_graph
from .transforms import (
    _flat_outputs,
    _tangent_leaves,
    _trace,
    _unflatten_per_arg,
    split_aux,
)
from .walk import substitute


def _size(shape: Sequence[Any]) -> int:
    if not all(isinstance(d, int) for d in shape):
        raise DifferentiationError(f"jacobians need concrete shapes, got {tuple(shape)}")
    return int(np.prod(shape, dtype=np.int64))


def _basis(aval: Aval, index: int) -> TracedTensor:
    one = np.zeros(_size(aval.shape), dtype=aval.dtype)
    one[index] = 1
    return as_traced(one.reshape(aval.shape))


def _block(
    parts: list[TracedTensor], axis: int, out: TracedTensor, x: TracedTensor
) -> TracedTensor:
    """Stack rows (axis 0) or columns (axis 1) into a block of shape out.shape + x.shape."""
    from tf8.numpy import stack

    shape = tuple(out.shape) + tuple(x.shape)
    if not parts:
        return zeros(Aval(shape, out.dtype))
    return reshape(stack(parts, axis=axis), shape)


def _jacobian(
    fun: Callable, argnums: int | Sequence[int], has_aux: bool, holomorphic: bool, mode: str
) -> Callable:
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    what = "jacfwd" if mode == "fwd" else "jacrev"

    def jac(*args: Any) -> Any:
        arguments, out, defs = _trace(fun, args, {}, nums, what)
        out, aux_leaves, aux_def = split_aux(out, has_aux, what)
        check_differentiable(arguments.leaves, what, holomorphic)
        outs, out_def = _flat_outputs(out)
        _check_complex(what, mode, holomorphic, arguments.leaves, outs)
        xs = arguments.leaves
        tangents = _tangent_leaves(arguments)
        t_outs = jvp_graph(outs, xs, tangents, arguments.values)
        blocks = (
            _forward(outs, xs, tangents, t_outs)
            if mode == "fwd"
            else _reverse(outs, xs, tangents, t_outs)
        )
        finished = arguments.finish([b for row in blocks for b in row] + aux_leaves)
        per_out = []
        for i in range(len(outs)):
            row = finished[i * len(xs) : (i + 1) * len(xs)]
            per_arg = _unflatten_per_arg(defs, row)
            per_out.append(per_arg[0] if single else tuple(per_arg))
        result = tree.tree_unflatten(out_def, per_out)
        if has_aux:
            return result, tree.tree_unflatten(aux_def, finished[len(outs) * len(xs) :])
        return result

    return jac


def _check_complex(what: str, mode: str, holomorphic: bool, xs, outs) -> None:
    """JAX's rule: without holomorphic=True, jacfwd needs real inputs, jacrev real outputs."""
    if holomorphic:
        if any(not dt.is_complex(o.dtype) for o in outs):
            raise DifferentiationError(f"{what} with holomorphic=True requires complex outputs")
        return
    values, role = (xs, "inputs") if mode == "fwd" else (outs, "outputs")
    for v in values:
        if dt.is_complex(v.dtype):
            raise DifferentiationError(
                f"{what} requires real-valued {role} (float dtype), but got {v.dtype}; for "
                "holomorphic differentiation pass holomorphic=True"
            )


def _forward(outs, xs, tangents, t_outs) -> list[list[TracedTensor]]:
    t_outs = zeros_for(outs, t_outs)
    columns: list[list[list[TracedTensor]]] = [[[] for _ in xs] for _ in outs]
    for j, x in enumerate(xs):
        for i in range(_size(x.shape)):
            mapping = {
                t.key: (_basis(x.aval, i) if k == j else zeros(t.aval))
                for k, t in enumerate(tangents)
            }
            for o, (out, column) in enumerate(zip(outs, substitute(t_outs, mapping))):
                columns[o][j].append(reshape(column, (_size(out.shape),)))
    return [
        [_block(columns[o][j], 1, out, x) for j, x in enumerate(xs)] for o, out in enumerate(outs)
    ]


def _reverse(outs, xs, tangents, t_outs) -> list[list[TracedTensor]]:
    rows: list[list[list[TracedTensor]]] = [[[] for _ in xs] for _ in outs]
    for o, out in enumerate(outs):
        for i in range(_size(out.shape)):
            cts = [_basis(out.aval, i) if k == o else None for k in range(len(outs))]
            for j, (x, ct) in enumerate(
                zip(xs, zeros_for(xs, transpose_graph(t_outs, tangents, cts)))
            ):
                rows[o][j].append(reshape(ct, (_size(x.shape),)))
    return [[_block(rows[o][j], 0, out, x) for j, x in enumerate(xs)] for o, out in enumerate(outs)]


def jacfwd(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """Jacobian by forward mode (one tangent per input element), over pytrees."""
    return _jacobian(fun, argnums, has_aux, holomorphic, "fwd")


def jacrev(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """Jacobian by reverse mode (one cotangent per output element), over pytrees."""
    return _jacobian(fun, argnums, has_aux, holomorphic, "rev")


def hessian(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """Second derivatives: jacfwd of jacrev (JAX's composition)."""
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)
