"""numpy's elementwise functions (ufuncs) on traced values, as catalog primitives."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import DTypeError, UnsupportedOperationError
from tf8.lax.core import apply, apply1
from tf8.lax.eager import fast_binary, fast_unary
from tf8.ops import dtypes as dt
from tf8.ops.primitive import plain_primitive
from tf8.traced import TracedTensor

from ._core import (
    ArrayLike,
    asarray,
    astype,
    broadcast_arrays,
    elementwise,
    inexact,
    promote,
    ready_pair,
)

_ADD, _MUL = plain_primitive("add", 2), plain_primitive("mul", 2)
_SUB, _DIV = plain_primitive("sub", 2), plain_primitive("div", 2)


def _unary_float(name: str, doc: str) -> Callable[[ArrayLike], TracedTensor]:
    """A unary analytic catalog row as a numpy ufunc (ints and bools computed in float64)."""

    def fn(x: ArrayLike) -> TracedTensor:
        return apply1(name, [inexact(x)])

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fast_unary(plain_primitive(name, 1), fn)  # op by op: the cached plan at once


exp = _unary_float("exp", "e**x, elementwise.")
expm1 = _unary_float("expm1", "e**x - 1, accurate near 0.")
log = _unary_float("log", "Natural logarithm.")
log1p = _unary_float("log1p", "log(1 + x), accurate near 0.")
sin = _unary_float("sin", "Sine.")
cos = _unary_float("cos", "Cosine.")
tan = _unary_float("tan", "Tangent.")
sinh = _unary_float("sinh", "Hyperbolic sine.")
cosh = _unary_float("cosh", "Hyperbolic cosine.")
tanh = _unary_float("tanh", "Hyperbolic tangent.")
arcsin = _unary_float("asin", "Inverse sine.")
arccos = _unary_float("acos", "Inverse cosine.")
arctan = _unary_float("atan", "Inverse tangent.")
sqrt = _unary_float("sqrt", "Square root.")
rsqrt = _unary_float("rsqrt", "1 / sqrt(x).")
arcsin.__name__, arccos.__name__, arctan.__name__ = "arcsin", "arccos", "arctan"


def _real_float(name: str, doc: str) -> Callable[[ArrayLike], TracedTensor]:
    def fn(x: ArrayLike) -> TracedTensor:
        x = inexact(x)
        if dt.is_complex(x.dtype):
            raise DTypeError(f"{name} is not defined for complex input ({x.dtype})")
        return apply1(name, [x])

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


rint = _real_float("round", "Round half to even, as numpy.")
erf = _real_float("erf", "The error function (scipy.special.erf).")
rint.__name__ = rint.__qualname__ = "rint"


def _rounding(name: str, doc: str) -> Callable[[ArrayLike], TracedTensor]:
    """floor/ceil: integers and bools pass through unchanged (numpy ≥ 2.1 keeps their dtype)."""
    as_float = _real_float(name, doc)

    def fn(x: ArrayLike) -> TracedTensor:
        x = asarray(x)
        return x if not dt.is_inexact(x.dtype) else as_float(x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


floor = _rounding("floor", "Round toward -inf.")
ceil = _rounding("ceil", "Round toward +inf.")


def trunc(x: ArrayLike) -> TracedTensor:
    """Round toward zero."""
    x = asarray(x)
    return x if not dt.is_inexact(x.dtype) else where(less(x, 0), ceil(x), floor(x))


fix = trunc


def round(x: ArrayLike, decimals: int = 0) -> TracedTensor:  # noqa: A001 - numpy's name
    x = asarray(x)
    if dt.is_integer(x.dtype) and decimals < 0:
        # numpy rounds integers to tens, hundreds, ... half to even.
        scale = 10 ** (-int(decimals))
        return astype(multiply(rint(true_divide(x, scale)), scale), x.dtype)
    if dt.is_integer(x.dtype) or x.dtype == dt.bool_:
        return x
    if decimals == 0:
        return rint(x)
    scale = 10.0**decimals
    return divide(rint(multiply(x, scale)), scale)


def logistic(x: ArrayLike) -> TracedTensor:
    """1 / (1 + exp(-x)) (scipy.special.expit)."""
    return apply1("logistic", [inexact(x)])


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
    a, b = promote(x, y)
    if not dt.is_inexact(a.dtype):
        a, b = astype(a, dt.float64), astype(b, dt.float64)
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
        return floor(apply1("div", [a, b]))
    # x - (x mod y) is an exact multiple of y, so truncating division is exact there.
    return apply1("div", [apply1("sub", [a, apply1("rem", [a, b])]), b])


def remainder(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    return elementwise("rem", x, y)


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
    x = asarray(x)
    if dt.is_complex(x.dtype):
        return apply1("imag", [x])
    return multiply(x, 0) if x.dtype != dt.bool_ else astype(multiply(x, False), dt.bool_)


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


def arctan2(y: ArrayLike, x: ArrayLike) -> TracedTensor:
    a, b = promote(y, x)
    return apply1("atan2", broadcast_arrays(inexact(a), inexact(b)))


def _compare(direction: str) -> Callable[[ArrayLike, ArrayLike], TracedTensor]:
    def fn(x: ArrayLike, y: ArrayLike) -> TracedTensor:
        return elementwise("compare", x, y, direction=direction)

    fn.__name__ = fn.__qualname__ = _COMPARE_NAMES[direction]
    return fn


_COMPARE_NAMES = {
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "gt": "greater",
    "ge": "greater_equal",
}


equal, not_equal = _compare("eq"), _compare("ne")
less, less_equal = _compare("lt"), _compare("le")
greater, greater_equal = _compare("gt"), _compare("ge")


def _to_bool(x: ArrayLike) -> TracedTensor:
    x = asarray(x)
    return x if x.dtype == dt.bool_ else not_equal(x, 0)


def logical_and(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    return apply1("and", broadcast_arrays(_to_bool(x), _to_bool(y)))


def logical_or(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    return apply1("or", broadcast_arrays(_to_bool(x), _to_bool(y)))


def logical_not(x: ArrayLike) -> TracedTensor:
    return apply1("not", [_to_bool(x)])


def logical_xor(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    return not_equal(_to_bool(x), _to_bool(y))


def _bitwise(name: str) -> Callable[[ArrayLike, ArrayLike], TracedTensor]:
    def fn(x: ArrayLike, y: ArrayLike) -> TracedTensor:
        a, b = promote(x, y)
        if a.dtype not in (dt.bool_, *dt.INTEGERS):
            raise DTypeError(f"bitwise operations need int or bool operands, got {a.dtype}")
        return apply1(name, broadcast_arrays(a, b))

    return fn


bitwise_and, bitwise_or, bitwise_xor = _bitwise("and"), _bitwise("or"), _bitwise("xor")


def _shift(name: str, right_of: Callable[[Any], str] | None = None) -> Callable:
    def fn(x: ArrayLike, y: ArrayLike) -> TracedTensor:
        a, b = promote(x, y)
        if a.dtype not in dt.INTEGERS:
            raise DTypeError(f"{fn.__name__} needs integer operands, got {a.dtype}")
        row = right_of(a.dtype) if right_of else name
        return apply1(row, broadcast_arrays(a, b))

    fn.__name__ = fn.__qualname__ = name
    return fn


left_shift = _shift("left_shift", lambda dtype: "shift_left")
# numpy's >> fills with the sign bit for signed integers, with zeros for unsigned ones.
right_shift = _shift(
    "right_shift",
    lambda dtype: "shift_right_logical" if dtype.kind == "u" else "shift_right_arithmetic",
)


def invert(x: ArrayLike) -> TracedTensor:
    x = asarray(x)
    if x.dtype not in (dt.bool_, *dt.INTEGERS):
        raise DTypeError(f"invert needs int or bool operands, got {x.dtype}")
    return apply1("not", [x])


def where(
    condition: ArrayLike,
    x: ArrayLike = None,
    y: ArrayLike = None,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """numpy.where(condition, x, y); where(condition) is nonzero(condition) (concrete values,
    or `size=` under jit, as JAX)."""
    if x is None and y is None:
        from ._nonzero import nonzero

        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise UnsupportedOperationError("where: pass both x and y, or neither")
    a, b = promote(x, y)
    pred, a, b = broadcast_arrays(_to_bool(condition), a, b)
    return apply1("select", [pred, a, b])


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


def exp2(x: ArrayLike) -> TracedTensor:
    return power(2.0, inexact(x))


def log2(x: ArrayLike) -> TracedTensor:
    x = inexact(x)
    return divide(log(x), math.log(2.0))


def log10(x: ArrayLike) -> TracedTensor:
    x = inexact(x)
    return divide(log(x), math.log(10.0))
