"""JAX's remaining elementwise `lax` functions: the inverse hyperbolic functions, `cbrt`,
`erfc`, `exp2`, `reciprocal`, `is_finite`, `nextafter`, `reduce_precision`, and the integer
bit functions `population_count`, `clz` and `mulhi`.

Where a catalog primitive computes the function (numpy's or scipy's, to the last digit of
JAX's) it is applied as it is; `exp2` (JAX's exp(x ln 2)), `reciprocal` (JAX's
integer_pow(x, -1)), `is_finite` (|x| < inf) and `mulhi` (JAX's widening products) are
compositions. As in JAX's lax, nothing is promoted: an integer operand of a float function
is refused with DTypeError.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tf8.errors import DTypeError, ParameterError
from tf8.lax.core import apply1
from tf8.lax.ops import (
    _array,
    _operands,
    _unary,
    abs,
    add,
    bitwise_and,
    convert_element_type,
    exp,
    integer_pow,
    lt,
    mul,
    shift_right_arithmetic,
    shift_right_logical,
)
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

asinh = _unary(
    "asinh",
    """Inverse hyperbolic sine, elementwise (float or complex operands).

    >>> from tf8 import lax
    >>> lax.asinh(0.5)
    Array(0.48121183, dtype=float64, weak_type=True)""",
)
acosh = _unary(
    "acosh",
    """Inverse hyperbolic cosine, elementwise (NaN below 1 for real operands).

    >>> from tf8 import lax
    >>> lax.acosh(2.0)
    Array(1.3169579, dtype=float64, weak_type=True)""",
)
atanh = _unary(
    "atanh",
    """Inverse hyperbolic tangent, elementwise (±inf at ±1, NaN beyond for reals).

    >>> from tf8 import lax
    >>> lax.atanh(0.5)
    Array(0.54930614, dtype=float64, weak_type=True)""",
)
erfc = _unary(
    "erfc",
    """The complementary error function 1 - erf(x), accurate in the tails (real floats).

    >>> from tf8 import lax
    >>> lax.erfc(3.0)
    Array(2.2090497e-05, dtype=float64, weak_type=True)""",
)
population_count = _unary(
    "population_count",
    """The number of bits set in each integer (of its two's-complement bits), in its dtype.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.population_count(np.array([0, 7, -1], np.int32))
    Array([ 0,  3, 32], dtype=int32)""",
)
clz = _unary(
    "clz",
    """The number of leading zero bits of each integer (its width for 0), in its dtype.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.clz(np.array([0, 1, 255, -1], np.int32))
    Array([32, 31, 24,  0], dtype=int32)""",
)


def cbrt(x: Any, *, accuracy: Any = None) -> TracedTensor:
    """The real cube root, elementwise (float operands; negative ones have negative roots).

    Args:
      x: a float array.
      accuracy: accepted for JAX's signature and ignored (numpy's cbrt is exact to an ulp).

    >>> from tf8 import lax
    >>> lax.cbrt(-8.0)
    Array(-2., dtype=float64, weak_type=True)
    """
    return apply1("cbrt", [_array(x)])


def exp2(x: Any, *, accuracy: Any = None) -> TracedTensor:
    """2**x elementwise, computed as JAX does: exp(x · ln 2) (float or complex operands).

    Args:
      x: a float or complex array.
      accuracy: accepted for JAX's signature and ignored.

    >>> from tf8 import lax
    >>> lax.exp2(3.0)
    Array(8., dtype=float64, weak_type=True)
    """
    operand = _array(x)
    if not dt.is_inexact(operand.dtype):
        raise DTypeError(f"exp2: needs a float or complex operand, got {operand.aval}")
    return exp(mul(operand, math.log(2.0)))


def reciprocal(x: Any) -> TracedTensor:
    """1 / x elementwise, as JAX's integer_pow(x, -1) (integer operands are refused).

    >>> from tf8 import lax
    >>> lax.reciprocal(4.0)
    Array(0.25, dtype=float64, weak_type=True)
    """
    return integer_pow(x, -1)


def is_finite(x: Any) -> TracedTensor:
    """Whether each entry is neither infinite nor NaN (real float operands, as JAX's).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.is_finite(np.array([1.0, np.inf, np.nan]))
    Array([ True, False, False], dtype=bool)
    """
    operand = _array(x)
    if not dt.is_float(operand.dtype):
        raise DTypeError(f"is_finite: needs a real float operand, got {operand.aval}")
    out = lt(abs(operand), math.inf)
    out._weak = operand._weak  # JAX keeps a weak operand's weak type
    return out


def nextafter(x1: Any, x2: Any) -> TracedTensor:
    """The next float after x1 in the direction of x2, elementwise (one float dtype).
    As in JAX, it has no derivative: differentiating it raises DifferentiationError.

    >>> from tf8 import lax
    >>> float(lax.nextafter(1.0, 2.0)) - 1.0 == 2.0**-52
    True
    """
    return apply1("nextafter", _operands(x1, x2))


def reduce_precision(operand: Any, exponent_bits: int, mantissa_bits: int) -> TracedTensor:
    """`operand` rounded to a float format of `exponent_bits` and `mantissa_bits` (XLA's
    ReducePrecision: to nearest, ties to even; exponents out of range become ±inf or ±0),
    in its own dtype. Linear for differentiation, as JAX defines it: the tangent is reduced
    alike.

    Args:
      operand: a float array.
      exponent_bits: the exponent width of the target format (>= 1).
      mantissa_bits: its explicit mantissa width (>= 0).

    >>> from tf8 import lax
    >>> lax.reduce_precision(1.0 + 2.0**-20, 8, 7)  # bfloat16's format
    Array(1., dtype=float64, weak_type=True)
    """
    try:
        exponent, mantissa = int(exponent_bits), int(mantissa_bits)
    except (TypeError, ValueError):
        raise ParameterError(
            f"reduce_precision: exponent_bits and mantissa_bits must be ints, got "
            f"{exponent_bits!r} and {mantissa_bits!r}"
        ) from None
    return apply1(
        "reduce_precision", [_array(operand)], exponent_bits=exponent, mantissa_bits=mantissa
    )


_WIDER = {np.dtype(np.uint8): (dt.int32, 8), np.dtype(np.uint32): (dt.int64, 32)}
_WIDER[np.dtype(np.int32)] = (dt.int64, 32)
_LOW_HALF = (1 << 32) - 1


def mulhi(x: Any, y: Any, /) -> TracedTensor:
    """The high half of each integer product x · y (as if computed at twice the width), in
    the operands' dtype: (x · y) >> bits. Integers of one dtype only; no derivative.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.mulhi(np.array([2**31 - 1, -5], np.int32), np.array([4, 3], np.int32))
    Array([ 1, -1], dtype=int32)
    """
    a, b = _operands(x, y)
    if a.dtype != b.dtype or not dt.is_integer(a.dtype):
        raise DTypeError(f"mulhi: needs integers of one dtype, got {a.aval} and {b.aval}")
    if a.dtype in _WIDER:
        wide, bits = _WIDER[a.dtype]
        product = mul(convert_element_type(a, wide), convert_element_type(b, wide))
        high = (shift_right_logical if a.dtype.kind == "u" else shift_right_arithmetic)(
            product, bits
        )
        return convert_element_type(high, a.dtype)
    # int64: JAX's split into 32-bit halves, the partial products wrapping as uint64's would
    a_lo, a_hi = bitwise_and(a, _LOW_HALF), shift_right_logical(a, 32)
    b_lo, b_hi = bitwise_and(b, _LOW_HALF), shift_right_logical(b, 32)
    lo_lo, lo_hi, hi_lo, hi_hi = mul(a_lo, b_lo), mul(a_lo, b_hi), mul(a_hi, b_lo), mul(a_hi, b_hi)
    cross = add(bitwise_and(lo_hi, _LOW_HALF), bitwise_and(hi_lo, _LOW_HALF))
    cross = add(cross, shift_right_logical(lo_lo, 32))
    high = add(
        hi_hi,
        add(
            shift_right_logical(lo_hi, 32),
            add(shift_right_logical(hi_lo, 32), shift_right_logical(cross, 32)),
        ),
    )
    sign_a, sign_b = shift_right_arithmetic(a, 63), shift_right_arithmetic(b, 63)
    return add(high, add(mul(sign_a, b), mul(sign_b, a)))


__all__ = [
    "acosh",
    "asinh",
    "atanh",
    "cbrt",
    "clz",
    "erfc",
    "exp2",
    "is_finite",
    "mulhi",
    "nextafter",
    "population_count",
    "reciprocal",
    "reduce_precision",
]
