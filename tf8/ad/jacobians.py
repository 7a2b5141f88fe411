"""jacfwd, jacrev and hessian over pytrees, with JAX's argnums/has_aux/holomorphic semantics.

Both build the linearised graph once. jacfwd pushes the whole input basis through it, jacrev
pulls the whole output basis back, each as one batched program (the batching interpreter run
over the basis: vmap of the jvp / vjp); the stacked columns or rows are split into blocks of
shape out.shape + in.shape. The result is nested like JAX's: the
output's pytree, each of whose leaves holds the (per-argnums) input pytree of blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import DifferentiationError
from tf8.lax.builders import reshape, zeros
from tf8.lax.control.one_op import as_one_op, under_tapes
from tf8.lax.core import apply1
from tf8.ops import dtypes as dt
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from .arguments import as_traced, check_callable, check_differentiable, fresh_leaf
from .batching import batch_graph
from .batching.core import at_front, moveaxis
from .linearize import jvp_graph, transpose_graph
from .tracing import (
    flat_outputs,
    split_aux,
    tangent_leaves,
    trace_on_fresh_leaves,
    unflatten_per_arg,
)


def _size(shape: Sequence[Any]) -> int:
    if not all(isinstance(d, int) for d in shape):
        raise DifferentiationError(f"jacobians need concrete shapes, got {tuple(shape)}")
    return int(np.prod(shape, dtype=np.int64))


def _bases(avals: Sequence[Aval]) -> tuple[int, list[TracedTensor]]:
    """(n, one basis stack per aval): the rows of the n x n identity, n the total size of
    `avals`, split per aval and shaped (n, *aval.shape)."""
    sizes = [_size(a.shape) for a in avals]
    total = sum(sizes)
    stacks, offset = [], 0
    for aval, size in zip(avals, sizes):
        eye = np.zeros((total, size), dtype=aval.dtype)
        eye[offset + np.arange(size), np.arange(size)] = 1
        stacks.append(as_traced(eye.reshape((total, *aval.shape))))
        offset += size
    return total, stacks


def _rows(stacked: TracedTensor, offset: int, count: int) -> TracedTensor:
    """Rows offset .. offset+count of axis 0 of `stacked`."""
    start = (offset,) + (0,) * (stacked.ndim - 1)
    limit = (offset + count, *stacked.shape[1:])
    if start == (0,) * stacked.ndim and limit == stacked.shape:
        return stacked
    return apply1("slice", [stacked], start=start, limit=limit, strides=None)


def _blocks(stacked, row_avals, col_aval, rows_first: bool) -> list[TracedTensor]:
    """Split `stacked` ((n, *col_aval.shape), n the total size of `row_avals`) into one
    Jacobian block per row aval: out.shape + x.shape (rows_first: row aval is the output)."""
    blocks, offset = [], 0
    for aval in row_avals:
        size = _size(aval.shape)
        part = _rows(stacked, offset, size)
        shape = (*aval.shape, *col_aval.shape) if rows_first else (*col_aval.shape, *aval.shape)
        if not rows_first:  # (size, *out.shape) -> (*out.shape, size)
            part = moveaxis(reshape(part, (size, _size(col_aval.shape))), 0, 1)
        blocks.append(reshape(part, shape))
        offset += size
    return blocks


def _jacobian(
    fun: Callable, argnums: int | Sequence[int], has_aux: bool, holomorphic: bool, mode: str
) -> Callable:
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    what = "jacfwd" if mode == "fwd" else "jacrev"
    check_callable(fun, what)

    def jac(*args: Any) -> Any:
        if under_tapes():  # op-by-op grad/jvp: one op they follow (the function runs once)
            return as_one_op(lambda: traced(args))
        return traced(args)

    def traced(args: tuple) -> Any:
        arguments, out, defs = trace_on_fresh_leaves(fun, args, {}, nums, what)
        out, aux_leaves, aux_def = split_aux(out, has_aux, what)
        check_differentiable(arguments.leaves, what, holomorphic)
        outs, out_def = flat_outputs(out)
        _check_complex(what, mode, holomorphic, arguments.leaves, outs)
        xs = arguments.leaves
        tangents = tangent_leaves(arguments)
        t_outs = jvp_graph(outs, xs, tangents, arguments.values)
        step = _forward if mode == "fwd" else _reverse
        blocks = step(outs, xs, tangents, t_outs, arguments.values)
        finished = arguments.finish([b for row in blocks for b in row] + aux_leaves)
        per_out = []
        for i in range(len(outs)):
            row = finished[i * len(xs) : (i + 1) * len(xs)]
            per_arg = unflatten_per_arg(defs, row)
            per_out.append(per_arg[0] if single else tuple(per_arg))
        result = tree.tree_unflatten(out_def, per_out)
        if has_aux:
            return result, aux_def.unflatten(finished[len(outs) * len(xs) :])
        return result

    jac.__wrapped__ = fun  # type: ignore[attr-defined]  # fun's parameter names, for jit
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


def _forward(outs, xs, tangents, t_outs, values) -> list[list[TracedTensor]]:
    """All columns at once: the tangent program run on the stacked input basis (one batched
    program, not one per basis vector)."""
    total, bases = _bases([x.aval for x in xs])
    present = [t for t in t_outs if t is not None]
    found = iter(batch_graph(present, tangents, bases, [0] * len(xs), values) if total else [])
    result = []
    for out, t in zip(outs, t_outs):
        if t is None or not total:
            result.append([zeros(Aval((*out.shape, *x.shape), out.dtype)) for x in xs])
            continue
        column, d = next(found)
        stacked = at_front(column, d, total)  # (total, *out.shape)
        result.append(_blocks(stacked, [x.aval for x in xs], out.aval, rows_first=False))
    return result


def _reverse(outs, xs, tangents, t_outs, values) -> list[list[TracedTensor]]:
    """All rows at once: the transposed program run on the stacked output basis."""
    cts = [fresh_leaf(out, "cotangent", bind=False) for out in outs]
    total, bases = _bases([out.aval for out in outs])
    ct_xs = transpose_graph(t_outs, tangents, cts, values)
    present = [c for c in ct_xs if c is not None]
    found = iter(batch_graph(present, cts, bases, [0] * len(outs), values) if total else [])
    per_x = []
    for x, c in zip(xs, ct_xs):
        if c is None or not total:
            per_x.append([zeros(Aval((*out.shape, *x.shape), out.dtype)) for out in outs])
            continue
        row, d = next(found)
        stacked = at_front(row, d, total)  # (total, *x.shape)
        per_x.append(_blocks(stacked, [out.aval for out in outs], x.aval, rows_first=True))
    return [[per_x[j][o] for j in range(len(xs))] for o in range(len(outs))]


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
