"""Tracing a body into a closed sub-program, with closure conversion.

A body is always traced (also outside jit) on fresh unbound leaves, named by nesting depth and
position so two traces of the same body build the same interned keys (one ClosedProgram).
Traced values the body uses from the enclosing trace — weights, parameters, constants — are
*captures*: each becomes an input leaf of the sub-program and an explicit operand of the
control op, so transforms see the dependence (grad w.r.t. a captured weight is right). A
captured subexpression that does not depend on the body's inputs is hoisted whole (it is
computed once, outside the loop); literal constants stay inside.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tf8.graph import ValueKey, materialize_merge
from tf8.lax.core import TransformFrame, apply, merge_bindings
from tf8.lax.scopes import transform_scope, value_scope
from tf8.ops.extension.control import ClosedProgram
from tf8.ops.frames import current, frame_var
from tf8.ops.leaves import LeafKey
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor


def body_leaf(depth: int, name: str, aval: Aval, weak: bool = False) -> TracedTensor:
    """An input leaf of a body traced at nesting `depth` (its name is its identity)."""
    key = ValueKey.input(LeafKey(None, f"body{depth}.{name}", aval, "body"))
    t = TracedTensor(key, aval, {}, unbound=True)
    t._weak = weak
    return t


class Closure:
    """Traces one or more bodies at one nesting depth, sharing one list of captures (the
    branches of a cond share operands); `program(args, outs)` closes a traced body."""

    def __init__(self) -> None:
        self.depth = current().body_depth + 1
        self.captures: dict[ValueKey, TracedTensor] = {}  # captured outer value -> leaf
        self.outer: list[TracedTensor] = []  # the captured values, as operands
        self.tracked: dict[ValueKey, TracedTensor] = {}  # what hidden tapes follow, by key

    def arguments(
        self, avals: Sequence[Aval], weak: Sequence[bool] | None = None, start: int = 0
    ) -> list[TracedTensor]:
        """Fresh argument leaves (positions from `start`, so several lists never collide)."""
        weak = weak or [False] * len(avals)
        return [
            body_leaf(self.depth, f"a{i}", a, w) for i, (a, w) in enumerate(zip(avals, weak), start)
        ]

    def trace(self, fun: Callable[..., Any], *args: Any) -> Any:
        """fun(*args) traced as a body: ops are recorded (and computed where they do not
        depend on the body's arguments), never tagged linear by an enclosing transform."""
        outer = current()
        changes: dict = {"body_depth": self.depth, "linear": None}
        if outer.tapes:
            # Tapes (op-by-op grad, jvp) do not follow the body's ops: they see the control
            # op, whose rules differentiate the body. The values they follow that the body
            # reads are noted, so that it captures them and the op depends on them.
            changes.update(tapes=(), hidden=outer.tapes, tracked=self.tracked)
        token = frame_var.set(outer.child(TransformFrame, **changes))
        try:
            with value_scope(), transform_scope():
                return fun(*args)
        finally:
            frame_var.reset(token)

    def close(self, args: Sequence[TracedTensor], outs: Sequence[TracedTensor]) -> list:
        """`outs` rebuilt over `args` and capture leaves only (captures recorded here)."""
        frame = current()
        if frame.hidden:  # an output hidden tapes follow, returned as it is: captured
            for t in outs:
                if frame.hidden_follows(t):
                    frame.tracked[t.key] = t  # type: ignore[index]
        arg_keys = {t.key for t in args}
        flat = materialize_merge(None, [t.key for t in outs])
        bindings = merge_bindings(list(outs))
        internal = set(arg_keys)
        tracked = self.tracked
        unbound = {k for k in flat.inputs if k not in arg_keys and bindings.get(k) is None}
        for op_key in flat.operations:
            if any([k in unbound for k in op_key.inputs]):
                unbound.update(op_key.outputs)
            if not op_key.inputs or any([k in internal or k in tracked for k in op_key.inputs]):
                internal.update(op_key.outputs)  # (ops on what tapes follow: not hoisted)
        values = current().values or {}
        env: dict[ValueKey, TracedTensor] = {t.key: t for t in args}

        def captured(key: ValueKey) -> TracedTensor:
            leaf = self.captures.get(key)
            outer = tracked.get(key)
            if leaf is None and outer is not None:  # the very value, which the tapes follow
                leaf = body_leaf(self.depth, f"c{len(self.outer)}", outer.aval)
                self.captures[key] = leaf
                self.outer.append(outer)
            if leaf is None:
                aval = (
                    key.input_key.aval if key.is_input else key.operation.meta[0][key.output_slot]
                )
                outer = TracedTensor(key, aval, bindings, key in unbound)
                value = bindings.get(key) if key.is_input else values.get(key)
                if value is not None and key not in unbound:
                    outer._value = value
                leaf = self.captures[key] = body_leaf(self.depth, f"c{len(self.outer)}", aval)
                self.outer.append(outer)
            return leaf

        def get(key: ValueKey) -> TracedTensor:
            found = env.get(key)
            return found if found is not None else captured(key)

        for op_key in flat.operations:
            if op_key.outputs[0] not in internal:
                continue
            results = apply(op_key.op, [get(k) for k in op_key.inputs], op_key.meta)
            env.update(zip(op_key.outputs, results))
        return [get(t.key) for t in outs]

    def program(self, args: Sequence[TracedTensor], outs: Sequence[TracedTensor]) -> ClosedProgram:
        """The closed program with inputs (*capture leaves, *args) and outputs `outs`."""
        inputs = [*self.captures.values(), *args]
        return ClosedProgram.get(
            [t.key for t in inputs], [t.key for t in outs], [t.aval for t in outs]
        )


def trace_many(
    funs: Sequence[Callable[[list[TracedTensor]], list[TracedTensor]]], avals: Sequence[Aval]
) -> tuple[list[ClosedProgram], list[TracedTensor]]:
    """(programs, captured operands) of flat bodies `fun(args) -> outs` sharing their
    arguments and captures (branches); each program's inputs are (*captures, *args).
    Transforms build their bodies with it."""
    closure = Closure()
    args = closure.arguments(avals)
    outs = [closure.trace(lambda fun=fun: closure.close(args, fun(args))) for fun in funs]
    return [closure.program(args, o) for o in outs], closure.outer


def trace_flat(
    fun: Callable[[list[TracedTensor]], list[TracedTensor]], avals: Sequence[Aval]
) -> tuple[ClosedProgram, list[TracedTensor]]:
    """(program, captured operands) of one flat body (see trace_many)."""
    programs, captures = trace_many([fun], avals)
    return programs[0], captures


def program_tensors(program: ClosedProgram) -> tuple[list[TracedTensor], list[TracedTensor]]:
    """(inputs, outputs) of `program` as unbound TracedTensors over its own keys."""
    ins = [TracedTensor(k, a, {}, unbound=True) for k, a in zip(program.inputs, program.in_avals)]
    outs = [
        TracedTensor(k, a, {}, unbound=True) for k, a in zip(program.outputs, program.out_avals)
    ]
    return ins, outs


def inline(
    program: ClosedProgram,
    replace: dict[ValueKey, TracedTensor],
    outputs: Sequence[ValueKey] | None = None,
) -> list[TracedTensor | None]:
    """The program's `outputs` (default: all) computed on replacement values: `replace` maps
    its input keys (or any inner value key) to traced values. Ops whose inputs are not all
    available are skipped (their outputs come back None), so replacing some inner values
    rebuilds only what depends on them."""
    outputs = list(program.outputs if outputs is None else outputs)
    flat = materialize_merge(None, outputs)
    env = dict(replace)
    for op_key in flat.operations:
        if op_key.outputs[0] in env:
            continue
        ins = [env.get(k) for k in op_key.inputs]
        if any(t is None for t in ins):
            continue
        results = apply(op_key.op, ins, op_key.meta)  # type: ignore[arg-type]
        env.update(zip(op_key.outputs, results))
    return [env.get(k) for k in outputs]


def call(program: ClosedProgram, args: Sequence[TracedTensor]) -> list[TracedTensor]:
    """The program applied to `args` inline (one value per output)."""
    return inline(program, dict(zip(program.inputs, args)))  # type: ignore[return-value]
