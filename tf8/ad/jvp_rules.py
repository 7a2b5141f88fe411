"""JVP (linearisation) rules, one per catalog row, keyed by the row's name.

A rule is `rule(op, primals, outputs, tangents) -> list of output tangents`; a tangent of None
is a symbolic zero. Tangent computations use only linear primitives (so they transpose);
residuals such as `cos(x)` are ordinary primal ops that CSE merges with the user's own.
At kinks the rules take the symmetric-difference value: d|x|/dx at 0 is 0, ties in
max/min/maximum split the derivative evenly.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

from tf8.lax import rulekit
from tf8.lax.builders import (
    Tangent,
    add_any,
    compare,
    convert,
    div,
    materialize,
    mul,
    neg,
    normalize_axes,
    select,
    unary,
)
from tf8.lax.core import apply, apply1
from tf8.ops import dtypes as dt
from tf8.ops.catalog import ROWS
from tf8.ops.definition import OpDefinition, zero_jvp
from tf8.ops.primitive import Primitive
from tf8.ops.primitives import PRIMITIVES
from tf8.traced import TracedTensor

from .special_jvp import SPECIAL_PARTIALS

JvpRule = Callable[
    [Primitive, Sequence[TracedTensor], Sequence[TracedTensor], Sequence[Tangent]], list[Tangent]
]
JVP_RULES: dict[str, JvpRule] = {}
# The partial derivatives of elementwise rows, `partial_i(*primals, out)`, by row name: the
# tape's reverse mode (tf8.ad.tape) multiplies cotangents by them directly.
ELEMENTWISE_PARTIALS: dict[str, tuple[Callable[..., Any] | None, ...]] = {}

# Rows whose outputs are piecewise constant or not real numbers: their derivative is zero.
ZERO_DERIVATIVE = "argmax argmin iota".split()


def zero_rule(op: Primitive, primals, outputs, tangents) -> list[Tangent]:
    return [None] * op.output_count


for _name in ZERO_DERIVATIVE:
    JVP_RULES[_name] = zero_rule


def elementwise_rule(partials: tuple[Callable[..., Any] | None, ...]) -> JvpRule:
    """Elementwise rule: tangent = sum_i partial_i(*primals, out) * t_i."""

    def rule(op, primals, outputs, tangents):
        total: Tangent = None
        for partial, t in zip(partials, tangents):
            if t is not None and partial is not None:
                total = add_any(total, mul(t, partial(*primals, outputs[0])))
        return [total]

    rule.partials = partials  # type: ignore[attr-defined]  # reverse mode reads them too
    return rule


def defjvp_elementwise(name: str, *partials: Callable[..., Any] | None) -> None:
    """Give row `name` the elementwise rule of `partials`."""
    JVP_RULES[name] = elementwise_rule(partials)
    ELEMENTWISE_PARTIALS[name] = partials


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


def deflinear(name: str) -> None:
    """The op is linear in all operands: its tangent is the op applied to the tangents."""
    JVP_RULES[name] = linear_jvp


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


# The catalog's `linear` flag is the one list of rows whose JVP is the row itself.
for _row in ROWS:
    if _row.linear:
        deflinear(_row.name)

# The rules of every primitive defined in a family module.
_OLDER = {_row.name for _row in ROWS}
for _found in PRIMITIVES.values():
    if _found.row is not None and _found.name not in _OLDER:
        _rule = home_jvp(_found)
        if _rule is not None:
            JVP_RULES[_found.name] = _rule
            if _found.partials is not None:
                ELEMENTWISE_PARTIALS[_found.name] = _rule.partials  # type: ignore[attr-defined]


def _dot_general_rule(op, primals, outputs, tangents):
    x, y = primals
    tx, ty = tangents
    left = None if tx is None else apply(op, [tx, y])[0]
    right = None if ty is None else apply(op, [x, ty])[0]
    return [add_any(left, right)]


JVP_RULES["dot_general"] = _dot_general_rule


defjvp_elementwise(
    "erf", lambda x, out: mul(2.0 / math.sqrt(math.pi), unary("exp", neg(mul(x, x))))
)
defjvp_elementwise(
    "erf_inv", lambda x, out: mul(math.sqrt(math.pi) / 2.0, unary("exp", mul(out, out)))
)


for _name, _partials in SPECIAL_PARTIALS.items():
    defjvp_elementwise(_name, *_partials)


def _reduce_extremum_rule(op, primals, outputs, tangents):
    """Tangent of max/min over axes: the mean of the tangents at the tied extremal positions."""
    (x,), (t,) = primals, tangents
    if t is None:
        return [None]
    axes = normalize_axes(op["axes"], x.ndim)
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    out = apply1("broadcast_in_dim", [outputs[0]], shape=x.shape, broadcast_dimensions=kept)
    mask = convert(compare(x, out, "eq"), x.dtype)
    count = apply1("reduce_sum", [mask], axes=axes)
    return [div(apply1("reduce_sum", [mul(t, mask)], axes=axes), count)]


JVP_RULES["reduce_max"] = _reduce_extremum_rule
JVP_RULES["reduce_min"] = _reduce_extremum_rule


def _reduce_prod_rule(op, primals, outputs, tangents):
    """d prod = sum_i t_i * prod_{j != i} x_j, exact at zeros (no division by x)."""
    (x,), (t,) = primals, tangents
    if t is None:
        return [None]
    axes = normalize_axes(op["axes"], x.ndim)
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    perm = kept + tuple(axes)
    size = 1
    for a in axes:
        size = size * x.shape[a]
    batch = tuple(x.shape[i] for i in kept)
    flat = apply1("reshape", [apply1("transpose", [x], permutation=perm)], shape=batch + (size,))
    t_flat = apply1("reshape", [apply1("transpose", [t], permutation=perm)], shape=batch + (size,))
    nb = len(batch)
    # others[..., i, j] = x_j for j != i, 1 on the diagonal; its product over j excludes x_i.
    grid = apply1(
        "broadcast_in_dim",
        [flat],
        shape=batch + (size, size),
        broadcast_dimensions=tuple(range(nb)) + (nb + 1,),
    )
    rows = apply1("iota", [], shape=(size, size), dtype=dt.int64, dimension=0)
    cols = apply1("iota", [], shape=(size, size), dtype=dt.int64, dimension=1)
    diagonal = apply1(
        "broadcast_in_dim",
        [compare(rows, cols, "eq")],
        shape=batch + (size, size),
        broadcast_dimensions=(nb, nb + 1),
    )
    others = apply1("reduce_prod", [select(diagonal, 1, grid)], axes=(nb + 1,))
    return [apply1("reduce_sum", [mul(t_flat, others)], axes=(nb,))]


JVP_RULES["reduce_prod"] = _reduce_prod_rule
