"""numpy's float ufuncs on traced values: exponentials and logarithms, trigonometric and
hyperbolic functions, erf and logistic, rounding, and the classifiers isnan / isinf / isfinite.
Integer and bool inputs are computed in float64, as numpy's float ufuncs do."""

from __future__ import annotations

import math
from collections.abc import Callable

from tf8.errors import DTypeError
from tf8.lax.core import apply1
from tf8.lax.eager import fast_unary
from tf8.ops import dtypes as dt
from tf8.ops.primitive import plain_primitive
from tf8.traced import TracedTensor

from ._arithmetic import absolute, divide, imag, multiply, power, real, true_divide
from ._core import ArrayLike, asarray, astype, broadcast_arrays, full_of, inexact, promote
from ._logic import equal, less, logical_and, logical_or, not_equal, where


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


_rint_real = _real_float("round", "Round half to even, as numpy.")
erf = _real_float("erf", "The error function (scipy.special.erf).")


def rint(x: ArrayLike) -> TracedTensor:
    """Round half to even, as numpy; a complex value rounds its two parts, and a bool or
    integer one is converted to float64 (strongly typed), as JAX's."""
    x = asarray(x)
    if not dt.is_inexact(x.dtype):
        out = apply1("convert", [x], dtype=dt.float64)
        out._weak = False
        return out
    if dt.is_complex(x.dtype):
        return apply1("complex", [_rint_real(real(x)), _rint_real(imag(x))])
    return _rint_real(x)


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
    """Round half to even to `decimals` places. Bools are refused, as JAX refuses them."""
    x = asarray(x)
    if x.dtype == dt.bool_:
        raise DTypeError(f"round: a bool {x.aval} has no rounding (JAX refuses it too)")
    if dt.is_integer(x.dtype) and decimals < 0:
        # numpy rounds integers to tens, hundreds, ... half to even.
        scale = 10 ** (-int(decimals))
        return astype(multiply(rint(true_divide(x, scale)), scale), x.dtype)
    if dt.is_integer(x.dtype):
        return x
    if decimals == 0:
        return rint(x)
    scale = 10.0**decimals
    return divide(rint(multiply(x, scale)), scale)


def logistic(x: ArrayLike) -> TracedTensor:
    """1 / (1 + exp(-x)) (scipy.special.expit)."""
    return apply1("logistic", [inexact(x)])


def arctan2(y: ArrayLike, x: ArrayLike) -> TracedTensor:
    a, b = promote(y, x)
    return apply1("atan2", broadcast_arrays(inexact(a), inexact(b)))


def exp2(x: ArrayLike) -> TracedTensor:
    return power(2.0, inexact(x))


def log2(x: ArrayLike) -> TracedTensor:
    return _strong(divide(log(inexact(x)), math.log(2.0)))


def log10(x: ArrayLike) -> TracedTensor:
    return _strong(divide(log(inexact(x)), math.log(10.0)))


def _strong(out: TracedTensor) -> TracedTensor:
    """`out` strongly typed: JAX's result mixes in a constant of its dtype (log2, log10) or
    is a comparison (isinf, isposinf, isneginf)."""
    out._weak = False
    return out


def isnan(x: ArrayLike) -> TracedTensor:
    """x != x (always False for integers and bools, weakly typed for a Python int: JAX's
    full_like keeps its operand's weak type)."""
    weak = type(x) is int
    x = asarray(x)
    if not dt.is_inexact(x.dtype):
        out = full_of(False, x.shape, dt.bool_)
        out._weak = weak or x._weak
        return out
    return not_equal(x, x)


def isinf(x: ArrayLike) -> TracedTensor:
    """|x| == inf (for complex: either part infinite)."""
    x = asarray(x)
    if not dt.is_inexact(x.dtype):
        return full_of(False, x.shape, dt.bool_)
    if dt.is_complex(x.dtype):
        return _strong(logical_or(isinf(real(x)), isinf(imag(x))))
    return _strong(equal(absolute(x), math.inf))


def isfinite(x: ArrayLike) -> TracedTensor:
    """|x| < inf (for complex: both parts finite)."""
    x = asarray(x)
    if not dt.is_inexact(x.dtype):
        return full_of(True, x.shape, dt.bool_)
    if dt.is_complex(x.dtype):
        return logical_and(isfinite(real(x)), isfinite(imag(x)))
    return less(absolute(x), math.inf)


def isposinf(x: ArrayLike) -> TracedTensor:
    """Where `x` is +inf, elementwise (numpy's and JAX's `isposinf`).

    Args:
        x: a real array (integers and bools are never infinite).

    Returns:
        A bool array of `x`'s shape.

    >>> import tf8.numpy as tnp
    >>> tnp.isposinf(tnp.array([1.0, float("inf"), -float("inf")])).tolist()
    [False, True, False]

    As JAX: a complex `x` raises (DTypeError here, ValueError in JAX).
    """
    return _signed_inf(x, math.inf, "isposinf")


def isneginf(x: ArrayLike) -> TracedTensor:
    """Where `x` is -inf, elementwise (numpy's and JAX's `isneginf`); see `isposinf`.

    >>> import tf8.numpy as tnp
    >>> tnp.isneginf(tnp.array([1.0, float("inf"), -float("inf")])).tolist()
    [False, False, True]
    """
    return _signed_inf(x, -math.inf, "isneginf")


def _signed_inf(x: ArrayLike, inf: float, name: str) -> TracedTensor:
    x = asarray(x)
    if dt.is_complex(x.dtype):
        raise DTypeError(f"{name} is not defined for complex input ({x.aval})")
    if not dt.is_inexact(x.dtype):
        return full_of(False, x.shape, dt.bool_)
    return _strong(equal(x, inf))
