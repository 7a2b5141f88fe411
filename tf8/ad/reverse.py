"""Reverse mode of a traced graph in one backward walk, from the derived pullbacks.

`transpose_graph(jvp_graph(...))` records the whole tangent program only to transpose it.
`vjp_walk` goes backwards over the primal graph once instead and, for each op on a
differentiated value, applies the op's pullback — the graph tf8.ad.derive traces from that
op's JVP and transpose rules, once per (op, differentiated inputs, input avals) — to the op's
values and its cotangent. The ops emitted are those the two walks would emit for the
cotangents (the same rules, in the same order per op; residuals such as `cos(x)` are
ordinary primal ops that CSE merges with the user's), tagged linear as theirs are.
An op whose rules cannot be traced on avals alone (a reverse-mode error to raise, a rule that
reads values): None, and the caller takes the two walks. So does a control op (scan, cond,
while, checkpoint): its derived pullback, traced on leaves, carries the rule's constants (a
tangent carry's zeros) into its loops as operands, which measured 1.17x slower in steady
state on a 10 000-step scan than the two walks' program, where they are made in the body.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tf8.graph import OperationKey, ValueKey
from tf8.graph.interpret import interpret
from tf8.lax.builders import Tangent, add_any, convert
from tf8.lax.scopes import linear_scope
from tf8.lax.walk import GraphWalk
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from .derive import pullback

__all__ = ["vjp_walk"]


class _Undone(Exception):  # noqa: N818 - a signal inside vjp_walk
    """An op the one walk cannot pull back (no derived pullback, or a control op)."""


def vjp_walk(
    outputs: Sequence[TracedTensor],
    leaves: Sequence[TracedTensor],
    cotangents: Sequence[Tangent],
    values: Mapping[ValueKey, Any] | None = None,
) -> list[Tangent] | None:
    """Cotangents of the leaves `leaves` given cotangents of `outputs` (None: zero), or None
    where an op has no derived pullback."""
    walk = GraphWalk(outputs, [c for c in cotangents if c is not None], values)
    active = walk.depends_on(t.key for t in leaves if dt.is_inexact(t.dtype))
    env: dict[ValueKey, Tangent] = {}
    for out, ct in zip(outputs, cotangents):
        if ct is not None and out.key in active:
            env[out.key] = add_any(env.get(out.key), ct)

    def pull(op_key: OperationKey, cts: list) -> None:
        inputs = op_key.inputs
        needs = tuple([k in active for k in inputs])
        if True not in needs:
            return
        if getattr(op_key.op, "subprograms", ()):
            raise _Undone  # a control op: see below
        outs = op_key.outputs
        ins = [walk[k] for k in inputs]
        out_tensors = [walk[k] for k in outs]
        present = None if len(outs) == 1 else tuple([c is not None for c in cts])
        derived = pullback(op_key.op, ins, out_tensors, needs, present)
        if derived is None:
            raise _Undone
        found = derived.inline([*ins, *out_tensors, *cts])
        for k, c in zip(inputs, found):
            if c is not None:
                old = env.get(k)
                env[k] = c if old is None else add_any(old, c)

    with linear_scope(c.key for c in env.values() if c is not None):
        try:
            interpret(walk.operations, env, pull, backward=True)
        except _Undone:
            return None
    result = []
    for leaf in leaves:
        c = env.get(leaf.key) if leaf.key in active else None
        if c is not None and c.dtype != leaf.dtype:
            c = convert(c, leaf.dtype)
        result.append(c)
    return result
