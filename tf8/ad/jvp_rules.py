"""JVP (linearisation) rules, one per catalog row, keyed by the row's name.

A rule is `rule(op, primals, outputs, tangents) -> list of output tangents`; a tangent of None
is a symbolic zero. Tangent computations use only linear primitives (so they transpose);
residuals such as `cos(x)` are ordinary primal ops that CSE merges with the user's own.
At kinks the rules take the symmetric-difference value: d|x|/dx at 0 is 0, ties in
max/min/maximum split the derivative evenly.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from tf8.lax import rulekit
from tf8.lax.builders import (
    Tangent,
    add_any,
    materialize,
    mul,
)
from tf8.lax.core import apply
from tf8.ops.definition import OpDefinition, zero_jvp
from tf8.ops.primitive import Primitive
from tf8.ops.primitives import PRIMITIVES
from tf8.traced import TracedTensor

JvpRule = Callable[
    [Primitive, Sequence[TracedTensor], Sequence[TracedTensor], Sequence[Tangent]], list[Tangent]
]
JVP_RULES: dict[str, JvpRule] = {}


def zero_rule(op: Primitive, primals, outputs, tangents) -> list[Tangent]:
    """The JVP of an op whose outputs carry no derivative (a home's `zero_jvp`)."""
    return [None] * op.output_count


def elementwise_rule(partials: tuple[Callable[..., Any] | None, ...]) -> JvpRule:
    """Elementwise rule: tangent = sum_i partial_i(*primals, out) * t_i."""

    def rule(op, primals, outputs, tangents):
        total: Tangent = None
        for partial, t in zip(partials, tangents):
            if t is not None and partial is not None:
                total = add_any(total, mul(t, partial(*primals, outputs[0])))
        return [total]

    return rule


def home_jvp(found: OpDefinition) -> JvpRule | None:
    """The JVP rule of a primitive from its home: its own rule, or the elementwise rule of
    its partials, or the linear one (in every operand, or in those of `linear_in`); each
    handed the rule kit as `lax`. None: it has none. A home's declared zero derivative
    (`zero_jvp`) is this table's `zero_rule`."""
    if found.jvp is zero_jvp:
        return zero_rule
    if found.jvp is not None:
        return functools.partial(found.jvp, rulekit)
    if found.partials is not None:
        return elementwise_rule(
            tuple(None if p is None else functools.partial(p, rulekit) for p in found.partials)
        )
    if found.row is not None and found.linear:
        return linear_jvp
    if found.linear_in:
        return linear_in_jvp(found.linear_in)
    return None


def linear_jvp(op, primals, outputs, tangents) -> list[Tangent]:
    """The JVP of an op linear in all operands: the op applied to the tangents."""
    if all(t is None for t in tangents):
        return [None]
    args = [materialize(t, p.aval) for t, p in zip(tangents, primals)]
    return [apply(op, args)[0]]


def linear_in_jvp(positions: tuple[int, ...]) -> JvpRule:
    """The JVP of an op linear in the operands at `positions` when the others (indices,
    starts, sizes) are held fixed: the op on those operands' tangents, the others as they are."""

    def rule(op, primals, outputs, tangents):
        if all(tangents[i] is None for i in positions):
            return [None]
        args = [
            materialize(t, p.aval) if i in positions else p
            for i, (t, p) in enumerate(zip(tangents, primals))
        ]
        return [apply(op, args)[0]]

    return rule


# The rules of every primitive, from its home.
for _found in PRIMITIVES.values():
    _rule = home_jvp(_found)
    if _rule is not None:
        JVP_RULES[_found.name] = _rule
