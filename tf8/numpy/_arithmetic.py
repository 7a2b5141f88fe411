"""numpy's arithmetic ufuncs on traced values: + - * / // % **, negation, absolute value,
sign, maximum / minimum, clip, square, reciprocal, and the parts of complex numbers."""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import DTypeError, UnsupportedOperationError
from tf8.lax.core import apply, apply1, concrete, eager_untaped
from tf8.lax.eager import fast_binary
from tf8.ops import dtypes as dt
from tf8.ops.primitive import aval_of, plain_primitive
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
from ._logic import equal, less, logical_and, logical_or, not_equal, where

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


def numeric(*values: ArrayLike) -> list[TracedTensor]:
    """`values` promoted together, bools as int32 (JAX's `promote_args_numeric`)."""
    xs = promote(*values)
    return [astype(x, dt.int32) for x in xs] if xs[0].dtype == dt.bool_ else xs


def _numeric1(x: ArrayLike) -> TracedTensor:
    """`numeric(x)` of one value, at once for a tensor that is not bool (the common case)."""
    if type(x) is TracedTensor and x.dtype != dt.bool_:
        return x
    return numeric(x)[0]


def _refuse_complex(name: str, a: TracedTensor) -> None:
    if dt.is_complex(a.dtype):
        raise DTypeError(f"{name} is not defined for complex input ({a.dtype}), as in JAX")


def computed(a: TracedTensor, b: TracedTensor) -> bool:
    """Both operands computed and nothing follows them (no transform, no tape): a composed
    op may then compute its value in numpy at once, with the kernels its ops would run."""
    return a._value is not None and b._value is not None and eager_untaped(a) and eager_untaped(b)


def _numpy_divmod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`float_divmod` on numpy values, by the same kernels in the same order."""
    with np.errstate(all="ignore"):
        mod = np.fmod(a, b)
        quotient = np.true_divide(np.where(b == 0, a, a - mod), b)
        step = (mod != 0) & (np.sign(b) != np.sign(mod))
        mod = np.where(step, mod + b, mod)
        return np.round(np.where(step, quotient - 1, quotient)), mod


def wrapped(value: Any, like: TracedTensor, weak: bool) -> TracedTensor:
    value = np.asarray(value, dtype=like.dtype)  # (numpy hands back scalars for 0-d operands)
    out = concrete(value, aval_of(value.shape, value.dtype))
    out._weak = weak
    return out


def float_divmod(a: TracedTensor, b: TracedTensor) -> tuple[TracedTensor, TracedTensor]:
    """JAX's (and CPython's) float divmod: m = fmod(a, b), q = (a - m) / b, both moved one
    step toward -inf where m's sign is not b's; q rounded (it is integral up to rounding).
    Computed operands outside transforms take it in numpy at once (one call, not 14 ops)."""
    if computed(a, b):
        weak = a._weak and b._weak
        q, m = _numpy_divmod(a._value, b._value)  # type: ignore[arg-type]
        return wrapped(q, a, weak), wrapped(m, a, weak)
    mod = apply1("fmod", [a, b])
    quotient = true_divide(where(equal(b, 0), a, subtract(a, mod)), b)
    step = logical_and(not_equal(mod, 0), not_equal(sign(b), sign(mod)))
    mod = where(step, add(mod, b), mod)
    quotient = where(step, subtract(quotient, 1), quotient)
    return apply1("round", [quotient]), mod


def floor_divide(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    """x // y, as JAX's: on floats `float_divmod`'s quotient; bools as int32."""
    a, b = broadcast_arrays(*numeric(x, y))
    _refuse_complex("floor_divide", a)
    if dt.is_inexact(a.dtype):
        return float_divmod(a, b)[0]
    # x - (x mod y) is an exact multiple of y, so truncating division is exact there.
    return apply1("div", [apply1("sub", [a, apply1("rem", [a, b])]), b])


def remainder(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    """x - y * floor(x / y): the sign of the divisor, as numpy's and JAX's `remainder`. On
    floats JAX's fmod(x, y) (+ y where its sign is not y's), so 0 % -1 is +0 and the
    derivative in y is -trunc(x / y) (+ 1)."""
    a, b = broadcast_arrays(*numeric(x, y))
    _refuse_complex("remainder", a)
    if not dt.is_inexact(a.dtype):
        return apply1("rem", [a, b])
    if computed(a, b):
        av, bv = a._value, b._value
        with np.errstate(all="ignore"):
            rem = np.fmod(av, bv)
            value = np.where(((rem < 0) != (bv < 0)) & (rem != 0), rem + bv, rem)
        return wrapped(value, a, a._weak and b._weak)
    rem = apply1("fmod", [a, b])
    plus = logical_and(not_equal(less(rem, 0), less(b, 0)), not_equal(rem, 0))
    return where(plus, add(rem, b), rem)


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
    a, b = numeric(x, y)
    if dt.is_complex(a.dtype):
        raise DTypeError(f"fmod is not defined for complex input ({a.aval}, {b.aval})")
    return elementwise("fmod", a, b)


mod = remainder


def power(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    """x ** y with JAX's cases: an integer scalar y raises x (bools as int32) in x's own dtype
    (x * x for y = 2, numpy's bits and the plain product rule); an inexact x with an integer
    array y keeps x's dtype (strongly typed); otherwise both promote (bools as int32)."""
    if type(y) is bool or type(y) is int or isinstance(y, np.integer):
        base = _numeric1(x)
        if y == 2:
            return multiply(base, base)
        return elementwise("pow", base, int(y))
    if type(y) is float and type(x) is TracedTensor and dt.is_inexact(x.dtype):
        return elementwise("pow", x, y)  # the common case: a Python float exponent
    exponent = None if is_weak_scalar(y) else asarray(y)
    if exponent is not None and exponent.dtype.kind in "iu":
        base = asarray(x)
        if dt.is_inexact(base.dtype):
            out = apply1("pow", broadcast_arrays(base, astype(exponent, base.dtype)))
            out._weak = False  # a strong integer exponent: JAX's lax.pow result is strong
            return out
    a, b = broadcast_arrays(*numeric(x, y))
    out = apply1("pow", [a, b])
    if not dt.is_inexact(a.dtype):  # JAX's integer power mixes in constants of y's shape
        out._weak = out._weak and b.ndim == 0
    return out


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
    weak = is_weak_scalar(x) and type(x) is not bool  # a Python bool is strong in JAX
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
    """x * x (bools as int32, as JAX's)."""
    x = _numeric1(x)
    return multiply(x, x)


def reciprocal(x: ArrayLike) -> TracedTensor:
    """1 / x in x's inexact dtype (integers and bools too, as JAX's: int32 → float32)."""
    return true_divide(1, inexact(x))
