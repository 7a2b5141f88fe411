"""jvp, linearize, vjp, grad, value_and_grad, jacfwd, jacrev, hessian, hvp, linear_transpose.

JAX's signatures and semantics, over pytrees. Every transform traces the function on fresh
argument leaves, transforms the graph (tf8.ad.linearize) and hands the result back through
`Arguments.finish`: numpy arrays at top level, TracedTensors inside another transform.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import ArgnumsError, DifferentiationError, ShapeError, TreeStructureError
from tf8.ops import dtypes as dt
from tf8.ops.shapes import dims_equal
from tf8.traced import (
    NeedGraph,
    TracedTensor,
    _tapes,
    only_tapes,
    transform_scope,
    value_scope,
)

from .arguments import (
    Arguments,
    as_traced,
    check_callable,
    check_differentiable,
    fresh_leaf,
    zeros_for,
)
from .forward import ForwardTape
from .linearize import jvp_graph, transpose_graph, vjp_graph
from .tape import results, run_on_tape, tape_leaves


def shapes_match(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Same rank and no axis provably different (symbolic sizes are checked at run time)."""
    return len(a) == len(b) and all(dims_equal(x, y) is not False for x, y in zip(a, b))


def _flat_outputs(out: Any) -> tuple[list[TracedTensor], Any]:
    leaves, treedef = tree.tree_flatten(out)
    return [as_traced(leaf) for leaf in leaves], treedef


def _trace(
    fun: Callable, args: Sequence[Any], kwargs: dict, argnums: Sequence[int], what: str = "grad"
):
    """Trace `fun` with the argnums arguments' leaves replaced by fresh leaves (computing
    values as it goes where they are concrete: `arguments.values` keeps them by key)."""
    for i in argnums:
        if not -len(args) <= i < len(args):
            raise ArgnumsError(
                f"argnums {tuple(argnums)} out of range for {len(args)} positional argument(s)"
            )
    argnums = [i % len(args) for i in argnums]
    flat, defs = [], []
    for i in argnums:
        leaves, treedef = tree.tree_flatten(args[i])
        flat.extend(leaves)
        defs.append((treedef, len(leaves)))
    arguments = Arguments(flat)
    call_args = list(args)
    position = 0
    for i, (treedef, count) in zip(argnums, defs):
        call_args[i] = tree.tree_unflatten(treedef, arguments.leaves[position : position + count])
        position += count
    differentiated, position = {}, 0
    name = getattr(fun, "__name__", "f")
    for i, (treedef, count) in zip(argnums, defs):
        for j in range(count):
            leaf = f" (leaf {j} of its pytree)" if treedef.num_leaves > 1 else ""
            differentiated[arguments.leaves[position].key] = f"argument {i} of {what}({name}){leaf}"
            position += 1
    with value_scope() as values, transform_scope(differentiated):
        out = fun(*call_args, **kwargs)
    arguments.values = values
    return arguments, out, defs


class AuxStructure:
    """has_aux's auxiliary output: its array leaves go through the transform (and come back as
    numpy arrays or traced values), its other leaves (a string, a Python number, any object)
    come back unchanged."""

    def __init__(self, aux: Any) -> None:
        leaves, self.treedef = tree.tree_flatten(aux)
        self.count = len(leaves)
        self.kept = {i: v for i, v in enumerate(leaves) if not _is_array_leaf(v)}
        self.arrays = [as_traced(v) for i, v in enumerate(leaves) if i not in self.kept]

    def unflatten(self, values: Sequence[Any]) -> Any:
        """The aux pytree, with `values` (the transformed array leaves) in their places."""
        it = iter(values)
        leaves = [self.kept[i] if i in self.kept else next(it) for i in range(self.count)]
        return tree.tree_unflatten(self.treedef, leaves)


def _is_array_leaf(leaf: Any) -> bool:
    return isinstance(leaf, (TracedTensor, np.ndarray, np.generic))


def split_aux(out: Any, has_aux: bool, what: str) -> tuple[Any, list[TracedTensor], Any]:
    """(output, aux array leaves, AuxStructure) of a function's result; with has_aux=True it
    must be an (output, aux) pair, as in JAX."""
    if not has_aux:
        return out, [], None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise DifferentiationError(
            f"{what}: has_aux=True requires the function to return an (output, aux) pair"
        )
    out, aux = out
    structure = AuxStructure(aux)
    return out, structure.arrays, structure


def _unflatten_per_arg(defs, values: Sequence[Any]) -> list[Any]:
    result, position = [], 0
    for treedef, count in defs:
        result.append(tree.tree_unflatten(treedef, list(values[position : position + count])))
        position += count
    return result


