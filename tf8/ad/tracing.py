"""How a transform traces the user's function, and checks what the user hands it.

`trace_on_fresh_leaves` calls the function on fresh argument leaves; `flat_outputs`,
`split_aux` and `unflatten_per_arg` move between pytrees and flat leaf lists (has_aux's
auxiliary output included); `checked_tangents` and `checked_cotangents` check given
(co)tangents against their primals' structure, dtypes and shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import ArgnumsError, DifferentiationError, ShapeError, TreeStructureError
from tf8.graph import ValueKey
from tf8.lax import effects
from tf8.lax.scopes import transform_scope, value_scope
from tf8.ops import dtypes as dt
from tf8.ops.shapes import dims_equal
from tf8.traced import TracedTensor

from .arguments import Arguments, as_traced, fresh_leaf

# (treedef, leaf count) of each differentiated argument, as `trace_on_fresh_leaves` found them
ArgumentDefs = list[tuple[Any, int]]


def shapes_match(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Same rank and no axis provably different (symbolic sizes are checked at run time)."""
    return len(a) == len(b) and all(dims_equal(x, y) is not False for x, y in zip(a, b))


def flat_outputs(out: Any) -> tuple[list[TracedTensor], Any]:
    """The output pytree's leaves as TracedTensors, and its treedef."""
    leaves, treedef = tree.tree_flatten(out)
    return [as_traced(leaf) for leaf in leaves], treedef


def trace_on_fresh_leaves(
    fun: Callable,
    args: Sequence[Any],
    kwargs: dict,
    argnums: Sequence[int],
    what: str = "grad",
    own: Container[ValueKey] = (),
) -> tuple[Arguments, Any, ArgumentDefs]:
    """Trace `fun` with the argnums arguments' leaves replaced by fresh leaves (computing
    values as it goes where they are concrete: `arguments.values` keeps them by key). An
    argument leaf whose key is in `own` (jit's placeholders, which only the arguments reach)
    is its own fresh leaf."""
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
    arguments = Arguments(flat, own)
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
    with value_scope() as values, transform_scope(differentiated), effects.scope() as scoped:
        out = fun(*call_args, **kwargs)
    arguments.values = values
    token = effects.pending(scoped)
    if token is not None:  # effects traced on the fresh leaves: on the caller's values
        effects.note(arguments.finish([token])[0])
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


def unflatten_per_arg(defs: ArgumentDefs, values: Sequence[Any]) -> list[Any]:
    """`values` (one per differentiated leaf) as one pytree per differentiated argument."""
    result, position = [], 0
    for treedef, count in defs:
        result.append(tree.tree_unflatten(treedef, list(values[position : position + count])))
        position += count
    return result


def tangent_leaves(arguments: Arguments) -> list[TracedTensor]:
    """A fresh unbound leaf per argument leaf, for the tangents the graph path transposes."""
    return [fresh_leaf(leaf, "tangent", bind=False) for leaf in arguments.leaves]


def like_dtype(value: Any, dtype: np.dtype, what: str) -> TracedTensor:
    """A (co)tangent must have its primal's dtype (Python scalars adapt, as weak types do)."""
    if isinstance(value, (bool, int, float, complex)):
        return as_traced(np.asarray(value, dtype=dtype))
    t = as_traced(value)
    if t.dtype != dtype and dt.is_inexact(dtype):
        raise DifferentiationError(
            f"{what} has dtype {t.dtype}, but its primal has dtype {dtype}; they must match"
        )
    return t


def checked_tangents(primals: Sequence[TracedTensor], tangents: Sequence[Any]) -> list:
    """jvp's tangents as TracedTensors, checked against the primal leaves' structure, dtypes
    and shapes."""
    t_flat = tree.tree_leaves(list(tangents))
    if len(t_flat) != len(primals):
        raise TreeStructureError("jvp: tangents do not have the structure of primals")
    given = [like_dtype(t, p.dtype, "jvp tangent") for t, p in zip(t_flat, primals)]
    for p, t in zip(primals, given):
        if p.aval.shape != t.aval.shape and not shapes_match(p.shape, t.shape):
            raise ShapeError(f"jvp: tangent shape {t.shape} does not match primal shape {p.shape}")
    return given


def checked_cotangents(
    cotangent: Any, out_def: Any, outs: Sequence[TracedTensor], shapes: Sequence[Any]
) -> list[TracedTensor]:
    """A vjp_fun's cotangent, checked against the outputs' structure, dtypes and shapes."""
    ct_leaves, ct_def = tree.tree_flatten(cotangent)
    if ct_def != out_def:
        raise TreeStructureError(
            f"vjp: cotangent structure {ct_def} does not match output {out_def}"
        )
    cts = [like_dtype(c, o.dtype, "vjp cotangent") for c, o in zip(ct_leaves, outs)]
    for shape, c in zip(shapes, cts):
        if shape != c.aval.shape and not shapes_match(shape, c.shape):
            raise ShapeError(f"vjp: cotangent shape {c.shape} does not match output shape {shape}")
    return cts
