"""Bits of integers and floats: population_count and clz (count leading zeros) of integers;
nextafter and reduce_precision of floats (XLA's `ReducePrecision`: rounding to a narrower
mantissa, ties to even, and flushing to a narrower exponent range).

Each row sits with its numpy kernel, which works on the operand's bits viewed as unsigned
integers of its width (numpy's `bitwise_count` counts the bits of a signed integer's absolute
value). population_count and clz carry no derivative; nextafter has none, as in JAX (asking
raises DifferentiationError); reduce_precision is linear, as JAX defines it: its tangent and
cotangent are reduced alike. Batching comes from the category.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import DifferentiationError, ParameterError
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define, zero_jvp
from tf8.ops.fusion import Fusion, direct
from tf8.ops.shape_checks import Guards
from tf8.ops.shapes import Dim

_E, _P = Category.ELEMENTWISE, DTypePolicy
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
# a float's (exponent bits, mantissa bits), by width
_FORMAT = {2: (5, 10), 4: (8, 23), 8: (11, 52)}


def _bits(x: np.ndarray) -> np.ndarray:
    """`x`'s bits as the unsigned integers of its width (a view where it can be one)."""
    contiguous = x if x.flags.c_contiguous else np.ascontiguousarray(x)
    return contiguous.view(_UNSIGNED[x.dtype.itemsize])


def _population_count(op: Any, x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(_bits(x)).astype(x.dtype)


def _clz(op: Any, x: np.ndarray) -> np.ndarray:
    """Leading zeros: the width less the bits set once every bit below the highest is set."""
    u = _bits(x).copy()
    shift = 1
    while shift < 8 * x.dtype.itemsize:
        u |= u >> u.dtype.type(shift)
        shift *= 2
    return (8 * x.dtype.itemsize - np.bitwise_count(u)).astype(x.dtype)


def _reduce_precision(op: Any, x: np.ndarray) -> np.ndarray:
    """XLA's ReducePrecision on the bits: round the mantissa to `mantissa_bits` (to nearest,
    ties to even), then send exponents outside a format of `exponent_bits` to ±inf (above)
    or ±0 (below: no subnormals); NaN stays itself (as in JAX, even with no mantissa bit)."""
    exponent_bits, mantissa_bits = op["exponent_bits"], op["mantissa_bits"]
    source_exponent, source_mantissa = _FORMAT[x.dtype.itemsize]
    word = _UNSIGNED[x.dtype.itemsize]
    one = word(1)
    u = _bits(x).copy()
    if mantissa_bits < source_mantissa:
        dropped = word(source_mantissa - mantissa_bits)
        last_kept = one << dropped
        bias = (u & last_kept) >> dropped
        u += bias + ((last_kept >> one) - one)  # wraps as XLA's integer add does
        u &= ~(last_kept - one)
    if exponent_bits < source_exponent:
        sign = one << word(8 * x.dtype.itemsize - 1)
        exponent_mask = ((one << word(source_exponent)) - one) << word(source_mantissa)
        bias = (1 << (source_exponent - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = u & exponent_mask
        overflows = exponent > word(bias + reduced_bias) << word(source_mantissa)
        underflows = exponent <= word(bias - reduced_bias) << word(source_mantissa)
        signed_zero = u & sign
        u = np.where(overflows, signed_zero | exponent_mask, np.where(underflows, signed_zero, u))
    out = np.asarray(u, word).view(x.dtype)
    return np.where(np.isnan(x), x, out)


def _reduce_precision_shape(op: Any, avals: list[Aval], guards: Guards) -> tuple[Dim, ...]:
    exponent_bits, mantissa_bits = op["exponent_bits"], op["mantissa_bits"]
    if isinstance(exponent_bits, bool) or not isinstance(exponent_bits, int) or exponent_bits < 1:
        raise ParameterError(
            f"reduce_precision: exponent_bits must be a positive int, got {exponent_bits!r}"
        )
    if isinstance(mantissa_bits, bool) or not isinstance(mantissa_bits, int) or mantissa_bits < 0:
        raise ParameterError(
            f"reduce_precision: mantissa_bits must be a non-negative int, got {mantissa_bits!r}"
        )
    return avals[0].shape


def _reduce_precision_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list:
    return [lax.apply(op, [ct])[0]]


def _nextafter_partial(*args: Any) -> Any:
    raise DifferentiationError(
        "nextafter: the derivative is not implemented (JAX has no rule either); "
        "stop_gradient its operands or keep them constant"
    )


DEFINITIONS: tuple[OpDefinition, ...] = (
    define(
        Row("population_count", _E, _P.SAME_INT, 1, 1, doc="number of bits set"),
        kernel=_population_count,
        jvp=zero_jvp,
    ),
    define(
        Row("clz", _E, _P.SAME_INT, 1, 1, doc="number of leading zero bits"),
        kernel=_clz,
        jvp=zero_jvp,
    ),
    define(
        Row("nextafter", _E, _P.SAME_FLOAT, 2, 2, doc="the next float after x toward y"),
        kernel=lambda op, x, y: np.nextafter(x, y),
        partials=(_nextafter_partial, _nextafter_partial),
        fusion=Fusion(ufunc=direct(np.nextafter, "f")),
    ),
    define(
        Row(
            "reduce_precision",
            _E,
            _P.SAME_FLOAT,
            1,
            1,
            ("exponent_bits", "mantissa_bits"),
            linear=True,
            doc="round to a float format of fewer exponent and mantissa bits",
        ),
        kernel=_reduce_precision,
        shape=_reduce_precision_shape,
        transpose=_reduce_precision_transpose,
    ),
)
