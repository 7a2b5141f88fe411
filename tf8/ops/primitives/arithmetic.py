"""Elementwise arithmetic: add, sub, mul, div, rem, pow, neg, abs, sign, maximum, minimum,
clamp and the rounding rows floor, ceil and round.

Each row sits with its numpy kernel, its JVP rule (written with the builders the transforms
hand in as `lax`; a linear row's is the row itself), its transpose rule when linear, the
ufunc steps the numpy engine fuses it as and the scalar code the numba engine compiles.
Batching comes from the category. At kinks the rules take the symmetric-difference value:
d|x|/dx at 0 is 0, ties in maximum/minimum split the derivative evenly. clamp follows XLA's
rule for zeros (+0 is greater than -0: `tf8.ops.extrema`); maximum and minimum are numpy's
ufuncs (README's deliberate differences).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.ops import dtypes as dt
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define, zero_jvp
from tf8.ops.extrema import max_source, maximum, min_source, minimum
from tf8.ops.fusion import PREVIOUS, Fusion, Step, Steps, call, direct, infix

from .common import binary_kernel, transpose_each, unary_kernel

_E, _P = Category.ELEMENTWISE, DTypePolicy


# --- kernels ----------------------------------------------------------------------------------


def _div(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":  # integer division truncates toward zero, as XLA and C do; x/0 = 0
        # In integers throughout: a float64 quotient is wrong beyond 2**53.
        safe = np.where(y == 0, 1, y)
        q = np.asarray(np.floor_divide(x, safe))
        inexact_negative = (x - q * safe != 0) & ((x < 0) != (safe < 0))
        return np.where(y == 0, 0, q + inexact_negative).astype(x.dtype, copy=False)
    return np.true_divide(x, y)


def _rem(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        return np.asarray(x - y * np.floor((x / y).real))
    return np.remainder(x, y)


def _fmod(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        return np.asarray(x - y * np.trunc((x / y).real))
    return np.fmod(x, y)


def _pow(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "i":  # numpy refuses negative integer powers; follow XLA (0, or ±1)
        neg = y < 0
        if np.any(neg):
            safe = np.power(x, np.where(neg, 0, y))
            ones = (x == 1) | ((x == -1) & (y % 2 == 0))
            minus = (x == -1) & (y % 2 == 1)
            return np.where(neg, np.where(ones, 1, np.where(minus, -1, 0)), safe).astype(x.dtype)
    return np.power(x, y)


def _abs(op: Any, x: np.ndarray) -> np.ndarray:
    return np.abs(x)


def _sign(op: Any, x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        mag = np.abs(x)
        return np.where(mag == 0, 0, x / np.where(mag == 0, 1, mag)).astype(x.dtype)
    if x.dtype.kind == "f":  # sign(-0.0) is -0.0, as XLA's (numpy's is +0.0)
        return np.copysign(np.sign(x), x)
    return np.sign(x)


def _sign_steps(op: Any, dtypes: Sequence[np.dtype]) -> Steps | None:
    if dtypes[0].kind == "f":
        return (Step(np.sign, (0,)), Step(np.copysign, (PREVIOUS, 0)))
    return direct(np.sign, "iu")(op, dtypes)


# --- JVP rules --------------------------------------------------------------------------------


def _mul_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list[Any]:
    x, y = primals
    tx, ty = tangents
    return [lax.add_any(lax.scale(tx, y), None if ty is None else lax.mul(x, ty))]


def _div_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list[Any]:
    x, y = primals
    tx, ty = tangents
    out = outputs[0]
    return [
        lax.add_any(
            None if tx is None else lax.div(tx, y),
            None if ty is None else lax.neg(lax.div(lax.mul(ty, out), y)),
        )
    ]


def _pow_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list[Any]:
    x, y = primals
    tx, ty = tangents
    out = outputs[0]
    total = None
    if tx is not None:
        # y * x**(y-1), pinned to 0 where x == y == 0 (so d(x**0)/dx = 0 even at x = 0).
        # Only that point is pinned: at y == 0, x != 0 the formula is 0 and its derivative in
        # y is 1/x, which second derivatives need. The pinned point evaluates at x = 1 so no
        # inf/nan reaches a transposed product (the "double where").
        pinned = lax.apply1("and", [lax.compare(y, 0, "eq"), lax.compare(x, 0, "eq")])
        safe_x = lax.select(pinned, lax.like(x, 1), x)
        power = lax.apply1("pow", [safe_x, lax.sub(y, 1)])
        d = lax.select(pinned, lax.like(x, 0), lax.mul(y, power))
        total = lax.mul(tx, d)
    if ty is not None:
        # log(x) * x**y, with log(0) replaced by 0 where x == 0 (as JAX does).
        x_zero = lax.compare(x, 0, "eq")
        log_x = lax.unary("log", lax.select(x_zero, 1, x))
        total = lax.add_any(total, lax.mul(ty, lax.mul(log_x, out)))
    return [total]


def _rem_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list[Any]:
    x, y = primals
    tx, ty = tangents
    # rem = x - y * floor(Re(x / y)); the floor is piecewise constant (complex: on Re(x / y)).
    if ty is None:
        return [tx]
    quotient = lax.convert(lax.unary("floor", lax.real(lax.div(x, y))), x.dtype)
    return [lax.add_any(tx, lax.neg(lax.mul(ty, quotient)))]


def _fmod_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list[Any]:
    x, y = primals
    tx, ty = tangents
    # fmod = x - y * trunc(Re(x / y)); the trunc is piecewise constant.
    if ty is None:
        return [tx]
    q = lax.real(lax.div(x, y))
    truncated = lax.mul(lax.unary("sign", q), lax.unary("floor", lax.unary("abs", q)))
    quotient = lax.convert(truncated, x.dtype)
    return [lax.add_any(tx, lax.neg(lax.mul(ty, quotient)))]


def _abs_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list[Any]:
    (x,), (t,) = primals, tangents
    if t is None:
        return [None]
    if not dt.is_complex(x.dtype):  # JAX's convention: +t at 0 and -0, -t at NaN
        return [lax.select(lax.compare(x, 0, "ge"), t, lax.neg(t))]
    # d|z| = Re(conj(z) dz) / |z|, 0 at z = 0.
    mag = outputs[0]
    is_zero = lax.compare(mag, 0, "eq")
    unit = lax.div(lax.conj(x), lax.convert(lax.select(is_zero, 1, mag), x.dtype))
    unit = lax.select(lax.compare(lax.convert(mag, x.dtype), 0, "eq"), 0, unit)
    return [lax.real(lax.mul(t, unit))]


def _extremum_weight(lax: Any, mine: Any, other: Any, out: Any) -> Any:
    """JAX's split of max/min's derivative: 1 where `mine` is the result alone, 0.5 on a tie,
    0 where it is not the result (both 0 where the result is NaN)."""
    alone = lax.select(lax.compare(other, out, "eq"), lax.like(mine, 0.5), lax.like(mine, 1.0))
    return lax.select(lax.compare(mine, out, "eq"), alone, lax.like(mine, 0.0))


def _extremum_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list[Any]:
    x, y = primals
    tx, ty = tangents
    out = outputs[0]
    total = None if tx is None else lax.mul(tx, _extremum_weight(lax, x, y, out))
    return [
        lax.add_any(total, None if ty is None else lax.mul(ty, _extremum_weight(lax, y, x, out)))
    ]


_maximum_jvp = _minimum_jvp = _extremum_jvp


def _clamp_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list[Any]:
    """JAX's rule: x's tangent passes where lo < x < hi, lo's where hi > lo > x, hi's where
    hi < x; 0 elsewhere (at ties too), by select (so a clamped-off inf never meets a 0)."""
    lo, x, hi = primals
    t_lo, t_x, t_hi = tangents
    if x.dtype.kind == "c":  # complex (JAX has no rule): as minimum(maximum(x, lo), hi)
        raised = lax.apply1("maximum", [x, lo])
        (t_raised,) = _maximum_jvp(lax, op, [x, lo], [raised], [t_x, t_lo])
        return _minimum_jvp(lax, op, [raised, hi], outputs, [t_raised, t_hi])
    shape = outputs[0].shape

    def full(v: Any) -> Any:
        return v if v.shape == shape else lax.broadcast(v, shape, ())

    def passed(t: Any, *tests: tuple[Any, Any, str]) -> Any:
        if t is None:
            return None
        t = full(t)
        zero = lax.zeros(t.aval)
        for a, b, direction in tests:
            t = lax.select(lax.compare(full(a), full(b), direction), t, zero)
        return t

    total = passed(t_x, (x, lo, "gt"), (x, hi, "lt"))
    total = lax.add_any(total, passed(t_lo, (lo, x, "gt"), (lo, hi, "lt")))
    return [lax.add_any(total, passed(t_hi, (hi, x, "lt")))]


# --- transpose rules --------------------------------------------------------------------------


def _identity(lax: Any, ct: Any, x: Any) -> Any:
    return ct


def _sub_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list[Any]:
    return [ct if linear[0] else None, lax.neg(ct) if linear[1] else None]


def _mul_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list[Any]:
    if linear[0] and linear[1]:
        raise TypeError("mul of two linear values is not linear")
    # Always ct first: x*x then transposes to two equal `mul(ct, x)` that CSE merges.
    return [
        lax.mul(ct, operands[1]) if linear[0] else None,
        lax.mul(ct, operands[0]) if linear[1] else None,
    ]


def _div_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list[Any]:
    if linear[1]:
        raise TypeError("div by a linear value is not linear")
    return [lax.div(ct, operands[1]), None]


# --- engine facts -----------------------------------------------------------------------------


def _max(a: str, b: str) -> str:  # NaN propagates, as numpy's maximum
    return f"({a} if ({a} > {b} or {a} != {a}) else {b})"


def _min(a: str, b: str) -> str:
    return f"({a} if ({a} < {b} or {a} != {a}) else {b})"


def _clamp_steps(op: Any, dtypes: Sequence[np.dtype]) -> Steps | None:  # min(max(x, lo), hi)
    """numpy's ufuncs but on real floats, whose zeros clamp signs by XLA's rule
    (tf8.ops.extrema): the numpy engine calls the kernel for those."""
    if any(d.kind == "f" for d in dtypes):
        return None
    return (Step(np.maximum, (1, 0)), Step(np.minimum, (PREVIOUS, 2)))


def _clamp(op: Any, lo: np.ndarray, x: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return minimum(maximum(x, lo), hi)


def _clamp_scalar(op: Any, a: Sequence[str]) -> str:  # min(max(x, lo), hi), via a temporary
    return min_source(f"max_{a[1]}", a[2]).replace(f"max_{a[1]}", max_source(a[1], a[0]))


def _binary(
    name: str, doc: str, ufunc: np.ufunc, symbol: str, *, linear: bool = False, **rules: Any
) -> OpDefinition:
    """A same-numeric binary row computed by `ufunc` (numba: the infix `symbol`)."""
    return define(
        Row(name, _E, _P.SAME_NUMERIC, 2, 2, linear=linear, doc=doc),
        kernel=binary_kernel(ufunc),
        fusion=Fusion(ufunc=direct(ufunc), scalar=infix(symbol)),
        **rules,
    )


def _rounding(
    name: str, doc: str, kernel: Any, ufunc: np.ufunc, kinds: str = "biufc"
) -> OpDefinition:
    """floor, ceil, round: piecewise constant, so their derivative is zero."""
    return define(
        Row(name, _E, _P.SAME_FLOAT, 1, 1, doc=doc),
        kernel=unary_kernel(kernel),
        jvp=zero_jvp,
        fusion=Fusion(ufunc=direct(ufunc, kinds), scalar=call(f"np.{ufunc.__name__}")),
    )


DEFINITIONS: tuple[OpDefinition, ...] = (
    _binary("add", "x + y", np.add, "+", linear=True, transpose=transpose_each(_identity)),
    _binary("sub", "x - y", np.subtract, "-", linear=True, transpose=_sub_transpose),
    _binary("mul", "x * y", np.multiply, "*", jvp=_mul_jvp, transpose=_mul_transpose),
    define(
        Row("div", _E, _P.SAME_NUMERIC, 2, 2, doc="x / y (integer operands: C-style truncation)"),
        kernel=_div,
        jvp=_div_jvp,
        transpose=_div_transpose,
        fusion=Fusion(ufunc=direct(np.true_divide, "fc"), scalar=infix("/")),
    ),
    define(
        Row("rem", _E, _P.SAME_NUMERIC, 2, 2, doc="numpy remainder (sign of the divisor)"),
        kernel=_rem,
        jvp=_rem_jvp,
        fusion=Fusion(ufunc=direct(np.remainder, "iuf")),
    ),
    define(
        Row("fmod", _E, _P.SAME_NUMERIC, 2, 2, doc="C remainder (sign of the dividend): lax.rem"),
        kernel=_fmod,
        jvp=_fmod_jvp,
        fusion=Fusion(ufunc=direct(np.fmod, "iuf"), scalar=call("np.fmod")),
    ),
    define(
        Row("pow", _E, _P.SAME_NUMERIC, 2, 2, doc="np.power on the promoted dtype"),
        kernel=_pow,
        jvp=_pow_jvp,
        fusion=Fusion(ufunc=direct(np.power, "fc"), scalar=call("np.power")),
    ),
    define(
        Row("neg", _E, _P.SAME_NUMERIC, 1, 1, linear=True, doc="-x"),
        kernel=unary_kernel(np.negative),
        transpose=transpose_each(lambda lax, ct, x: lax.neg(ct)),
        fusion=Fusion(ufunc=direct(np.negative), scalar=lambda op, a: f"(-{a[0]})"),
    ),
    define(
        Row("abs", _E, _P.COMPLEX_TO_REAL, 1, 1, doc="|x|"),
        kernel=_abs,
        jvp=_abs_jvp,
        fusion=Fusion(ufunc=direct(np.absolute), scalar=call("abs")),
    ),
    define(
        Row("sign", _E, _P.SAME_NUMERIC, 1, 1, doc="numpy sign (x/|x| for complex)"),
        kernel=_sign,
        jvp=zero_jvp,
        fusion=Fusion(
            ufunc=_sign_steps,
            scalar=lambda op, a: f"(np.sign({a[0]}) if {a[0]} != 0 else {a[0]})",
            repeats=True,
        ),
    ),
    # numpy's ufuncs, whichever zero of a tie they return (a deliberate difference from
    # XLA's +0 > -0, for relu's speed: README); clamp's below follow XLA's rule
    define(
        Row("maximum", _E, _P.SAME_NUMERIC, 2, 2, doc="elementwise max (NaN propagates)"),
        kernel=binary_kernel(np.maximum),
        jvp=_maximum_jvp,
        fusion=Fusion(
            ufunc=direct(np.maximum), scalar=lambda op, a: _max(a[0], a[1]), repeats=True
        ),
    ),
    define(
        Row("minimum", _E, _P.SAME_NUMERIC, 2, 2, doc="elementwise min (NaN propagates)"),
        kernel=binary_kernel(np.minimum),
        jvp=_minimum_jvp,
        fusion=Fusion(
            ufunc=direct(np.minimum), scalar=lambda op, a: _min(a[0], a[1]), repeats=True
        ),
    ),
    define(
        Row("clamp", _E, _P.SAME_NUMERIC, 3, 3, doc="clamp(lo, x, hi) = min(max(x, lo), hi)"),
        kernel=_clamp,
        jvp=_clamp_jvp,
        fusion=Fusion(ufunc=_clamp_steps, scalar=_clamp_scalar, repeats=True),
    ),
    _rounding("floor", "round toward -inf", np.floor, np.floor),
    _rounding("ceil", "round toward +inf", np.ceil, np.ceil),
    # np.round with decimals=0 is rint (half to even): the engines fuse it as that ufunc
    _rounding("round", "round half to even (numpy)", np.round, np.rint, "f"),
)
