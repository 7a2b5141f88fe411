"""cond and switch with JAX's signatures: every branch is traced into a closed sub-program
(also outside jit); one `Cond` op picks the branch when the program runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import ParameterError
from tf8.lax.builders import compare, convert, full
from tf8.lax.core import apply1
from tf8.ops.extension.control import Cond
from tf8.ops.primitive import Aval
from tf8.ops.tracebacks import api_boundary

from .checks import check_callable, check_same_types, describe, flatten, scalar_index
from .closure import Closure

_INDEX = np.dtype(np.int32)


@api_boundary
def switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    """`branches[clamp(index, 0, len(branches) - 1)](*operands)`."""
    branches = list(branches)
    if not branches:
        raise ParameterError("switch needs at least one branch, got an empty branches list")
    check_callable("switch", *[(f"branches[{i}]", b) for i, b in enumerate(branches)])
    index_t = scalar_index(index, "switch index")
    index_t = convert(index_t, _INDEX)
    if len(branches) > 1:
        low, high = full(Aval((), _INDEX), 0), full(Aval((), _INDEX), len(branches) - 1)
        index_t = apply1("clamp", [low, index_t, high])
    return _cond(index_t, branches, operands)


@api_boundary
def cond(
    pred: Any, true_fun: Callable[..., Any], false_fun: Callable[..., Any], *operands: Any
) -> Any:
    """`true_fun(*operands)` if `pred` (a bool or numeric scalar; nonzero is true, as JAX)
    else `false_fun(*operands)`; both branches are traced and must return equal types."""
    check_callable("cond", ("true_fun", true_fun), ("false_fun", false_fun))
    pred_t = scalar_index(pred, "cond predicate", "biuf", "a bool, integer or float")
    if pred_t.dtype != np.bool_:
        pred_t = compare(pred_t, 0, "ne")
    return _cond(convert(pred_t, _INDEX), [false_fun, true_fun], operands, cond=True)


def _cond(
    index: Any, branches: list[Callable[..., Any]], operands: Sequence[Any], cond: bool = False
) -> Any:
    leaves, in_def = flatten(list(operands))
    closure = Closure()
    args = closure.arguments([t.aval for t in leaves], [t._weak for t in leaves])
    traced = []
    for fun in branches:

        def branch(fun: Callable[..., Any] = fun) -> tuple:
            out, out_def = flatten(fun(*tree.tree_unflatten(in_def, args)))
            return closure.close(args, out), out_def, [t._weak for t in out]

        traced.append(closure.trace(branch))
    first_outs, first_def, first_weak = traced[0]
    first_avals = [t.aval for t in first_outs]
    roles = ["false_fun", "true_fun"] if cond else [f"branches[{i}]" for i in range(len(traced))]
    for i, (outs, out_def, _) in enumerate(traced[1:], 1):
        kind = "cond" if cond else "switch"
        check_same_types(
            first_def,
            first_avals,
            out_def,
            [t.aval for t in outs],
            f"{kind} branches must return the same types, but they differ:\n"
            f"{describe(branches[0], roles[0])}\n{describe(branches[i], roles[i])}",
            f"the output of {roles[0]}",
            f"the corresponding output of {roles[i]}",
        )
    if not first_outs:
        return tree.tree_unflatten(first_def, [])
    op = Cond([closure.program(args, outs) for outs, _, _ in traced])
    results = closure.apply(op, [index, *closure.outer, *leaves])
    for result, weak in zip(results, first_weak):  # JAX types them as branch 0 (false_fun)
        result._weak = weak
    return tree.tree_unflatten(first_def, results)
