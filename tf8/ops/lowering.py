"""A small graph as one plain Python function of numpy calls: how the eager tape runs the
pullbacks and tangents it derives from the JVP and transpose rules (tf8.ad.derive), and how a
control-flow body runs each iteration (tf8.ops.evaluate). It reads only each primitive's
home, so it sits in the vocabulary layer and nobody installs it.

`python_function(inputs, outputs, constants, operations)` writes one line per op, reading
the same facts the numpy engine's generated code reads from each primitive's home:
elementwise ops are their ufunc calls (`Fusion.ufunc`), reductions their `ufunc.reduce`
(`Fusion.reduce`), plain matrix products `matmul` (`Fusion.matmul`), views their method
(`Fusion.view`); every other op calls its kernel. The function takes one array per input key
and returns a tuple, one value per output key. There is no compiler pass, no
buffer reuse and no floating-point context: the derived graphs are a few ops, the caller
silences warnings once around its whole walk, and building the function must cost little
(the property workload derives pullbacks for every new op and shape it meets). The caller
has computed the ops on constants alone (a rule's `1.0` and its broadcast): they come in as
constants, globals of the function.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tf8.graph import OperationKey, ValueKey
from tf8.graph.interpret import interpret
from tf8.ops.avals import value_aval
from tf8.ops.definition import definition
from tf8.ops.fusion import PREVIOUS, Literal, Steps
from tf8.ops.shapes import has_symbolic

__all__ = ["fold_constants", "python_function", "step_argument", "ufunc_steps"]


def ufunc_steps(op: Any, dtypes: Sequence[np.dtype]) -> Steps | None:
    """The ufunc calls computing primitive `op` on operands of `dtypes`, or None."""
    rule = definition(op).fusion.ufunc
    return None if rule is None else rule(op, dtypes)


def step_argument(arg: int | Literal, operands: Sequence[str], previous: str) -> str:
    """Source text of one step argument: an operand's expression, `previous`, or a literal."""
    if isinstance(arg, Literal):
        return repr(arg.value)
    return previous if arg == PREVIOUS else operands[arg]


class _Source:
    """The lines and namespace of one function."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {"matmul": np.matmul}
        self.names: dict[int, str] = {}
        self.lines: list[str] = []

    def global_(self, prefix: str, value: Any, readable: str | None = None) -> str:
        name = self.names.get(id(value))
        if name is None:
            name = readable if readable and readable not in self.namespace else None
            name = name or f"{prefix}{len(self.namespace)}"
            self.namespace[name] = value
            self.names[id(value)] = name
        return name


def python_function(
    inputs: Sequence[ValueKey],
    outputs: Sequence[ValueKey | None],
    constants: Mapping[ValueKey, Any],
    operations: Sequence[OperationKey],
    name: str = "derived",
) -> Callable[..., tuple]:
    """`f(*arrays) -> tuple`: the values of `outputs` (None: a None result) computed from one
    array per `inputs` key by `operations` (in order), which read the other values they need
    from `constants` (globals of the function)."""
    source = _Source()
    names: dict[ValueKey | None, str] = {k: f"a{i}" for i, k in enumerate(inputs)}
    names[None] = "None"
    for key, value in constants.items():
        names[key] = source.global_("c", value)
    for n, op_key in enumerate(operations):
        targets = [f"v{n}_{i}" for i in range(len(op_key.outputs))]
        args = [names[k] for k in op_key.inputs]
        avals = [value_aval(k) for k in op_key.inputs]
        target = ", ".join(targets) + ("," if len(targets) > 1 else "")
        source.lines.append(f"    {target} = {_expression(source, op_key.op, args, avals)}")
        names.update(zip(op_key.outputs, targets))
    result = ", ".join(names[k] for k in outputs)
    source.lines.append(f"    return ({result}{',' if len(outputs) == 1 else ''})")
    params = ", ".join(f"a{i}" for i in range(len(inputs)))
    text = f"def {name}({params}):\n" + "\n".join(source.lines) + "\n"
    exec(compile(text, f"<tf8 {name}>", "exec"), source.namespace)  # noqa: S102
    fn = source.namespace[name]
    fn.source = text  # type: ignore[attr-defined]  # for reading and debugging
    return fn


def _expression(source: _Source, op: Any, args: list[str], avals: list[Any]) -> str:
    """The source text computing `op` on `args` as its kernel does."""
    found = definition(op)
    fusion = found.fusion
    if found.literal is not None and not args:
        return source.global_("c", np.asarray(found.literal(op)))
    if not has_symbolic(getattr(op, "params", None) or {}):
        if op.output_count == 1 and fusion.ufunc is not None:
            steps = ufunc_steps(op, [a.dtype for a in avals])
            if steps:
                expr = ""
                for step in steps:
                    call = source.global_("u", step.ufunc, step.ufunc.__name__)
                    expr = f"{call}({', '.join(step_argument(a, args, expr) for a in step.args)})"
                return expr
        if fusion.reduce is not None:
            ufunc, with_dtype = fusion.reduce
            call = source.global_("r", ufunc.reduce, f"{ufunc.__name__}_reduce")
            dtype = f", {source.global_('d', avals[0].dtype)}" if with_dtype else ""
            return f"{call}({args[0]}, {tuple(op['axes'])!r}{dtype})"
        if fusion.matmul is not None:
            matmul = fusion.matmul(op, [a.ndim for a in avals], args)
            if matmul is not None:
                return matmul
        if fusion.view is not None and fusion.view.method and fusion.view.code is not None:
            return fusion.view.code(op, args[0], source.global_)
    kernel = source.global_("k", found.kernel)
    return f"{kernel}({source.global_('o', op)}{''.join(', ' + a for a in args)})"


def fold_constants(
    leaves: Mapping[ValueKey, Any], operations: Sequence[OperationKey], outputs: Sequence[Any]
) -> tuple[dict, list]:
    """(the values the remaining ops and the outputs read, computed from `leaves` by every op
    on constants alone, once; the remaining ops): what `python_function` takes as its
    constants and operations."""
    folded: dict[ValueKey, Any] = dict(leaves)
    rest: list = []

    def fold(op_key: OperationKey, values: list) -> Sequence[Any]:
        kernel = definition(op_key.op).kernel
        if kernel is None or any([v is None for v in values]):
            rest.append(op_key)
            return ()
        found = kernel(op_key.op, *values)
        found = (found,) if len(op_key.outputs) == 1 else found
        return [np.asarray(v) for v in found]

    interpret(operations, folded, fold, every=True)
    needed = {k for op_key in rest for k in op_key.inputs} | set(outputs)
    return {k: v for k, v in folded.items() if k in needed}, rest
