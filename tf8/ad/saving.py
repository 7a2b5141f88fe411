"""A loop's pullback on the tape in two halves, so that its forward loop runs once.

The tape runs each op and, in the backward pass, its pullback derived from the rules
(tf8.ad.derive). A scan's pullback begins with the residual scan of its transpose rule: the
forward loop again, stacking what the reverse loop reads. So for a control op whose pullback
has such a forward part (ops reading the op's inputs only, a loop among them), the tape runs
`SavingPullback.forward` instead of the op: the op and that forward part, merged into one
loop (tf8.lax.control.merge), giving the op's outputs and the residuals in one pass. It keeps
the residuals, and the backward pass runs only the rest (`backward(present)`), as the
compiled gradient does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.graph import PRIMARY, OperationKey, ValueKey, materialize_merge
from tf8.lax.control.merge import merge_control, replace_values
from tf8.ops.avals import value_aval
from tf8.ops.extension.control import ControlOp
from tf8.ops.leaves import LeafKey
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from .derive import Derived, cached_rule, constants_of, pullback_graph

__all__ = ["SAVING", "SavingPullback", "saving_pullback"]

SAVING = "saving"  # the first item of its DERIVED keys


class SavingPullback:
    """`forward.run(*inputs)` gives the op's outputs, then its residuals;
    `backward(present)` the pullback over (*inputs, *outputs, *cotangents, *residuals) when
    the outputs `present` marks have a cotangent, and whether the others need zeros."""

    __slots__ = ("op", "avals", "out_avals", "needs", "forward", "residuals", "_backward")

    def __init__(self, op: Any, avals: list[Aval], out_avals: list[Aval], needs: tuple) -> None:
        self.op, self.avals, self.out_avals, self.needs = op, avals, out_avals, needs
        self._backward: dict[tuple, tuple[Derived, bool]] = {}

    def backward(self, present: tuple) -> tuple[Derived, bool]:
        found = self._backward.get(present)
        if found is None:
            found = self._backward[present] = self._derive_backward(present)
        return found

    def _derive_backward(self, present: tuple, graph: tuple | None = None) -> tuple[Derived, bool]:
        if graph is None:
            graph = pullback_graph(self.op, self.avals, self.out_avals, self.needs, present)
        xs, outs, cts, results = graph
        read = _forward_part(results, xs, [*outs, *cts])
        if not set(read or ()) <= set(self.residuals):  # another forward part: all present
            return (self.backward((True,) * len(self.out_avals))[0], True)
        leaves = [_leaf(f"r{i}", value_aval(k)) for i, k in enumerate(self.residuals)]
        kept = [r.key for r in results if r is not None]
        replaced = iter(replace_values(kept, dict(zip(self.residuals, leaves))))
        outputs = [None if r is None else next(replaced) for r in results]
        inputs = [*[t.key for t in (*xs, *outs, *cts)], *leaves]
        return Derived(inputs, outputs, constants_of(results)), False


def saving_pullback(
    op: Any, inputs: Sequence[TracedTensor], out_avals: Sequence[Aval], needs: tuple
) -> SavingPullback | None:
    """The two halves of `op`'s pullback on inputs like `inputs` (`needs`: which are
    differentiated), or None when its pullback has no loop to save (the tape then runs the
    op and its whole pullback)."""
    avals = [t.aval for t in inputs]
    return cached_rule(SAVING, _derive_saving, op, avals, list(out_avals), needs, by_value=True)


def _derive_saving(
    op: Any, avals: list[Aval], out_avals: list[Aval], needs: tuple
) -> SavingPullback | bool:
    present = (True,) * len(out_avals)
    graph = pullback_graph(op, avals, out_avals, needs, present)
    xs, outs, cts, results = graph
    residuals = _forward_part(results, xs, [*outs, *cts])
    if residuals is None:
        return False
    x_keys = [t.key for t in xs]
    op_key, primal = OperationKey.get_with_outputs(op, x_keys, PRIMARY)
    if op_key.meta is None:
        op_key.meta = (tuple(out_avals), ())
    forward = merge_control([*primal, *residuals])
    split = SavingPullback(op, avals, out_avals, needs)
    split.residuals = residuals
    split.forward = Derived(x_keys, forward, constants_of(results))
    split._backward[present] = split._derive_backward(present, graph)
    return split


def _forward_part(
    results: Sequence[TracedTensor | None],
    xs: Sequence[TracedTensor],
    later: Sequence[TracedTensor],
) -> list[ValueKey] | None:
    """The values computed from `xs` alone (not from the outputs or cotangents, `later`)
    that the rest of the pullback behind `results` reads, or None when no loop computes
    any of that forward part."""
    flat = materialize_merge(None, [r.key for r in results if r is not None])
    late = {t.key for t in later}
    early = {t.key for t in xs}
    read: dict[ValueKey, None] = {}
    loop = False
    for op_key in flat.operations:
        inputs = op_key.inputs
        if any([k in late for k in inputs]):
            late.update(op_key.outputs)
            read.update((k, None) for k in inputs if k in early and not k.is_input)
        elif any([k in early for k in inputs]):
            early.update(op_key.outputs)
            loop = loop or isinstance(op_key.op, ControlOp)
    return list(read) if loop else None


def _leaf(name: str, aval: Aval) -> ValueKey:
    return ValueKey.input(LeafKey(None, f"derived.{name}", aval, "body"))


def zeros_for(cts: Sequence[Any], out_avals: Sequence[Aval]) -> list[Any]:
    """`cts` with each missing cotangent (None) a zeros array of its output's aval."""
    return [np.zeros(a.shape, a.dtype) if c is None else c for c, a in zip(cts, out_avals)]
