"""numpy's arithmetic ufuncs on traced values: + - * / // % **, negation, absolute value,
sign, maximum / minimum, clip, square, reciprocal, and the parts of complex numbers."""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import DTypeError, UnsupportedOperationError
from tf8.lax.core import apply, apply1
from tf8.lax.eager import fast_binary
from tf8.ops import dtypes as dt
from tf8.ops.primitive import plain_primitive
from tf8.traced import TracedTensor

from ._core import (
    ArrayLike,
    asarray,
    astype,
    broadcast_arrays,
    elementwise,
    full_of,
    inexact,
    is_weak_scalar,
    promote,
    ready_pair,
)
from ._logic import logical_and, logical_or

_ADD, _MUL = plain_primitive("add", 2), plain_primitive("mul", 2)
_SUB, _DIV = plain_primitive("sub", 2), plain_primitive("div", 2)


def add(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    pair = ready_pair(x, y)
    if pair is not None and pair[0].dtype != dt.bool_:
        return apply(_ADD, pair)[0]
    a, b = promote(x, y)
    if a.dtype == dt.bool_:
        return logical_or(a, b)
    return apply1("add", broadcast_arrays(a, b))


def subtract(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    return elementwise("sub", x, y)


def multiply(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    pair = ready_pair(x, y)
    if pair is not None and pair[0].dtype != dt.bool_:
        return apply(_MUL, pair)[0]
    a, b = promote(x, y)
    if a.dtype == dt.bool_:
        return logical_and(a, b)
    return apply1("mul", broadcast_arrays(a, b))


def true_divide(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    pair = ready_pair(x, y)
    if pair is not None and dt.is_inexact(pair[0].dtype):
        return apply1("div", pair)
    a, b = [inexact(v) for v in promote(x, y)]  # int32 / int32 is float32, as JAX's
    return apply1("div", broadcast_arrays(a, b))


# Two concrete float tensors of one aval, outside transforms: the cached plan at once.
add = fast_binary(_ADD, np.add, add)
subtract = fast_binary(_SUB, np.subtract, subtract)
multiply = fast_binary(_MUL, np.multiply, multiply)
true_divide = fast_binary(_DIV, np.true_divide, true_divide)
divide = true_divide


def floor_divide(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    a, b = broadcast_arrays(*promote(x, y))
    if dt.is_complex(a.dtype):
        raise DTypeError("floor_divide is not defined for complex input")
    if dt.is_inexact(a.dtype):
        return apply1("floor", [apply1("div", [a, b])])  # a real float quotient: floor's row
    # x - (x mod y) is an exact multiple of y, so truncating division is exact there.
    return apply1("div", [apply1("sub", [a, apply1("rem", [a, b])]), b])


def remainder(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    """x - y * floor(x / y): the sign of the divisor, as numpy's and JAX's `remainder`."""
    a, b = broadcast_arrays(*promote(x, y))
    if dt.is_complex(a.dtype):
        raise DTypeError(f"remainder is not defined for complex input ({a.dtype}), as in JAX")
    return apply1("rem", [a, b])


def fmod(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    """C's remainder, with the sign of the dividend `x` (numpy's and JAX's `fmod`; JAX's
    `lax.rem`), on the promoted dtype; `remainder`/`mod` take the sign of the divisor.

    Args:
        x, y: real arrays or Python scalars, broadcast together.

    >>> import tf8.numpy as tnp
    >>> tnp.fmod(tnp.array([1.5, -1.5]), -1.0).tolist()
    [0.5, -0.5]

    As JAX, a complex operand raises (DTypeError here, TypeError in JAX).
    """
    a, b = promote(x, y)
    if dt.is_complex(a.dtype):
        raise DTypeError(f"fmod is not defined for complex input ({a.aval}, {b.aval})")
    return elementwise("fmod", a, b)


mod = remainder


def power(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    # x ** 2 with a Python 2 is x * x (numpy's own fast path gives the same bits), so its
    # derivative is the simple product rule rather than pow's guarded general rule. A float
    # 2.0 keeps an integer x out: int ** 2.0 promotes to float.
    if (
        isinstance(x, TracedTensor)
        and (type(y) is int or (type(y) is float and dt.is_inexact(x.dtype)))
        and y == 2
        and x.dtype != dt.bool_
    ):
        return multiply(x, x)
    return elementwise("pow", x, y)


def negative(x: ArrayLike) -> TracedTensor:
    x = asarray(x)
    if x.dtype == dt.bool_:
        raise DTypeError("negative is not defined for bool input; use logical_not")
    return apply1("neg", [x])


def positive(x: ArrayLike) -> TracedTensor:
    return asarray(x)


def conjugate(x: ArrayLike) -> TracedTensor:
    x = asarray(x)
    return apply1("conj", [x]) if dt.is_complex(x.dtype) else x


conj = conjugate


def real(x: ArrayLike) -> TracedTensor:
    x = asarray(x)
    return apply1("real", [x]) if dt.is_complex(x.dtype) else x


def imag(x: ArrayLike) -> TracedTensor:
    """The imaginary part; of a real `x`, zeros of its shape and dtype (not `x * 0`, which is
    NaN at infinities and -0 at negatives), weakly typed when `x` is, as in JAX."""
    weak = is_weak_scalar(x)
    x = asarray(x)
    if dt.is_complex(x.dtype):
        return apply1("imag", [x])
    zeros = full_of(0, x.shape, x.dtype)
    zeros._weak = weak or x._weak
    return zeros


def absolute(x: ArrayLike) -> TracedTensor:
    x = asarray(x)
    return x if x.dtype == dt.bool_ else apply1("abs", [x])


abs = absolute  # noqa: A001 - numpy's name


def sign(x: ArrayLike) -> TracedTensor:
    x = asarray(x)
    if x.dtype == dt.bool_:
        raise DTypeError("sign is not defined for bool input")
    return apply1("sign", [x])


def maximum(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    """Elementwise max (NaN propagates); for bools, logical or."""
    a, b = promote(x, y)
    if a.dtype == dt.bool_:
        return logical_or(a, b)
    return apply1("maximum", broadcast_arrays(a, b))


def minimum(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    """Elementwise min (NaN propagates); for bools, logical and."""
    a, b = promote(x, y)
    if a.dtype == dt.bool_:
        return logical_and(a, b)
    return apply1("minimum", broadcast_arrays(a, b))


def clip(
    a: ArrayLike, a_min: ArrayLike = None, a_max: ArrayLike = None, **kwargs: Any
) -> TracedTensor:
    """numpy.clip (also accepts numpy 2's `min=`/`max=` spellings)."""
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    if kwargs.pop("out", None) is not None:
        raise UnsupportedOperationError("clip: out= is not supported (traced values are immutable)")
    if kwargs:
        raise UnsupportedOperationError(f"clip got unexpected arguments {sorted(kwargs)}")
    out = asarray(a)
    if a_min is not None:
        out = maximum(out, a_min)
    if a_max is not None:
        out = minimum(out, a_max)
    return out


def square(x: ArrayLike) -> TracedTensor:
    """x * x (bools square in an integer dtype, as numpy)."""
    x = asarray(x)
    if x.dtype == dt.bool_:
        x = astype(x, dt.int64)  # numpy gives int8, which tf8 widens to int64
    return multiply(x, x)


def reciprocal(x: ArrayLike) -> TracedTensor:
    """1 / x; integer input divides as C does (truncation), as numpy."""
    x = asarray(x)
    if dt.is_inexact(x.dtype):
        return true_divide(1, x)
    return elementwise("div", 1, x)