def _tangent_leaves(arguments: Arguments) -> list[TracedTensor]:
    return [fresh_leaf(leaf, "tangent", bind=False) for leaf in arguments.leaves]


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

    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        flat = tape_leaves(args, nums, holomorphic)
        if flat is not None:
            try:
                return _tape_value_and_grad(fun, args, kwargs, nums, has_aux, single, flat)
            except NeedGraph:
                pass  # the graph path handles what the tape cannot
        arguments, out, defs = _trace(fun, args, kwargs, nums)
        out, aux_leaves, aux_def = split_aux(out, has_aux, "grad")
        out = as_traced(out)
        check_differentiable(arguments.leaves, "grad", holomorphic)
        _check_scalar_output(out, "grad", holomorphic)
        seed = fresh_leaf(as_traced(np.ones((), dtype=out.dtype)), "seed", bind=True)
        # one backward walk where every op has a vjp_graph rule (the same keys as the two
        # walks below, which build and record the tangent program only to transpose it)
        cts = vjp_graph([out], arguments.leaves, [seed], arguments.values)
        if cts is None:
            tangents = _tangent_leaves(arguments)
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

    return value_and_grad_f


def _value_and_grad_result(value, grads, defs, single, aux_def, aux_values) -> Any:
    """(value, gradient) — ((value, aux), gradient) with has_aux — as JAX returns them."""
    per_arg = _unflatten_per_arg(defs, grads)
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

    def grad_f(*args: Any, **kwargs: Any) -> Any:
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

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
    arguments, out, defs = _trace(fun, tuple(primals), {}, nums, "jvp")
    given = _checked_tangents(arguments.leaves, tangents)
    outs, out_def = _flat_outputs(out)
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
    given = _checked_tangents(p_flat, tangents)
    for t in given:
        if t._value is None:
            raise NeedGraph("a traced tangent")
    nums = tuple(range(len(primals)))
    forward = ForwardTape()
    # an integer primal carries no tangent (as on the graph path)
    carried = [t if dt.is_inexact(p.dtype) else None for p, t in zip(p_flat, given)]
    _, _, out, _ = run_on_tape(fun, primals, {}, nums, "jvp", forward, carried, flat)
    outs, out_def = _flat_outputs(out)
    values = results([*outs, *[forward.tangent(o) for o in outs]], [*outs, *outs])
    n = len(outs)
    return tree.tree_unflatten(out_def, values[:n]), tree.tree_unflatten(out_def, values[n:])


def _checked_tangents(primals: Sequence[TracedTensor], tangents: Sequence[Any]) -> list:
    """jvp's tangents as TracedTensors, checked against the primal leaves' structure, dtypes
    and shapes."""
    t_flat = tree.tree_leaves(list(tangents))
    if len(t_flat) != len(primals):
        raise TreeStructureError("jvp: tangents do not have the structure of primals")
    given = [_like_dtype(t, p.dtype, "jvp tangent") for t, p in zip(t_flat, primals)]
    for p, t in zip(primals, given):
        if p.aval.shape != t.aval.shape and not shapes_match(p.shape, t.shape):
            raise ShapeError(f"jvp: tangent shape {t.shape} does not match primal shape {p.shape}")
    return given


def _like_dtype(value: Any, dtype: np.dtype, what: str) -> TracedTensor:
    """A (co)tangent must have its primal's dtype (Python scalars adapt, as weak types do)."""
    if isinstance(value, (bool, int, float, complex)):
        return as_traced(np.asarray(value, dtype=dtype))
    t = as_traced(value)
    if t.dtype != dtype and dt.is_inexact(dtype):
        raise DifferentiationError(
            f"{what} has dtype {t.dtype}, but its primal has dtype {dtype}; they must match"
        )
    return t


