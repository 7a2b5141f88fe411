"""Vector-Jacobian products of single ops, for the tape's reverse mode (tf8.ad.tape).

`vjp(op, inputs, outputs, cts, needs)` gives the cotangent of each needed input of one
recorded op from its outputs' cotangents. It holds no formula: the pullback is derived from
the op's JVP and transpose rules for these input avals (tf8.ad.derive) and cached, then run
on the recorded numpy values — or, inside enclosing tapes, applied as tf8 ops they see.
An op whose rules cannot be traced on avals alone falls back to tf8.vjp of the op by itself
at the recorded values (the graph path, the same rules); `FALLBACKS` counts those.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.lax.core import apply, concrete
from tf8.ops.definition import definition
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from .derive import pullback
from .graph_path import graph_vjp
from .saving import SavingPullback, zeros_for

__all__ = ["FALLBACKS", "Saved", "vjp"]

# How often a pullback fell back to the graph path (tf8.vjp of the op alone), by op name:
# a primitive whose rules trace on avals never should.
FALLBACKS: Counter[str] = Counter()


def vjp(
    op: Any,
    inputs: Sequence[TracedTensor],
    outputs: Sequence[TracedTensor],
    cts: list[Any],
    needs: tuple[bool, ...],
    nested: bool = False,
) -> Sequence[Any]:
    """The cotangents of `op`'s inputs where `needs` says so (None elsewhere): numpy arrays,
    or — `nested` in enclosing tapes, which must see every op — TracedTensors made by tf8
    ops."""
    if type(op) is Saved:
        if not nested:
            return op.pullback(inputs, outputs, cts)
        op = op.op  # enclosing tapes must see every op: the op's own pullback, as tf8 ops
    # a multi-output op's outputs without a cotangent are symbolic zeros: none is made
    present = None if len(outputs) == 1 else tuple([c is not None for c in cts])
    derived = pullback(op, inputs, outputs, needs, present)
    if derived is None:
        return _generic(op, inputs, outputs, cts, needs)
    if nested:
        traced = [None if c is None else _traced(c, o.aval) for c, o in zip(cts, outputs)]
        return derived.inline([*inputs, *outputs, *traced], fold=True)
    return derived.run(*[t._value for t in inputs], *[o._value for o in outputs], *cts)


class Saved:
    """What the tape writes down for a control op it ran with its residuals
    (tf8.ad.saving): the op, the two halves of its pullback, and the residuals."""

    __slots__ = ("op", "split", "residuals")

    def __init__(self, op: Any, split: SavingPullback, residuals: Sequence[np.ndarray]) -> None:
        self.op, self.split, self.residuals = op, split, residuals

    def pullback(
        self, inputs: Sequence[TracedTensor], outputs: Sequence[TracedTensor], cts: list[Any]
    ) -> Sequence[Any]:
        present = tuple([c is not None for c in cts])
        backward, fill = self.split.backward(present)
        if fill:
            cts = zeros_for(cts, [o.aval for o in outputs])
        values = [t._value for t in (*inputs, *outputs)]
        return backward.run(*values, *cts, *self.residuals)


def _traced(value: Any, aval: Aval) -> TracedTensor:
    if isinstance(value, TracedTensor):
        return value
    return concrete(np.asarray(value, aval.dtype), aval)


def _generic(op, inputs, outputs, cts, needs) -> list[Any]:
    """tf8.vjp of the op alone (the graph path), at the recorded input values."""
    FALLBACKS[definition(op).name] += 1
    wanted = [i for i, need in enumerate(needs) if need]

    def alone(*xs: TracedTensor) -> list[TracedTensor]:
        args = list(inputs)
        for i, x in zip(wanted, xs):
            args[i] = x
        return apply(op, args)

    _, pullback_fn = graph_vjp(alone, *[inputs[i]._value for i in wanted])
    filled = [
        np.zeros(o.aval.shape, o.aval.dtype) if c is None else np.asarray(c, o.aval.dtype)
        for o, c in zip(outputs, cts)
    ]
    found = pullback_fn(filled)
    result: list[Any] = [None] * len(inputs)
    for i, c in zip(wanted, found):
        result[i] = np.asarray(c)
    return result
