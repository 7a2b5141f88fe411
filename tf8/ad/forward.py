"""Forward mode op by op: the tangents of top-level `jvp`, carried beside the values.

The function runs on the tape machinery of tf8.ad.tape (ops computed at once, the tape told
of each op on a differentiated value), but nothing is kept for later: as each op runs, its
JVP rule — the one the graph path uses — computes the output tangents from the inputs'
tangents, at once, on concrete values. A value's `_node` is (tape, argument, tangent). As
with the reverse tape, what cannot run this way hands the transform to the graph path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tf8.lax.builders import convert
from tf8.ops.definition import definition
from tf8.traced import TracedTensor, _tape

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
        if definition(op).stops_derivative:
            return
        tangents = []
        for t in inputs:
            n = t._node
            tangents.append(n[2] if n is not None and n[0] is self else None)
        token = _tape.set(None)  # the rule's own ops are plain computations
        try:
            out_tangents = JVP(op)(op, list(inputs), list(outputs), tangents)
        finally:
            _tape.reset(token)
        for out, t in zip(outputs, out_tangents):
            if t is None or out.aval.dtype.kind not in "fc":
                continue
            if t.dtype != out.dtype:
                t = convert(t, out.dtype)
            out._node = (self, node[1], t)

    def tangent(self, t: TracedTensor) -> TracedTensor | None:
        """The tangent this run carries for `t` (None: zero)."""
        n = t._node
        return n[2] if n is not None and n[0] is self else None
