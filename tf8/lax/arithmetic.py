"""JAX's `lax` functions that are more than one primitive on equal operands: `pow` with an
integer exponent, `rem` (C's remainder, the `fmod` primitive) and `round` with JAX's default
rounding (halves away from zero)."""

from __future__ import annotations

from typing import Any

from tf8.errors import DTypeError, ParameterError
from tf8.lax.builders import full
from tf8.lax.core import apply1
from tf8.lax.ops import _SCALARS, _array, _operands, ceil, floor
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor


def pow(x: Any, y: Any) -> TracedTensor:  # noqa: A001 - JAX's name
    """lax.pow: `x ** y`, with `y` of `x`'s dtype or, as JAX allows, an integer exponent of an
    inexact base (a Python float base is then float64, never truncated to `y`'s dtype)."""
    if not isinstance(y, _SCALARS):
        exponent, base = _array(y), _array(x)
        if dt.is_integer(exponent.dtype) and dt.is_inexact(base.dtype):
            return apply1("pow", _operands(base, apply1("convert", [exponent], dtype=base.dtype)))
    elif type(y) is int and not isinstance(x, (bool, int)):
        base = _array(x)
        if dt.is_inexact(base.dtype):  # a Python int exponent of an inexact base
            return apply1(
                "pow", _operands(base, complex(y) if dt.is_complex(base.dtype) else float(y))
            )
    return apply1("pow", _operands(x, y))


def rem(x: Any, y: Any) -> TracedTensor:
    """lax.rem: C's remainder, with the sign of the dividend `x` (JAX's `lax.rem`; the `fmod`
    primitive). Operands of one dtype (a Python scalar takes the other's); rank-0 operands
    broadcast. `tnp.remainder` is numpy's, with the sign of the divisor.

    >>> from tf8 import lax
    >>> lax.rem(1.5, -1.0).tolist()
    0.5
    """
    operands = _operands(x, y)
    bad = [t.dtype for t in operands if t.dtype == dt.bool_ or dt.is_complex(t.dtype)]
    if bad:
        raise DTypeError(
            f"rem: dtype {bad[0]} not accepted (JAX's lax.rem refuses bool and complex), got "
            f"{', '.join(str(t.aval) for t in operands)}"
        )
    return apply1("fmod", operands)


def round(x: Any, rounding_method: Any = 0) -> TracedTensor:  # noqa: A001 - JAX's name
    """lax.round: to the nearest integer, halves away from zero (`rounding_method=0`, JAX's
    `RoundingMethod.AWAY_FROM_ZERO`, the default) or to even (`1`, `TO_NEAREST_EVEN`).

    >>> from tf8 import lax
    >>> lax.round(2.5).tolist(), lax.round(2.5, rounding_method=1).tolist()
    (3.0, 2.0)
    """
    operand = _array(x)
    method = int(rounding_method)
    if method == 1:
        return apply1("round", [operand])
    if method != 0:
        raise ParameterError(f"round: rounding_method must be 0 or 1, got {rounding_method!r}")
    if operand.dtype.kind not in "f":
        raise DTypeError(f"round: operand must be a real float, got {operand.aval}")
    positive = apply1("compare", [operand, full(operand.aval, 0)], direction="ge")
    whole = apply1("select", [positive, floor(operand), ceil(operand)])  # toward zero, keeps -0
    rest = apply1("abs", [apply1("sub", [operand, whole])])
    half = apply1("compare", [rest, full(operand.aval, 0.5)], direction="ge")
    away = apply1("add", [whole, apply1("sign", [operand])])
    out = apply1("select", [half, away, whole])
    out._weak = operand._weak  # JAX's round keeps its operand's weak type
    return out
