"""Forward mode op by op: the tangents of top-level `jvp`, carried beside the values.

The function runs on the tape machinery of tf8.ad.tape (ops computed at once, the tape told
of each op on a differentiated value), but nothing is kept for later: as each op runs, its
JVP rule — the one the graph path uses — computes the output tangents from the inputs'
tangents, at once, on concrete values: outermost, as the numpy function derived from the rule
for these avals (tf8.ad.derive); inside enclosing tapes, as the rule's own tf8 ops, which they
see. The tape follows each value with its node (value, argument, tangent) in a table of its
own; when the table doubles, the values only the table still holds are dropped with their
tangents, so a long run keeps the memory of the values it can still use, as op-by-op code
does. As with the reverse tape, what cannot run this way hands the transform to the graph
path.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.lax.builders import convert
from tf8.lax.core import TapeFrame, TransformFrame
from tf8.lax.core import leaf as computed
from tf8.ops.definition import DERIVED, definition
from tf8.ops.fpstate import QUIET_RUN as _quiet_run
from tf8.ops.fpstate import quietly
from tf8.ops.frames import current, frame_var
from tf8.traced import TracedTensor

from .derive import JVP_KEY, joint_tangent_rule, tangent_rule
from .linearize import JVP

__all__ = ["ForwardTape"]

_refcount = sys.getrefcount
_FIRST_LIMIT = 4096  # entries before the first prune
_UNHELD = 2  # getrefcount of a value only its node holds: the node and the call itself


class ForwardTape:
    """Computes each op's output tangents as the op runs."""

    __slots__ = ("failed", "nodes", "limit")

    def __init__(self) -> None:
        self.failed: str | None = None
        self.nodes: dict[int, tuple] = {}
        self.limit = _FIRST_LIMIT

    def follow(self, t: TracedTensor, where: str, tangent: Any = None) -> None:
        """Follow `t` with `tangent` (held by the tape: no other value takes its id)."""
        self.nodes[id(t)] = (t, where, tangent)
        if len(self.nodes) > self.limit:
            self.prune()

    def prune(self) -> None:
        """Drop the values only this table holds (no later op can read them), then let the
        table grow to twice what is left before looking again."""
        nodes = self.nodes
        for key in [k for k, node in nodes.items() if _refcount(node[0]) <= _UNHELD]:
            del nodes[key]
        self.limit = max(_FIRST_LIMIT, 2 * len(nodes))

    def record(
        self,
        op: Any,
        inputs: Sequence[TracedTensor],
        outputs: Sequence[TracedTensor],
        node: tuple,
        followed: tuple[bool, ...] = (),
    ) -> None:
        d = definition(op)
        if d.stops_derivative:
            return
        tangents = []
        values = []  # the inputs' values, then the tangents' (what a derived rule reads)
        carried = []
        nodes = self.nodes
        for t in inputs:  # each input's tangent: the hot path
            n = nodes.get(id(t))
            tangent = None if n is None else n[2]
            tangents.append(tangent)
            values.append(t._value)
            if tangent is not None:
                carried.append(tangent._value)
        frame = current()
        tapes = frame.tapes
        # a custom_vjp call that a reverse tape above also differentiates takes the tangent of
        # its forward function, as in JAX, where the higher trace replaced the call by it
        rule = _under_reverse(self, tapes, op, inputs) if len(tapes) > 1 else None
        if rule is None and tapes[0] is self:  # outermost: the rule derived, in numpy
            active = tuple([t is not None for t in tangents])
            if len(inputs) == 1:  # `tangent_rule`'s cache, read inline: the hot path
                cached = DERIVED.get((JVP_KEY, id(op), active, id(inputs[0].aval)))
            elif len(inputs) == 2:
                x, y = inputs
                cached = DERIVED.get((JVP_KEY, id(op), active, id(x.aval), id(y.aval)))
            else:
                cached = None
            derived = cached[0] if cached is not None else tangent_rule(op, inputs, outputs, active)
            if derived:
                for o in outputs:
                    values.append(o._value)
                values.extend(carried)
                try:  # `quiet_numpy`, inlined
                    found = _quiet_run(derived.run, *values)
                except RuntimeError:
                    found = quietly(derived.run, *values)
                where = node[1]
                for out, total in zip(outputs, found):  # `follow`, inlined: the hot path
                    if total is not None:
                        nodes[id(out)] = (out, where, _tangent(out, total))
                if len(nodes) > self.limit:
                    self.prune()
                return
        # the rule's own ops are seen by the enclosing tapes only (JAX's trace levels)
        below = tapes[: tapes.index(self)]
        token = frame_var.set(frame.child(TapeFrame if below else TransformFrame, tapes=below))
        try:
            out_tangents = (rule or JVP(op))(op, list(inputs), list(outputs), tangents)
            converted = []
            for out, t in zip(outputs, out_tangents):
                if t is not None and t.dtype != out.dtype and out.aval.dtype.kind in "fc":
                    t = convert(t, out.dtype)
                converted.append(t)
        finally:
            frame_var.reset(token)
        for out, t in zip(outputs, converted):
            if t is not None and out.aval.dtype.kind in "fc":
                self.follow(out, node[1], t)

    def run_saving(
        self, op: Any, inputs: Sequence[TracedTensor], values: list, out_avals: tuple
    ) -> list[TracedTensor] | None:
        """Run the control op `op` and its tangents in one loop (`joint_tangent_rule`), not
        the op's loop and then its JVP's; None where that does not apply (the op then runs
        and is written down as any op)."""
        nodes = self.nodes
        found = [nodes.get(id(t)) for t in inputs]
        active = tuple([n is not None and n[2] is not None for n in found])
        if True not in active:
            return None
        derived = joint_tangent_rule(op, inputs, out_avals, active)
        if derived is None:
            return None
        tangents = [n[2]._value for n, a in zip(found, active) if a]
        arrays = quietly(derived.run, *values, *tangents)
        outputs = [computed(a, v) for a, v in zip(out_avals, arrays)]
        where = found[active.index(True)][1]  # type: ignore[index]
        for out, total in zip(outputs, arrays[len(outputs) :]):
            if total is not None and out.aval.dtype.kind in "fc":
                self.follow(out, where, _tangent(out, total))
        return outputs

    def tangent(self, t: TracedTensor) -> TracedTensor | None:
        """The tangent this run carries for `t` (None: zero)."""
        node = self.nodes.get(id(t))
        return None if node is None else node[2]


def _under_reverse(tape: ForwardTape, tapes: tuple, op: Any, inputs: Sequence) -> Any:
    """`op`'s `forward_under_reverse` rule when it has one and a reverse tape inside `tape` (a
    higher level) follows one of `inputs`; else None."""
    rule = getattr(type(op), "forward_under_reverse", None)
    if rule is None:
        return None
    for other in tapes[tapes.index(tape) + 1 :]:
        if not isinstance(other, ForwardTape) and any(id(t) in other.nodes for t in inputs):
            return rule.__get__(op)
    return None


def _tangent(out: TracedTensor, total: Any) -> TracedTensor:
    """The numpy tangent `total` of `out` as a concrete value (`leaf`, inlined)."""
    aval = out.aval
    if type(total) is not np.ndarray or total.dtype != aval.dtype:
        total = np.asarray(total, aval.dtype)
    tangent = TracedTensor(None, aval, None)
    tangent._value = total
    return tangent
