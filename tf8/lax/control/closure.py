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

from tf8.graph import OperationKey, ValueKey
from tf8.lax.core import TransformFrame, apply
from tf8.lax.scopes import transform_scope, value_scope
from tf8.lax.walk import GraphWalk, interpret
from tf8.ops.extension.control import ClosedProgram
from tf8.ops.frames import current, frame_var
from tf8.ops.leaves import LeafKey
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

_CAPTURED = object()  # the env entry of a value the tapes follow: captured where it is read


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
        walk = GraphWalk(outs)
        tracked = self.tracked
        env: dict[ValueKey, Any] = {t.key: t for t in args}
        for key, t in tracked.items():  # ops on what the tapes follow are never hoisted
            if t is not None and key in walk:
                env.setdefault(key, _CAPTURED)

        def captured(key: ValueKey) -> TracedTensor:
            leaf = self.captures.get(key)
            if leaf is None:
                outer = tracked.get(key)  # the very value, which the tapes follow
                if outer is None:
                    outer = walk[key]
                leaf = body_leaf(self.depth, f"c{len(self.outer)}", outer.aval)
                self.captures[key] = leaf
                self.outer.append(outer)
            return leaf

        def get(key: ValueKey, found: Any) -> TracedTensor:
            return captured(key) if found is None or found is _CAPTURED else found

        def rebuild(op_key: OperationKey, values: list) -> list[TracedTensor]:
            ins = [get(k, v) for k, v in zip(op_key.inputs, values)]
            return apply(op_key.op, ins, op_key.meta)

        # the ops that depend on the arguments (or on nothing) are rebuilt on the arguments
        # and capture leaves; the values they read from outside become captures
        interpret(walk.operations, env, rebuild, constants=True)
        closed = [get(t.key, env.get(t.key)) for t in outs]
        captures = set(map(id, self.captures.values()))
        for new, old in zip(closed, outs):  # a rebuilt output keeps its weak type
            if new is not old and id(new) not in captures:
                new._weak = old._weak
        return closed

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
    env = dict(replace)

    def step(op_key: OperationKey, values: list) -> Sequence[TracedTensor | None]:
        if op_key.outputs[0] in env:  # an inner value replaced: kept
            return [env.get(k) for k in op_key.outputs]
        if any([v is None for v in values]):
            return [None] * len(op_key.outputs)
        return apply(op_key.op, values, op_key.meta)

    interpret(GraphWalk([], keys=outputs).operations, env, step, constants=True)
    return [env.get(k) for k in outputs]


def call(program: ClosedProgram, args: Sequence[TracedTensor]) -> list[TracedTensor]:
    """The program applied to `args` inline (one value per output)."""
    return inline(program, dict(zip(program.inputs, args)))  # type: ignore[return-value]
