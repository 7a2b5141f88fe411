"""The transforms that always run on the graph path: linearize, linear_transpose, and vjp's
graph path (`graph_vjp`, what the tape falls back to).

Each traces the function on fresh argument leaves, transforms the graph (tf8.ad.linearize:
jvp_graph, then transpose_graph) and hands the result back through `Arguments.finish`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tf8 import tree
from tf8.errors import TreeStructureError

from .arguments import as_traced, check_callable, zeros_for
from .linearize import jvp_graph, transpose_graph
from .tracing import (
    checked_cotangents,
    flat_outputs,
    like_dtype,
    split_aux,
    tangent_leaves,
    trace_on_fresh_leaves,
    unflatten_per_arg,
)


def linearize(fun: Callable, *primals: Any) -> tuple[Any, Callable]:
    """(f(*primals), f_jvp) where f_jvp(*tangents) evaluates the linearised map."""
    check_callable(fun, "linearize")
    nums = tuple(range(len(primals)))
    arguments, out, defs = trace_on_fresh_leaves(fun, primals, {}, nums, "linearize")
    outs, out_def = flat_outputs(out)
    tangents = tangent_leaves(arguments)
    tangents_out = zeros_for(outs, jvp_graph(outs, arguments.leaves, tangents, arguments.values))
    arguments.keep_values_for(tangents_out)  # the closure keeps residuals, not every value
    primal_out = tree.tree_unflatten(out_def, arguments.finish(outs))

    def f_jvp(*tangent_args: Any) -> Any:
        flat = tree.tree_leaves(list(tangent_args))
        if len(flat) != len(tangents):
            raise TreeStructureError("linearize: tangents do not have the structure of primals")
        mapping = {
            leaf.key: like_dtype(t, leaf.dtype, "linearize tangent")
            for leaf, t in zip(tangents, flat)
        }
        return tree.tree_unflatten(out_def, arguments.finish(tangents_out, mapping))

    return primal_out, f_jvp


def graph_vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """vjp on the graph path: trace, linearize, transpose."""
    nums = tuple(range(len(primals)))
    arguments, out, defs = trace_on_fresh_leaves(fun, primals, {}, nums, "vjp")
    out, aux_leaves, aux_def = split_aux(out, has_aux, "vjp")
    aux_out = aux_def.unflatten(arguments.finish(aux_leaves)) if has_aux else None
    outs, out_def = flat_outputs(out)
    tangents = tangent_leaves(arguments)
    tangents_out = jvp_graph(outs, arguments.leaves, tangents, arguments.values)
    arguments.keep_values_for(tangents_out)  # the closure keeps residuals, not every value
    out_values = arguments.finish(outs)
    primal_out = tree.tree_unflatten(out_def, out_values)
    # Concrete outputs know their run-time shapes (sizes a symbolic aval leaves open).
    out_shapes = [v.shape if v._value is not None else o.shape for v, o in zip(out_values, outs)]

    def vjp_fun(cotangent: Any) -> tuple[Any, ...]:
        cts = checked_cotangents(cotangent, out_def, outs, out_shapes)
        result = transpose_graph(tangents_out, tangents, cts, arguments.values)
        finished = arguments.finish(zeros_for(arguments.leaves, result))
        return tuple(unflatten_per_arg(defs, finished))

    return (primal_out, vjp_fun, aux_out) if has_aux else (primal_out, vjp_fun)


def linear_transpose(fun: Callable, *primals: Any) -> Callable:
    """The transpose of the linear function `fun` at inputs shaped like `primals`."""
    check_callable(fun, "linear_transpose")
    nums = tuple(range(len(primals)))
    arguments, out, defs = trace_on_fresh_leaves(fun, primals, {}, nums, "linear_transpose")
    outs, out_def = flat_outputs(out)
    inputs = arguments.leaves

    def transposed(cotangent: Any) -> tuple[Any, ...]:
        ct_leaves, ct_def = tree.tree_flatten(cotangent)
        if ct_def != out_def:
            raise TreeStructureError(f"linear_transpose: cotangent structure {ct_def} != {out_def}")
        result = transpose_graph(outs, inputs, [as_traced(c) for c in ct_leaves])
        finished = arguments.finish(zeros_for(inputs, result))
        return tuple(unflatten_per_arg(defs, finished))

    return transposed
