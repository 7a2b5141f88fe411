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

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from tf8.graph import OperationKey, ValueKey
from tf8.lax import effects
from tf8.lax.core import TransformFrame, apply
from tf8.lax.scopes import transform_scope, value_scope
from tf8.lax.walk import GraphWalk, interpret
from tf8.ops.extension.control import ClosedProgram, ControlOp
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
        self.args: list[TracedTensor] = []  # every argument leaf made (effects start on them)
        self.scopes: list[effects.Scope] = []  # each trace's effects (tf8.lax.effects)

    def arguments(
        self, avals: Sequence[Aval], weak: Sequence[bool] | None = None, start: int = 0
    ) -> list[TracedTensor]:
        """Fresh argument leaves (positions from `start`, so several lists never collide)."""
        weak = weak or [False] * len(avals)
        made = [
            body_leaf(self.depth, f"a{i}", a, w) for i, (a, w) in enumerate(zip(avals, weak), start)
        ]
        self.args.extend(made)
        return made

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
            with value_scope(), transform_scope(), effects.scope(self.args) as scoped:
                self.scopes.append(scoped)
                return fun(*args)
        finally:
            frame_var.reset(token)

    def apply(self, op: Any, operands: Sequence[TracedTensor]) -> list[TracedTensor]:
        """Apply the control op holding the bodies traced here; where they have effects, it
        is applied as an effect, and its results carry them in the enclosing scope (see
        tf8.lax.effects)."""
        for scoped in self.scopes:
            if effects.pending(scoped) is not None:
                results = effects.apply_effect(op, operands)
                effects.keep(scoped, results)
                return results
        return apply(op, operands)

    def effect_token(self) -> list[TracedTensor]:
        """[the effects' token] of the body being traced, for a body with no outputs to tie
        it to ([] where it has no effects)."""
        token = effects.pending(self.scopes[-1]) if self.scopes else None
        return [] if token is None else [token]

    def close(self, args: Sequence[TracedTensor], outs: Sequence[TracedTensor]) -> list:
        """`outs` rebuilt over `args` and capture leaves only (captures recorded here); where
        the body traced effects, each output reads them first (tf8.lax.effects)."""
        if self.scopes:
            outs = effects.tie(self.scopes[-1], outs)
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
    recompute: bool = True,
) -> list[TracedTensor | None]:
    """The program's `outputs` (default: all) computed on replacement values: `replace` maps
    its input keys (or any inner value key) to traced values. Ops whose inputs are not all
    available are skipped (their outputs come back None), so replacing some inner values
    rebuilds only what depends on them. An op with some outputs replaced runs again for the
    others unless `recompute` is False (a linear part reading residuals: its other outputs
    are never read, and running it would run a loop again)."""
    outputs = list(program.outputs if outputs is None else outputs)
    env = dict(replace)
    drop = effects.dropping()

    def step(op_key: OperationKey, values: list) -> Sequence[TracedTensor | None]:
        outs = op_key.outputs
        if outs[0] in env or (not recompute and any([k in env for k in outs])):
            return [env.get(k) for k in outs]  # an inner value replaced: kept
        if any([v is None for v in values]):
            return [None] * len(op_key.outputs)
        op = op_key.op
        if drop:  # effects that ran already (replaying): their Ties and the ops they keep go
            if type(op) is effects.Tie:
                return values[:-1]
            if isinstance(op, ControlOp):
                op = _without_effects(op)
        return apply(op, values, op_key.meta)

    interpret(GraphWalk([], keys=outputs).operations, env, step, constants=True)
    return [env.get(k) for k in outputs]


_STRIPPED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _without_effects(op: ControlOp) -> ControlOp:
    """`op` with the effects of its bodies (and of the loops in them) dropped: what a
    replaying transform rebuilds (see tf8.lax.effects.replaying)."""
    payload = [
        _stripped(p)
        if isinstance(p, ClosedProgram)
        else tuple(_stripped(q) for q in p)
        if isinstance(p, tuple) and p and isinstance(p[0], ClosedProgram)
        else p
        for p in op.payload
    ]
    return op if payload == list(op.payload) else type(op)(*payload)


def _stripped(program: ClosedProgram) -> ClosedProgram:
    """`program` without effects (itself when it has none)."""
    found = _STRIPPED.get(program)
    if found is None:
        found = program
        if has_effects(program):
            rebuilt, captures = trace_flat(
                lambda args: inline(program, dict(zip(program.inputs, args))), program.in_avals
            )
            if not captures:  # (a closed program captures nothing)
                found = rebuilt
        _STRIPPED[program] = found
    return found


_EFFECTFUL: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def has_effects(program: ClosedProgram) -> bool:
    """Whether `program`, or a program nested in one of its ops, holds an effect."""
    found = _EFFECTFUL.get(program)
    if found is None:
        found = False
        for op_key in GraphWalk([], keys=list(program.outputs)).operations:
            op = op_key.op
            if type(op) is effects.Tie or (
                isinstance(op, ControlOp) and any(has_effects(p) for p in _programs(op))
            ):
                found = True
                break
        _EFFECTFUL[program] = found
    return found


def apply_control(op: ControlOp, operands: Sequence[TracedTensor]) -> list[TracedTensor]:
    """Apply a control op a transform rebuilt (a batched loop): as an effect where its bodies
    have effects (in a body: recorded, never computed while tracing; tf8.lax.effects)."""
    if any(has_effects(p) for p in _programs(op)):
        return effects.apply_effect(op, operands)
    return apply(op, operands)


def _programs(op: ControlOp) -> list[ClosedProgram]:
    found = []
    for p in op.payload:
        if isinstance(p, ClosedProgram):
            found.append(p)
        elif isinstance(p, tuple):
            found.extend(q for q in p if isinstance(q, ClosedProgram))
    return found


def call(program: ClosedProgram, args: Sequence[TracedTensor]) -> list[TracedTensor]:
    """The program applied to `args` inline (one value per output)."""
    return inline(program, dict(zip(program.inputs, args)))  # type: ignore[return-value]
