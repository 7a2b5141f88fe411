"""A small graph as one plain Python function of numpy calls: how the eager tape runs the
pullbacks and tangents it derives from the JVP and transpose rules (tf8.ad.derive).

`python_function(inputs, outputs, constants)` walks the ops behind `outputs` once and writes
one line per op, reading the same facts the numpy engine's generated code reads from each
primitive's home: elementwise ops are their ufunc calls (`Fusion.ufunc`), reductions their
`ufunc.reduce` (`Fusion.reduce`), plain matrix products `matmul` (`Fusion.matmul`), views
their method (`Fusion.view`); every other op calls its kernel. The function takes one array
per input key and returns a tuple, one value per output key. There is no compiler pass, no
buffer reuse and no floating-point context: the derived graphs are a few ops, the caller
silences warnings once around its whole walk, and building the function must cost little
(the property workload derives pullbacks for every new op and shape it meets). Ops on
constants alone (a rule's `1.0` and its broadcast) are computed once, as globals.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tf8.graph import ValueKey, materialize_merge
from tf8.ops.definition import definition
from tf8.ops.shapes import has_symbolic
from tf8.runtime.engines.numpy.elementwise import step_argument, ufunc_steps

__all__ = ["python_function"]


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
) -> Callable[..., tuple]:
    """`f(*arrays) -> tuple`: the values of `outputs` (None: a None result) computed from one
    array per `inputs` key; leaves of the graph that are not inputs take their value from
    `constants`."""
    source = _Source()
    names: dict[ValueKey | None, str] = {k: f"a{i}" for i, k in enumerate(inputs)}
    names[None] = "None"
    flat = materialize_merge(None, [k for k in outputs if k is not None])
    for key in flat.inputs:
        if key not in names:
            names[key] = source.global_("c", np.asarray(constants[key]))
    folded: dict[ValueKey, Any] = {k: constants[k] for k in flat.inputs if k not in inputs}
    for n, op_key in enumerate(flat.operations):
        if all(k in folded for k in op_key.inputs) and definition(op_key.op).kernel is not None:
            # constants only (a rule's `1.0`, broadcast): computed once, a global of the function
            values = definition(op_key.op).kernel(op_key.op, *[folded[k] for k in op_key.inputs])
            values = (values,) if len(op_key.outputs) == 1 else values
            for k, v in zip(op_key.outputs, values):
                folded[k] = v = np.asarray(v)
                names[k] = source.global_("c", v)
            continue
        targets = [f"v{n}_{i}" for i in range(len(op_key.outputs))]
        args = [names[k] for k in op_key.inputs]
        avals = [_aval(k) for k in op_key.inputs]
        target = ", ".join(targets) + ("," if len(targets) > 1 else "")
        source.lines.append(f"    {target} = {_expression(source, op_key.op, args, avals)}")
        names.update(zip(op_key.outputs, targets))
    result = ", ".join(names[k] for k in outputs)
    source.lines.append(f"    return ({result}{',' if len(outputs) == 1 else ''})")
    params = ", ".join(f"a{i}" for i in range(len(inputs)))
    text = f"def derived({params}):\n" + "\n".join(source.lines) + "\n"
    exec(compile(text, "<tf8 derived rule>", "exec"), source.namespace)  # noqa: S102
    fn = source.namespace["derived"]
    fn.source = text  # type: ignore[attr-defined]  # for reading and debugging
    return fn


def _aval(key: ValueKey) -> Any:
    operation = key._operation
    if operation is None:
        return key._input_key.aval
    return operation.meta[0][key._output_slot]


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
