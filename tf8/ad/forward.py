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
from tf8.lax.values import node_of, tag
from tf8.ops.definition import PLANS, definition
from tf8.ops.fpstate import ignore_fp_errors, quiet_numpy, restore_fp_errors
from tf8.traced import TracedTensor, _tapes

from .linearize import JVP
from .tape_rules import NUMPY_RULES

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
        for t in inputs:  # each input's tangent (`node_of`, inlined: the hot path)
            tangent = None
            nodes = t._node
            if nodes is not None:
                for n in nodes:
                    if n[0] is self:
                        tangent = n[2]
                        break
            tangents.append(tangent)
        tapes = _tapes.get()
        if tapes[0] is self and len(outputs) == 1:  # outermost: in numpy where a rule allows
            key = d.rule_key
            kind = _NUMPY_KIND.get(key) or (_LINEAR if d.linear and len(inputs) == 1 else 0)
            if kind and _numpy_tangent(kind, key, op, inputs, outputs[0], tangents, node):
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

# How the outermost forward tape computes a row's tangent in numpy: DIAGONAL rows by their
# numpy VJP rule, one-operand linear rows and dot_general by the primal's own kernel.
_DIAGONAL, _LINEAR = 1, 2
_NUMPY_KIND: dict[Any, int] = dict.fromkeys(DIAGONAL, _DIAGONAL)
_NUMPY_KIND["dot_general"] = _LINEAR


def _numpy_tangent(kind, key, op, inputs, out, tangents, node) -> bool:
    """The tangent of a one-output row of `_NUMPY_KIND` on real floats, computed in numpy
    and tagged on `out` (True when done): the sum over the operands carrying a tangent t_i
    of the row's J_i·t_i, with floating-point warnings off (rules follow IEEE, as kernels do).
    """
    if out.aval.dtype.kind != "f":
        return False
    xs = []
    for t in inputs:
        if t.aval.dtype.kind != "f":
            return False
        xs.append(t._value)
    if kind == _DIAGONAL:
        rule, y, n = NUMPY_RULES[key], out._value, len(inputs)
        kernel = None
        if n == 1:  # one operand: its rule alone, in numpy's quiet context (the hot path)
            t = tangents[0]
            if t is not None:
                total = quiet_numpy(rule, op, xs, y, t._value, _ONLY[1, 0])[0]
                _tag_tangent(out, node, total)
            return True
    elif key == "dot_general" and _matmul(op, xs[0].ndim, xs[1].ndim):
        kernel = _matmul_kernel  # what the kernel computes for this product: x @ y
    else:
        plan = PLANS.get((op, *[t.aval for t in inputs]))  # the primal's: tangents share avals
        if not plan:
            return False
        kernel = plan[0]
    total = None
    token = ignore_fp_errors()
    try:
        for i, t in enumerate(tangents):
            if t is None:
                continue
            if kernel is None:
                part = rule(op, xs, y, t._value, _ONLY[n, i])[i]
            elif len(xs) == 1:
                part = kernel(op, t._value)
            else:
                part = kernel(op, *xs[:i], t._value, *xs[i + 1 :])
            total = part if total is None else total + part
    finally:
        restore_fp_errors(token)
    if total is not None:
        _tag_tangent(out, node, total)
    return True


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


def _matmul_kernel(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return x @ y


_MATMULS: dict[tuple, bool] = {}  # (dot_general op, x.ndim, y.ndim) -> a plain `x @ y`?


def _matmul(op: Any, x_ndim: int, y_ndim: int) -> bool:
    """True when the dot_general kernel computes `op` on operands of these ranks as `x @ y`
    (no batch axes, rank ≤ 2, the last axis of x against the first of y)."""
    key = (op, x_ndim, y_ndim)
    found = _MATMULS.get(key)
    if found is None:
        (xc, yc), (xb, _) = op["contracting"], op["batch"]
        found = (
            not xb
            and 1 <= x_ndim <= 2
            and 1 <= y_ndim <= 2
            and len(xc) == 1
            and xc[0] % x_ndim == x_ndim - 1
            and yc[0] % y_ndim == 0
        )
        if len(_MATMULS) >= 256:  # bounded, as every cache is
            _MATMULS.clear()
        _MATMULS[key] = found
    return found