def linearize(fun: Callable, *primals: Any) -> tuple[Any, Callable]:
    """(f(*primals), f_jvp) where f_jvp(*tangents) evaluates the linearised map."""
    check_callable(fun, "linearize")
    arguments, out, defs = _trace(fun, primals, {}, tuple(range(len(primals))), "linearize")
    outs, out_def = _flat_outputs(out)
    tangents = _tangent_leaves(arguments)
    tangents_out = zeros_for(outs, jvp_graph(outs, arguments.leaves, tangents, arguments.values))
    arguments.keep_values_for(tangents_out)  # the closure keeps residuals, not every value
    primal_out = tree.tree_unflatten(out_def, arguments.finish(outs))

    def f_jvp(*tangent_args: Any) -> Any:
        flat = tree.tree_leaves(list(tangent_args))
        if len(flat) != len(tangents):
            raise TreeStructureError("linearize: tangents do not have the structure of primals")
        mapping = {
            leaf.key: _like_dtype(t, leaf.dtype, "linearize tangent")
            for leaf, t in zip(tangents, flat)
        }
        return tree.tree_unflatten(out_def, arguments.finish(tangents_out, mapping))

    return primal_out, f_jvp


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
    outs, out_def = _flat_outputs(out)
    check_differentiable(leaves, "vjp")
    primal_out = tree.tree_unflatten(out_def, results(outs, outs))

    def vjp_fun(cotangent: Any) -> tuple[Any, ...]:
        cts = _cotangents(cotangent, out_def, outs, [o.shape for o in outs])
        if not only_tapes() or any(c._value is None for c in cts):
            return graph_vjp(fun, *primals)[1](cotangent)
        # inside enclosing tapes the cotangents may depend on what they differentiate
        nested = bool(_tapes.get())
        found = tape.backward(outs, [c if nested else c._value for c in cts], leaves)
        return tuple(_unflatten_per_arg(defs, results(found, leaves)))

    return (primal_out, vjp_fun, aux_out) if has_aux else (primal_out, vjp_fun)


def _cotangents(
    cotangent: Any, out_def: Any, outs: Sequence[TracedTensor], shapes: Sequence[Any]
) -> list[TracedTensor]:
    """A vjp_fun's cotangent, checked against the outputs' structure, dtypes and shapes."""
    ct_leaves, ct_def = tree.tree_flatten(cotangent)
    if ct_def != out_def:
        raise TreeStructureError(
            f"vjp: cotangent structure {ct_def} does not match output {out_def}"
        )
    cts = [_like_dtype(c, o.dtype, "vjp cotangent") for c, o in zip(ct_leaves, outs)]
    for shape, c in zip(shapes, cts):
        if shape != c.aval.shape and not shapes_match(shape, c.shape):
            raise ShapeError(f"vjp: cotangent shape {c.shape} does not match output shape {shape}")
    return cts


def graph_vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """vjp on the graph path: trace, linearize, transpose."""
    arguments, out, defs = _trace(fun, primals, {}, tuple(range(len(primals))), "vjp")
    out, aux_leaves, aux_def = split_aux(out, has_aux, "vjp")
    aux_out = aux_def.unflatten(arguments.finish(aux_leaves)) if has_aux else None
    outs, out_def = _flat_outputs(out)
    tangents = _tangent_leaves(arguments)
    tangents_out = jvp_graph(outs, arguments.leaves, tangents, arguments.values)
    arguments.keep_values_for(tangents_out)  # the closure keeps residuals, not every value
    out_values = arguments.finish(outs)
    primal_out = tree.tree_unflatten(out_def, out_values)
    # Concrete outputs know their run-time shapes (sizes a symbolic aval leaves open).
    out_shapes = [
        np.shape(v) if not isinstance(v, TracedTensor) else o.shape
        for v, o in zip(out_values, outs)
    ]

    def vjp_fun(cotangent: Any) -> tuple[Any, ...]:
        cts = _cotangents(cotangent, out_def, outs, out_shapes)
        result = transpose_graph(tangents_out, tangents, cts, arguments.values)
        finished = arguments.finish(zeros_for(arguments.leaves, result))
        return tuple(_unflatten_per_arg(defs, finished))

    return (primal_out, vjp_fun, aux_out) if has_aux else (primal_out, vjp_fun)


def hvp(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
    """Hessian-vector product: forward-over-reverse, jvp(grad(f), primals, tangents)[1]."""
    argnums = 0 if len(primals) == 1 else tuple(range(len(primals)))
    return jvp(grad(fun, argnums=argnums), tuple(primals), tuple(tangents))[1]


def linear_transpose(fun: Callable, *primals: Any) -> Callable:
    """The transpose of the linear function `fun` at inputs shaped like `primals`."""
    check_callable(fun, "linear_transpose")
    arguments, out, defs = _trace(fun, primals, {}, tuple(range(len(primals))), "linear_transpose")
    outs, out_def = _flat_outputs(out)
    inputs = arguments.leaves

    def transposed(cotangent: Any) -> tuple[Any, ...]:
        ct_leaves, ct_def = tree.tree_flatten(cotangent)
        if ct_def != out_def:
            raise TreeStructureError(f"linear_transpose: cotangent structure {ct_def} != {out_def}")
        result = transpose_graph(outs, inputs, [as_traced(c) for c in ct_leaves])
        finished = arguments.finish(zeros_for(inputs, result))
        return tuple(_unflatten_per_arg(defs, finished))

    return transposed
