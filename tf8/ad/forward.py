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

import numpy as np

from tf8.lax.builders import convert
from tf8.lax.core import leaf
from tf8.lax.values import node_of, tag
from tf8.ops.definition import PLANS, definition
from tf8.ops.kernels import FP_IGNORE, FP_STATE
from tf8.traced import TracedTensor, _tapes

from .linearize import JVP
from .tape_rules import NUMPY_RULES, real_floats

__all__ = ["ForwardTape"]

_set_fp_state, _reset_fp_state = FP_STATE.set, FP_STATE.reset


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
        for t in inputs:
            n = node_of(t, self)
            tangents.append(None if n is None else n[2])
        tapes = _tapes.get()
        if tapes[0] is self:  # outermost: the tangent in numpy where a rule allows it
            key = d.rule_key
            if key in DIAGONAL:
                if _diagonal(key, op, inputs, outputs, tangents, node):
                    return
            elif (d.linear and len(inputs) == 1) or key == "dot_general":
                if _linear(op, inputs, outputs, tangents, node):
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


# Elementwise rows: their Jacobian is diagonal, so J·t is the VJP rule applied to t (input by
# input): the numpy rules of tf8.ad.tape_rules give the tangent with no tf8 dispatch.
DIAGONAL = frozenset(
    "add sub neg mul div exp expm1 log log1p sin cos tanh logistic sqrt abs maximum minimum".split()
)


# needs masks by (operand count, operand): one operand's share of the tangent at a time
_ONLY = {(n, i): [j == i for j in range(n)] for n in (1, 2, 3) for i in range(n)}


def _diagonal(key, op, inputs, outputs, tangents, node) -> bool:
    """The tangent of an elementwise row (`key` in DIAGONAL) on real floats, computed in
    numpy (True when done)."""
    out = outputs[0]
    if not real_floats(outputs) or not real_floats(inputs):
        return False
    rule, n, xs, y = NUMPY_RULES[key], len(inputs), [t._value for t in inputs], out._value
    _tangent_sum(out, node, tangents, lambda i, t: rule(op, xs, y, t, _ONLY[n, i])[i])
    return True


def _linear(op, inputs, outputs, tangents, node) -> bool:
    """The tangent of a one-operand linear row (sum, reshape, broadcast, transpose, slice,
    ...) — the op's own kernel on the tangent — or of dot_general, bilinear — the kernel on
    (tx, y) plus on (x, ty) — on real floats, computed in numpy (True when done)."""
    if len(outputs) != 1 or not real_floats(inputs) or not real_floats(outputs):
        return False
    plan = PLANS.get((op, *[t.aval for t in inputs]))  # the primal's: tangents share avals
    if not plan:
        return False
    kernel, xs = plan[0], [t._value for t in inputs]
    _tangent_sum(outputs[0], node, tangents, lambda i, t: kernel(op, *xs[:i], t, *xs[i + 1 :]))
    return True


def _tangent_sum(out, node, tangents, part) -> None:
    """Tag `out` with Σ part(i, t_i) over the operands that carry a tangent t_i (numpy
    arrays; floating-point warnings off: rules follow IEEE, as kernels do)."""
    total = None
    token = _set_fp_state(FP_IGNORE)
    try:
        for i, t in enumerate(tangents):
            if t is not None:
                p = part(i, t._value)
                total = p if total is None else total + p
    finally:
        _reset_fp_state(token)
    if total is not None:
        tag(out, (node[0], node[1], leaf(out.aval, np.asarray(total, out.aval.dtype))))
