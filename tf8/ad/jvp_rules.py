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
    compare,
    conj,
    convert,
    div,
    like,
    materialize,
    mul,
    neg,
    normalize_axes,
    real,
    scale,
    select,
    sub,
    unary,
)
from tf8.lax.core import apply, apply1
from tf8.ops import dtypes as dt
from tf8.ops.catalog import ROWS
from tf8.ops.definition import OpDefinition
from tf8.ops.primitive import Primitive
from tf8.ops.primitives import PRIMITIVES
from tf8.traced import TracedTensor

JvpRule = Callable[
    [Primitive, Sequence[TracedTensor], Sequence[TracedTensor], Sequence[Tangent]], list[Tangent]
]
JVP_RULES: dict[str, JvpRule] = {}
# The partial derivatives of elementwise rows, `partial_i(*primals, out)`, by row name: the
# tape's reverse mode (tf8.ad.tape) multiplies cotangents by them directly.
ELEMENTWISE_PARTIALS: dict[str, tuple[Callable[..., Any] | None, ...]] = {}

# Rows whose outputs are piecewise constant or not real numbers: their derivative is zero.
ZERO_DERIVATIVE = (
    "sign compare and or not xor shift_left shift_right_logical shift_right_arithmetic"
    " bitcast_convert_type floor ceil round argmax argmin iota shape_of constant".split()
)


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
    its partials, or the linear one; each handed the rule kit as `lax`. None: it has none."""
    if found.jvp is not None:
        return functools.partial(found.jvp, rulekit)
    if found.partials is not None:
        return elementwise_rule(
            tuple(None if p is None else functools.partial(p, rulekit) for p in found.partials)
        )
    if found.row is not None and found.linear:
        return linear_jvp
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


def deflinear_first(name: str) -> None:
    """Linear in operand 0; the other operands are indices/sizes (not differentiated)."""

    def rule(op, primals, outputs, tangents):
        if tangents[0] is None:
            return [None]
        return [apply(op, [tangents[0], *primals[1:]])[0]]

    JVP_RULES[name] = rule


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
for _name in "gather dynamic_slice dynamic_truncate pad_to_match".split():
    deflinear_first(_name)


def _convert_rule(op, primals, outputs, tangents):
    (t,) = tangents
    if t is None or not dt.is_inexact(outputs[0].dtype):
        return [None]
    return [apply(op, [t])[0]]


JVP_RULES["convert"] = _convert_rule


def _scatter_add_rule(op, primals, outputs, tangents):
    t_operand, _, t_updates = tangents
    if t_operand is None and t_updates is None:
        return [None]
    operand, indices, updates = primals
    args = [materialize(t_operand, operand.aval), indices, materialize(t_updates, updates.aval)]
    return [apply(op, args)[0]]


def _dynamic_update_slice_rule(op, primals, outputs, tangents):
    if tangents[0] is None and tangents[1] is None:
        return [None]
    x, update, *starts = primals
    args = [materialize(tangents[0], x.aval), materialize(tangents[1], update.aval), *starts]
    return [apply(op, args)[0]]


JVP_RULES["scatter_add"] = _scatter_add_rule
JVP_RULES["dynamic_update_slice"] = _dynamic_update_slice_rule


def _select_rule(op, primals, outputs, tangents):
    pred, a, b = primals
    _, ta, tb = tangents
    if ta is None and tb is None:
        return [None]
    return [apply1("select", [pred, materialize(ta, a.aval), materialize(tb, b.aval)])]


JVP_RULES["select"] = _select_rule


def _mul_rule(op, primals, outputs, tangents):
    x, y = primals
    tx, ty = tangents
    return [add_any(scale(tx, y), None if ty is None else mul(x, ty))]


def _div_rule(op, primals, outputs, tangents):
    x, y = primals
    tx, ty = tangents
    out = outputs[0]
    return [
        add_any(
            None if tx is None else div(tx, y), None if ty is None else neg(div(mul(ty, out), y))
        )
    ]


def _dot_general_rule(op, primals, outputs, tangents):
    x, y = primals
    tx, ty = tangents
    left = None if tx is None else apply(op, [tx, y])[0]
    right = None if ty is None else apply(op, [x, ty])[0]
    return [add_any(left, right)]


JVP_RULES["mul"] = _mul_rule
JVP_RULES["div"] = _div_rule
JVP_RULES["dot_general"] = _dot_general_rule


def _pow_rule(op, primals, outputs, tangents):
    x, y = primals
    tx, ty = tangents
    out = outputs[0]
    total: Tangent = None
    if tx is not None:
        # y * x**(y-1), pinned to 0 where x == y == 0 (so d(x**0)/dx = 0 even at x = 0).
        # Only that point is pinned: at y == 0, x != 0 the formula is 0 and its derivative in
        # y is 1/x, which second derivatives need. The pinned point evaluates at x = 1 so no
        # inf/nan reaches a transposed product (the "double where").
        pinned = apply1("and", [compare(y, 0, "eq"), compare(x, 0, "eq")])
        safe_x = select(pinned, like(x, 1), x)
        d = select(pinned, like(x, 0), mul(y, apply1("pow", [safe_x, sub(y, 1)])))
        total = mul(tx, d)
    if ty is not None:
        # log(x) * x**y, with log(0) replaced by 0 where x == 0 (as JAX does).
        x_zero = compare(x, 0, "eq")
        log_x = unary("log", select(x_zero, 1, x))
        total = add_any(total, mul(ty, mul(log_x, out)))
    return [total]


JVP_RULES["pow"] = _pow_rule


def _rem_rule(op, primals, outputs, tangents):
    x, y = primals
    tx, ty = tangents
    # rem = x - y * floor(Re(x / y)); the floor is piecewise constant (complex: on Re(x / y)).
    if ty is None:
        return [tx]
    quotient = convert(unary("floor", real(div(x, y))), x.dtype)
    return [add_any(tx, neg(mul(ty, quotient)))]


JVP_RULES["rem"] = _rem_rule


def _abs_rule(op, primals, outputs, tangents):
    (x,), (t,) = primals, tangents
    if t is None:
        return [None]
    if not dt.is_complex(x.dtype):
        return [mul(t, unary("sign", x))]
    # d|z| = Re(conj(z) dz) / |z|, 0 at z = 0.
    mag = outputs[0]
    is_zero = compare(mag, 0, "eq")
    unit = div(conj(x), convert(select(is_zero, 1, mag), x.dtype))
    unit = select(compare(convert(mag, x.dtype), 0, "eq"), 0, unit)
    return [real(mul(t, unit))]


JVP_RULES["abs"] = _abs_rule


def _extremum_weights(primary: TracedTensor, other: TracedTensor, direction: str) -> TracedTensor:
    """1 where `primary` wins, 0.5 on ties, 0 where it loses (ties split the derivative)."""
    wins = compare(primary, other, direction)
    ties = compare(primary, other, "eq")
    return select(wins, like(primary, 1.0), select(ties, like(primary, 0.5), like(primary, 0.0)))


def _extremum_rule(direction: str):
    def rule(op, primals, outputs, tangents):
        x, y = primals
        tx, ty = tangents
        wx = _extremum_weights(x, y, direction)
        total = None if tx is None else mul(tx, wx)
        return [add_any(total, None if ty is None else mul(ty, sub(1.0, wx)))]

    return rule


JVP_RULES["maximum"] = _extremum_rule("gt")
JVP_RULES["minimum"] = _extremum_rule("lt")


def _clamp_rule(op, primals, outputs, tangents):
    """clamp(lo, x, hi) = minimum(maximum(x, lo), hi), differentiated as that composition."""
    lo, x, hi = primals
    t_lo, t_x, t_hi = tangents
    raised = apply1("maximum", [x, lo])
    (t_raised,) = JVP_RULES["maximum"](op, [x, lo], [raised], [t_x, t_lo])
    return JVP_RULES["minimum"](op, [raised, hi], outputs, [t_raised, t_hi])


JVP_RULES["clamp"] = _clamp_rule


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
