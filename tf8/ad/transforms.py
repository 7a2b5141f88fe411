"""grad, value_and_grad, jvp, vjp, hvp: JAX's signatures and semantics, over pytrees.

Each runs op by op on a tape first (tf8.ad.tape, tf8.ad.forward) and, where the tape cannot
follow (NeedGraph), on the graph path: it traces the function on fresh argument leaves,
transforms the graph (tf8.ad.linearize) and hands the result back through `Arguments.finish`:
numpy arrays at top level, TracedTensors inside another transform. linearize,
linear_transpose and vjp's graph path live in tf8.ad.graph_path.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import DifferentiationError, TreeStructureError
from tf8.graph import ValueKey
from tf8.lax.builders import zeros
from tf8.lax.control.one_op import as_program_op, under_tapes
from tf8.ops import dtypes as dt
from tf8.ops.frames import current
from tf8.ops.tracebacks import api_boundary
from tf8.traced import NeedGraph, TracedTensor, only_tapes

from .arguments import as_traced, check_callable, check_differentiable, fresh_leaf, zeros_for
from .forward import ForwardTape
from .graph_path import graph_vjp, linear_transpose
from .graph_path import linearize as graph_linearize
from .linearize import jvp_graph, transpose_graph
from .reverse import vjp_walk
from .roles import grad_output_roles
from .tape import results, run_on_tape, tape_leaves
from .tracing import (
    checked_cotangents,
    checked_tangents,
    flat_outputs,
    split_aux,
    tangent_leaves,
    trace_on_fresh_leaves,
    unflatten_per_arg,
)

# linearize and linear_transpose (tf8.ad.graph_path) are tf8.ad.transforms' names too
__all__ = [
    "grad",
    "graph_vjp",
    "hvp",
    "jvp",
    "linear_transpose",
    "linearize",
    "value_and_grad",
    "vjp",
]


def value_and_grad(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """f(*args) → (value, gradient of the scalar output w.r.t. args[argnums])."""
    check_callable(fun, "grad")
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    @api_boundary
    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        flat = tape_leaves(args, nums, holomorphic)
        if flat is not None:
            try:
                return _tape_value_and_grad(fun, args, kwargs, nums, has_aux, single, flat)
            except NeedGraph:
                pass  # the graph path handles what the tape cannot
        return _graph_value_and_grad(fun, args, kwargs, nums, has_aux, single, holomorphic)

    def on_placeholders(placeholders: Container[ValueKey], *args: Any, **kwargs: Any) -> Any:
        """`value_and_grad_f(*args, **kwargs)` traced by jit: its `placeholders` (only the
        arguments reach them) are the differentiated leaves themselves."""
        return _graph_value_and_grad(
            fun, args, kwargs, nums, has_aux, single, holomorphic, placeholders
        )

    value_and_grad_f.trace_on_placeholders = on_placeholders  # type: ignore[attr-defined]
    # what jit's programs call its outputs and inputs (fun's parameter names): display only
    value_and_grad_f.output_roles = grad_output_roles(nums, single, has_aux, True)  # type: ignore[attr-defined]
    value_and_grad_f.__wrapped__ = fun  # type: ignore[attr-defined]
    return value_and_grad_f


def _graph_value_and_grad(
    fun: Callable,
    args: tuple,
    kwargs: dict,
    nums: Sequence[int],
    has_aux: bool,
    single: bool,
    holomorphic: bool,
    own: Container[ValueKey] = (),
) -> Any:
    """value_and_grad on the graph path: trace, one backward walk, finish."""
    arguments, out, defs = trace_on_fresh_leaves(fun, args, kwargs, nums, "grad", own)
    out, aux_leaves, aux_def = split_aux(out, has_aux, "grad")
    out = as_traced(out)
    check_differentiable(arguments.leaves, "grad", holomorphic)
    _check_scalar_output(out, "grad", holomorphic)
    seed = fresh_leaf(as_traced(np.ones((), dtype=out.dtype)), "seed", bind=True)
    # one backward walk applying each op's derived pullback (the two walks where an op has
    # none: they raise the op's reverse-mode error, or read values)
    cts = vjp_walk([out], arguments.leaves, [seed], arguments.values)
    if cts is None:
        tangents = tangent_leaves(arguments)
        (out_tangent,) = jvp_graph([out], arguments.leaves, tangents, arguments.values)
        cts = transpose_graph([out_tangent], tangents, [seed], arguments.values)
    grads = zeros_for(arguments.leaves, cts)
    finished = arguments.finish([out, *grads, *aux_leaves])
    value, grads, aux_values = (
        finished[0],
        finished[1 : 1 + len(grads)],
        finished[1 + len(grads) :],
    )
    return _value_and_grad_result(value, grads, defs, single, aux_def, aux_values)


def _value_and_grad_result(value, grads, defs, single, aux_def, aux_values) -> Any:
    """(value, gradient) — ((value, aux), gradient) with has_aux — as JAX returns them."""
    per_arg = unflatten_per_arg(defs, grads)
    g = per_arg[0] if single else tuple(per_arg)
    if aux_def is not None:
        return (value, aux_def.unflatten(aux_values)), g
    return value, g


def _tape_value_and_grad(
    fun: Callable,
    args: tuple,
    kwargs: dict,
    nums: Sequence[int],
    has_aux: bool,
    single: bool,
    flat: list,
) -> Any:
    """value_and_grad op by op on a tape (tf8.ad.tape), as the graph path returns it."""
    tape, leaves, out, defs = run_on_tape(fun, args, kwargs, nums, "grad", flat=flat)
    out, aux_leaves, aux_def = split_aux(out, has_aux, "grad")
    out = as_traced(out)
    check_differentiable(leaves, "grad")
    _check_scalar_output(out, "grad", False)
    seed = np.ones((), dtype=out.dtype)
    cts = tape.backward([out], [seed], leaves)
    value, *grads = results([out, *cts], [out, *leaves])
    aux_values = results(aux_leaves, aux_leaves)
    return _value_and_grad_result(value, grads, defs, single, aux_def, aux_values)


def grad(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """The gradient of a scalar-output function (JAX's `grad`)."""
    vg = value_and_grad(fun, argnums, has_aux, holomorphic)
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    @api_boundary
    def grad_f(*args: Any, **kwargs: Any) -> Any:
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    def on_placeholders(placeholders: Container[ValueKey], *args: Any, **kwargs: Any) -> Any:
        """`grad_f(*args, **kwargs)` traced by jit on its `placeholders` (see value_and_grad)."""
        value, g = vg.trace_on_placeholders(placeholders, *args, **kwargs)  # type: ignore[attr-defined]
        return (g, value[1]) if has_aux else g

    grad_f.trace_on_placeholders = on_placeholders  # type: ignore[attr-defined]
    grad_f.output_roles = grad_output_roles(nums, single, has_aux, False)  # type: ignore[attr-defined]
    grad_f.__wrapped__ = fun  # type: ignore[attr-defined]
    return grad_f


def _check_scalar_output(out: TracedTensor, what: str, holomorphic: bool) -> None:
    if out.shape != ():
        raise DifferentiationError(
            f"{what} requires a scalar output, got shape {out.shape} ({out.aval})"
        )
    if dt.is_complex(out.dtype) and not holomorphic:
        raise DifferentiationError(
            f"{what} requires real-valued outputs (float dtype), but got {out.dtype}; "
            "for holomorphic differentiation pass holomorphic=True"
        )
    if not dt.is_inexact(out.dtype):
        raise DifferentiationError(f"{what} requires a float output, got {out.dtype}")


@api_boundary
def jvp(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    """(f(*primals), J·tangents): forward mode, tangents given per primal (pytrees)."""
    check_callable(fun, "jvp")
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise DifferentiationError(
            "jvp takes primals and tangents as tuples or lists of arguments, got "
            f"{type(primals).__name__} and {type(tangents).__name__}"
        )
    if len(primals) != len(tangents):
        raise TreeStructureError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    nums = tuple(range(len(primals)))
    flat = tape_leaves(primals, nums)
    if flat is not None:
        try:
            return _forward_jvp(fun, tuple(primals), tangents, flat)
        except NeedGraph:
            pass  # the graph path handles what the tape cannot
    arguments, out, defs = trace_on_fresh_leaves(fun, tuple(primals), {}, nums, "jvp")
    given = checked_tangents(arguments.leaves, tangents)
    outs, out_def = flat_outputs(out)
    tangents_out = jvp_graph(outs, arguments.leaves, given, arguments.values)
    tangents_out = zeros_for(outs, tangents_out)
    finished = arguments.finish([*outs, *tangents_out])
    n = len(outs)
    return tree.tree_unflatten(out_def, finished[:n]), tree.tree_unflatten(out_def, finished[n:])


def _forward_jvp(
    fun: Callable, primals: tuple, tangents: Sequence[Any], flat: list
) -> tuple[Any, Any]:
    """jvp op by op (tf8.ad.forward): tangents computed beside the values as ops run.
    `flat`: each primal's (treedef, leaves), from `tape_leaves`."""
    p_flat = []
    for n, (treedef, leaves) in enumerate(flat):  # leaves made TracedTensors once
        traced = [as_traced(leaf) for leaf in leaves]
        flat[n] = (treedef, traced)
        p_flat.extend(traced)
    given = checked_tangents(p_flat, tangents)
    for t in given:
        if t._value is None:
            raise NeedGraph("a traced tangent")
    nums = tuple(range(len(primals)))
    forward = ForwardTape()
    # an integer primal carries no tangent (as on the graph path)
    carried = [t if dt.is_inexact(p.dtype) else None for p, t in zip(p_flat, given)]
    _, _, out, _ = run_on_tape(fun, primals, {}, nums, "jvp", forward, carried, flat)
    outs, out_def = flat_outputs(out)
    values = results([*outs, *[forward.tangent(o) for o in outs]], [*outs, *outs])
    n = len(outs)
    return tree.tree_unflatten(out_def, values[:n]), tree.tree_unflatten(out_def, values[n:])


@api_boundary
def vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """(f(*primals), vjp_fun[, aux]); vjp_fun(cotangent) returns one cotangent per primal."""
    check_callable(fun, "vjp")
    nums = tuple(range(len(primals)))
    flat = tape_leaves(primals, nums)
    if flat is not None:
        try:
            return _tape_vjp(fun, primals, has_aux, flat)
        except NeedGraph:
            pass  # the graph path handles what the tape cannot
    return graph_vjp(fun, *primals, has_aux=has_aux)


def _tape_vjp(fun: Callable, primals: tuple, has_aux: bool, flat: list) -> tuple[Any, ...]:
    """vjp op by op on a tape; its vjp_fun runs the tape backward (or, called inside another
    transform or on traced cotangents, the graph path's vjp_fun)."""
    nums = tuple(range(len(primals)))
    tape, leaves, out, defs = run_on_tape(fun, primals, {}, nums, "vjp", flat=flat)
    out, aux_leaves, aux_def = split_aux(out, has_aux, "vjp")
    aux_out = None
    if has_aux:
        aux_out = aux_def.unflatten(results(aux_leaves, aux_leaves))
    outs, out_def = flat_outputs(out)
    check_differentiable(leaves, "vjp")
    primal_out = tree.tree_unflatten(out_def, results(outs, outs))

    @api_boundary
    def vjp_fun(cotangent: Any) -> tuple[Any, ...]:
        cts = checked_cotangents(cotangent, out_def, outs, [o.shape for o in outs])
        if not only_tapes() or any(c._value is None for c in cts):
            # inside another transform (jit tracing it), or on traced cotangents: the tape's
            # backward pass as tf8 ops that transform records (the function does not run again)
            found = tape.backward(outs, cts, leaves, traced=True)
            traced = [zeros(t.aval) if f is None else as_traced(f) for f, t in zip(found, leaves)]
            return tuple(unflatten_per_arg(defs, traced))
        # inside enclosing tapes the cotangents may depend on what they differentiate
        nested = bool(current().tapes)
        found = tape.backward(outs, [c if nested else c._value for c in cts], leaves)
        return tuple(unflatten_per_arg(defs, results(found, leaves)))

    return (primal_out, vjp_fun, aux_out) if has_aux else (primal_out, vjp_fun)


def hvp(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
    """Hessian-vector product: forward-over-reverse, jvp(grad(f), primals, tangents)[1]."""
    argnums = 0 if len(primals) == 1 else tuple(range(len(primals)))
    return jvp(grad(fun, argnums=argnums), tuple(primals), tuple(tangents))[1]


@api_boundary
def linearize(fun: Callable, *primals: Any) -> tuple[Any, Callable]:
    """(f(*primals), f_jvp) where f_jvp(*tangents) evaluates the linearised map (JAX's
    `linearize`). Inside op-by-op tapes (`grad` of a function calling it) the function is
    traced once into one op they follow, and f_jvp is the jvp of that op: `fun` runs once."""
    if not under_tapes():
        return graph_linearize(fun, *primals)
    check_callable(fun, "linearize")
    leaves, treedef = tree.tree_flatten(list(primals))
    leaves = [as_traced(leaf) for leaf in leaves]
    call, out_def = as_program_op(lambda *ls: fun(*tree.tree_unflatten(treedef, list(ls))), leaves)
    primal_out = tree.tree_unflatten(out_def, call(*leaves))

    def f_jvp(*tangents: Any) -> Any:
        flat = tree.tree_leaves(list(tangents))
        if len(flat) != len(leaves):
            raise TreeStructureError("linearize: tangents do not have the structure of primals")
        _, out = jvp(lambda *ls: call(*ls), tuple(leaves), tuple(flat))
        return tree.tree_unflatten(out_def, list(out))

    return primal_out, f_jvp
