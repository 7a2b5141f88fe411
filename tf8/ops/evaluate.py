"""Evaluating a graph on numpy with the kernels alone: no compiler, no runtime, nothing
installed.

`evaluate(outputs, bindings, known)` runs each op of the graph behind `outputs` by its kernel,
in order, as a step of the one interpreter (tf8.graph.interpret). A size known only at run
time (how many elements `nonzero` finds) is learnt from the arrays as they come, and an op's
symbolic parameters are evaluated for it; a shape guard is checked once its sizes are known.
This is how a traced value that was recorded but not computed gets its value, and how a
control-flow body with such sizes runs. A body without them runs as one generated function
(`program_function`, tf8.ops.lowering), built once per body, its ops on constants alone
computed once.

`jit` goes through the compiler and runtime instead: passes, fusion and engines are theirs,
and a runtime hands each body of a program it prepares a runner of its own
(`ClosedProgram.use`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tf8.errors import DuplicateBinding, TracingError
from tf8.graph import OperationKey, ValueKey, materialize_merge
from tf8.graph.interpret import interpret

from .definition import definition
from .fpstate import ignore_fp_errors, restore_fp_errors
from .leaves import Conflict
from .lowering import fold_constants, python_function
from .primitive import Primitive
from .shapes import DimExpr, ShapeGuard, dim_symbols, evaluate_dim, has_symbolic, is_symbolic

__all__ = ["bind_sizes", "check_ready", "evaluate", "program_function", "specialize"]


def evaluate(
    outputs: Sequence[ValueKey],
    bindings: Mapping[ValueKey, Any],
    known: Mapping[ValueKey, Any] | None = None,
) -> list[np.ndarray]:
    """The values of `outputs`, from the arrays `bindings` gives their leaves (and the values
    `known` already holds for some ops, which are not computed again)."""
    flat = materialize_merge(None, list(outputs))
    env: dict[ValueKey, Any] = {}
    sizes: dict[str, int] = {}
    for key in flat.inputs:
        value = bindings.get(key)
        leaf = key.input_key
        if isinstance(value, Conflict):
            raise DuplicateBinding(
                f"leaf {leaf.label()!r} is bound to {len(value.arrays)} different arrays in "
                f"one graph ({', '.join(str(a.shape) for a in value.arrays)})"
            )
        if value is None:
            raise TracingError(f"leaf {leaf.label()!r} ({leaf.aval}) has no value to evaluate")
        env[key] = value
        bind_sizes(sizes, leaf.aval.shape, value)
    pending: list[ShapeGuard] = []

    def step(op_key: OperationKey, values: list) -> Sequence[Any]:
        nonlocal pending
        if known:
            found = [known.get(k) for k in op_key.outputs]
            if all(type(v) is np.ndarray for v in found):
                return found
        avals, guards = op_key.meta if op_key.meta is not None else ((), ())
        pending = check_ready([*pending, *guards], sizes)
        op = specialize(op_key.op, sizes)
        result = definition(op).kernel(op, *values)
        results = result if len(op_key.outputs) > 1 else (result,)
        arrays = [np.asarray(r) for r in results]
        for aval, array in zip(avals, arrays):
            bind_sizes(sizes, aval.shape, array)
        return arrays

    token = ignore_fp_errors()  # kernels follow IEEE
    try:
        interpret(flat.operations, env, step, constants=True)
    finally:
        restore_fp_errors(token)
    check_ready(pending, sizes)
    return [env[k] for k in outputs]


def program_function(
    inputs: Sequence[ValueKey], outputs: Sequence[ValueKey], name: str = "body"
) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]]:
    """`run(arrays) -> arrays`: the sub-program from `inputs` to `outputs` (a control-flow
    body), as one generated function where every size and parameter is known, else
    evaluated op by op (`evaluate`)."""
    operations = materialize_merge(None, list(outputs)).operations
    if any(_needs_sizes(op_key) for op_key in operations):
        return lambda arrays: evaluate(outputs, dict(zip(inputs, arrays)))
    token = ignore_fp_errors()
    try:  # the ops on constants alone (a literal and its broadcast) run once, here
        constants, rest = fold_constants({}, operations, outputs)
    finally:
        restore_fp_errors(token)
    fn = python_function(inputs, outputs, constants, rest, name)

    def run(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        token = ignore_fp_errors()
        try:
            return [np.asarray(v) for v in fn(*arrays)]
        finally:
            restore_fp_errors(token)

    return run


def _needs_sizes(op_key: OperationKey) -> bool:
    meta = op_key.meta
    if meta is None or meta[1] or has_symbolic(getattr(op_key.op, "params", None) or {}):
        return True
    return any(is_symbolic(a.shape) for a in meta[0])


def specialize(op: Any, sizes: Mapping[str, int]) -> Any:
    """`op` with its symbolic parameters evaluated for these sizes."""
    params = getattr(op, "params", None)
    if not params or not has_symbolic(params):
        return op
    evaluated = {k: _evaluate_param(v, sizes) for k, v in params}
    return Primitive(op.name, op.input_count, **evaluated)


def _evaluate_param(value: Any, sizes: Mapping[str, int]) -> Any:
    if isinstance(value, DimExpr):
        return evaluate_dim(value, sizes)
    if isinstance(value, tuple):
        return tuple(_evaluate_param(v, sizes) for v in value)
    return value


def bind_sizes(sizes: dict[str, int], shape: Sequence[Any], array: Any) -> None:
    """Learn the sizes a symbolic `shape` takes in `array`."""
    for dim, size in zip(shape, np.shape(array)):
        if isinstance(dim, DimExpr) and len(dim.symbols) == 1:
            (name,) = dim.symbols
            if name not in sizes and dim == DimExpr.symbol(name):
                sizes[name] = int(size)


def check_ready(pending: Sequence[ShapeGuard], sizes: Mapping[str, int]) -> list[ShapeGuard]:
    """Check the guards whose sizes are known; the others wait."""
    waiting = []
    for guard in pending:
        if dim_symbols((guard.lhs, guard.rhs)) <= sizes.keys():
            guard.check(sizes)
        else:
            waiting.append(guard)
    return waiting
