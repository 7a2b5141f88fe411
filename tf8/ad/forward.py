"""Forward mode op by op: the tangents of top-level `jvp`, carried beside the values.

The function runs on the tape machinery of tf8.ad.tape (ops computed at once, the tape told
of each op on a differentiated value), but nothing is kept for later: as each op runs, its
JVP rule — the one the graph path uses — computes the output tangents from the inputs'
tangents, at once, on concrete values: outermost, as the numpy function derived from the rule
for these avals (tf8.ad.derive); inside enclosing tapes, as the rule's own tf8 ops, which they
see. A value's `_node` is (tape, argument, tangent). As
with the reverse tape, what cannot run this way hands the transform to the graph path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.lax.builders import convert
from tf8.lax.values import node_of, tag
from tf8.ops.definition import DERIVED, definition
from tf8.ops.fpstate import QUIET_RUN as _quiet_run
from tf8.ops.fpstate import quietly
from tf8.traced import TracedTensor, _tapes

from .derive import JVP_KEY, tangent_rule
from .linearize import JVP

__all__ = ["ForwardTape"]


class ForwardTape:
    """Computes each op's output tangents as the op runs."""

    __slots__ = ("failed",)

    def __init__(self) -> None:
        self.failed: str | None = None

    def record(
        self,
        op: Any,
        inputs: Sequence[TracedTensor],
        outputs: Sequence[TracedTensor],
        node: tuple,
    ) -> None:
        d = definition(op)
        if d.stops_derivative:
            return
        tangents = []
        values = []  # the inputs' values, then the tangents' (what a derived rule reads)
        carried = []
        for t in inputs:  # each input's tangent (`node_of`, inlined: the hot path)
            tangent = None
            nodes = t._node
            if nodes is not None:
                for n in nodes:
                    if n[0] is self:
                        tangent = n[2]
                        break
            tangents.append(tangent)
            values.append(t._value)
            if tangent is not None:
                carried.append(tangent._value)
        tapes = _tapes.get()
        if tapes[0] is self:  # outermost: the rule derived for these avals, in numpy
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
                for out, total in zip(outputs, found):
                    if total is not None:
                        _tag_tangent(out, node, total)
                return
        # the rule's own ops are seen by the enclosing tapes only (JAX's trace levels)
        token = _tapes.set(tapes[: tapes.index(self)])
        try:
            out_tangents = JVP(op)(op, list(inputs), list(outputs), tangents)
            converted = []
            for out, t in zip(outputs, out_tangents):
                if t is not None and t.dtype != out.dtype and out.aval.dtype.kind in "fc":
                    t = convert(t, out.dtype)
                converted.append(t)
        finally:
            _tapes.reset(token)
        for out, t in zip(outputs, converted):
            if t is not None and out.aval.dtype.kind in "fc":
                tag(out, (self, node[1], t))

    def tangent(self, t: TracedTensor) -> TracedTensor | None:
        """The tangent this run carries for `t` (None: zero)."""
        node = node_of(t, self)
        return None if node is None else node[2]


def _tag_tangent(out: TracedTensor, node: tuple, total: Any) -> None:
    """Let `node`'s tape follow `out` with the numpy tangent `total` (`leaf` and `tag`,
    inlined)."""
    aval = out.aval
    if type(total) is not np.ndarray or total.dtype != aval.dtype:
        total = np.asarray(total, aval.dtype)
    tangent = TracedTensor(None, aval, None)
    tangent._value = total
    previous = out._node
    n = (node[0], node[1], tangent)
    out._node = (n,) if previous is None else (*previous, n)
