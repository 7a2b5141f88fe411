"""numpy functions with no catalog row of their own, written as compositions of rows.

Each follows numpy's definition (and its edge cases at 0, ±inf and NaN) closely enough to
match it to rounding; the composition is spelled out in the docstring.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tf8.errors import ConcretizationError, DTypeError
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._arithmetic import (
    absolute,
    add,
    divide,
    floor_divide,
    imag,
    maximum,
    minimum,
    multiply,
    negative,
    power,
    real,
    remainder,
    sign,
    subtract,
)
from ._core import (
    ArrayLike,
    asarray,
    broadcast_arrays,
    elementwise,
    inexact,
    promote,
)
from ._float_ufuncs import arctan2, exp, exp2, isfinite, isinf, isnan, log, log1p, sin, sqrt
from ._logic import equal, greater, less, less_equal, logical_and, logical_or, not_equal, where
from ._reductions import all as all_

_LN2 = math.log(2.0)
_LOG2E = 1.0 / _LN2


def _real_inexact(name: str, *values: ArrayLike) -> list[TracedTensor]:
    """`values` promoted together into one real float dtype; DTypeError for complex."""
    xs = [inexact(x) for x in broadcast_arrays(*promote(*values))]
    if dt.is_complex(xs[0].dtype):
        raise DTypeError(f"{name} is not defined for complex input ({xs[0].dtype})")
    return xs


def hypot(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """sqrt(x1² + x2²) without overflow: s * sqrt((x1/s)² + (x2/s)²), s = max(|x1|, |x2|).

    Both operands go through the same expression, so derivatives stay exact at the tie
    |x1| == |x2| (the scale's split derivative cancels); inf wins over NaN, as in numpy.
    """
    a, b = _real_inexact("hypot", x1, x2)
    scale = maximum(absolute(a), absolute(b))
    safe = where(equal(scale, 0), 1, scale)
    ra, rb = divide(a, safe), divide(b, safe)
    value = multiply(scale, sqrt(add(multiply(ra, ra), multiply(rb, rb))))
    return where(logical_or(isinf(a), isinf(b)), math.inf, value)


def logaddexp(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """log(exp(x1) + exp(x2)) = max + log1p(exp(-|x1 - x2|)); where x1 - x2 is nan (equal
    infinities, or a nan) x1 + x2, which is ±inf or nan as numpy's. At x1 = x2 each input's
    derivative is 1/2 (no branch on equality, whose derivative would be 1 and 0)."""
    a, b = _real_inexact("logaddexp", x1, x2)
    delta = subtract(a, b)
    # -|delta| as min(delta, -delta): its derivative splits at the tie (abs's would be 1)
    value = add(maximum(a, b), log1p(exp(minimum(delta, negative(delta)))))
    return where(isnan(delta), add(a, b), value)


def logaddexp2(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """log2(2**x1 + 2**x2) = max + log1p(2**-|x1 - x2|) / log 2; as logaddexp where the
    difference is nan, and derivatives 1/2 at x1 = x2."""
    a, b = _real_inexact("logaddexp2", x1, x2)
    delta = subtract(a, b)
    tail = log1p(exp2(minimum(delta, negative(delta))))
    value = add(maximum(a, b), multiply(tail, _LOG2E))  # numpy multiplies by log2(e)
    return where(isnan(delta), add(a, b), value)


def angle(z: ArrayLike, deg: bool = False) -> TracedTensor:
    """The argument of z: arctan2(imag, real), in degrees when `deg`."""
    z = asarray(z)
    if dt.is_complex(z.dtype):
        out = arctan2(imag(z), real(z))
    else:
        out = arctan2(0.0, inexact(z))  # numpy takes the imaginary part as +0
    return rad2deg(out) if deg else out


def cbrt(x: ArrayLike) -> TracedTensor:
    """Real cube root: sign(x) |x|^(1/3), refined by one Newton step (exact on cubes)."""
    (x,) = _real_inexact("cbrt", x)
    guess = multiply(sign(x), power(absolute(x), 1.0 / 3.0))
    regular = logical_and(isfinite(guess), not_equal(guess, 0))
    safe = where(regular, guess, 1)
    step = divide(
        subtract(multiply(multiply(safe, safe), safe), x),
        multiply(3, multiply(safe, safe)),
    )
    return where(regular, subtract(safe, step), guess)


def deg2rad(x: ArrayLike) -> TracedTensor:
    """x * (pi / 180) (complex too, as JAX's)."""
    return multiply(inexact(x), math.pi / 180.0)


def rad2deg(x: ArrayLike) -> TracedTensor:
    """x * (180 / pi) (complex too, as JAX's)."""
    return multiply(inexact(x), 180.0 / math.pi)


radians, degrees = deg2rad, rad2deg


def sinc(x: ArrayLike) -> TracedTensor:
    """sin(pi x) / (pi x), as numpy computes it (x = 0 replaced by 1e-20)."""
    x = inexact(x)
    y = multiply(math.pi, where(equal(x, 0), 1.0e-20, x))
    return divide(sin(y), y)


def signbit(x: ArrayLike) -> TracedTensor:
    """x < 0, and for zeros the sign bit read through arctan2(±0, -1) = ±pi."""
    (x,) = _real_inexact("signbit", x)
    return where(equal(x, 0), less(arctan2(x, -1), 0), less(x, 0))


def copysign(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """|x1| with the sign bit of x2."""
    a, b = _real_inexact("copysign", x1, x2)
    return where(signbit(b), negative(absolute(a)), absolute(a))


def heaviside(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """0 for x1 < 0, x2 for x1 == 0, 1 for x1 > 0; NaN stays NaN."""
    a, b = _real_inexact("heaviside", x1, x2)
    step = where(less(a, 0), 0, where(greater(a, 0), 1, b))
    return where(isnan(a), a, step)


def fmax(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """Elementwise maximum that ignores NaNs (NaN only when both are)."""
    a, b = broadcast_arrays(*promote(x1, x2))
    return where(isnan(b), a, where(isnan(a), b, maximum(a, b)))


def fmin(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """Elementwise minimum that ignores NaNs (NaN only when both are)."""
    a, b = broadcast_arrays(*promote(x1, x2))
    return where(isnan(b), a, where(isnan(a), b, minimum(a, b)))


def fabs(x: ArrayLike) -> TracedTensor:
    """|x| of real input, in a float dtype."""
    (x,) = _real_inexact("fabs", x)
    return absolute(x)


def float_power(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """x1 ** x2 in the inexact dtype of the two (JAX's float_power; numpy's computes in
    float64)."""
    a, b = [inexact(v) for v in promote(x1, x2)]
    return power(a, b)


def divmod_(x1: ArrayLike, x2: ArrayLike) -> tuple[TracedTensor, TracedTensor]:
    """(x1 // x2, x1 % x2)."""
    return floor_divide(x1, x2), remainder(x1, x2)


def arcsinh(x: ArrayLike) -> TracedTensor:
    """sign(x) log1p(|x| + x²/(1 + sqrt(1 + x²))); log(2|x|) for huge |x|."""
    x = inexact(x)
    if dt.is_complex(x.dtype):
        return log(add(x, sqrt(add(multiply(x, x), 1))))
    a = absolute(x)
    small = where(greater(a, 1e8), 0, a)
    sq = multiply(small, small)
    near = log1p(add(small, divide(sq, add(1, sqrt(add(1, sq))))))
    far = add(log(a), _LN2)
    return multiply(sign(x), where(greater(a, 1e8), far, near))


def arccosh(x: ArrayLike) -> TracedTensor:
    """log(x + sqrt(x - 1) sqrt(x + 1)); log(2x) for huge x; NaN below 1."""
    x = inexact(x)
    if dt.is_complex(x.dtype):
        return log(add(x, multiply(sqrt(add(x, 1)), sqrt(subtract(x, 1)))))
    huge = greater(x, 1e8)
    small = where(huge, 1, x)
    near = log1p(add(subtract(small, 1), sqrt(multiply(subtract(small, 1), add(small, 1)))))
    return where(huge, add(log(x), _LN2), near)


def arctanh(x: ArrayLike) -> TracedTensor:
    """0.5 log1p(2x / (1 - x))."""
    x = inexact(x)
    if dt.is_complex(x.dtype):
        return multiply(0.5, log(divide(add(1, x), subtract(1, x))))
    return multiply(0.5, log1p(divide(multiply(2, x), subtract(1, x))))


def nan_to_num(
    x: ArrayLike,
    copy: bool = True,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
) -> TracedTensor:
    """NaN → `nan`, +inf → `posinf` (default: the dtype's max), -inf → `neginf` (its min)."""
    x = asarray(x)
    if not dt.is_inexact(x.dtype):
        return x
    if dt.is_complex(x.dtype):
        parts = [nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf) for p in (real(x), imag(x))]
        return elementwise("complex", *parts)
    info = np.finfo(x.dtype)
    hi = float(info.max) if posinf is None else posinf
    lo = float(info.min) if neginf is None else neginf
    out = where(isnan(x), nan, x)
    out = where(equal(x, math.inf), hi, out)
    return where(equal(x, -math.inf), lo, out)


def real_if_close(a: ArrayLike, tol: float = 100) -> TracedTensor:
    """The real part when every imaginary part is within `tol` machine epsilons of 0.

    The result's dtype depends on the data, so the value must be concrete (not under jit).
    """
    x = asarray(a)
    if not dt.is_complex(x.dtype):
        return x
    eps = float(np.finfo(dt.real_dtype(x.dtype)).eps)
    bound = tol * eps if tol > 1 else tol
    close = less(absolute(imag(x)), bound)
    if not close.is_concrete:
        raise ConcretizationError(
            f"real_if_close on {x.aval}: whether the result is real depends on the values, "
            "which are only known when the compiled program runs; use tf8.numpy.real instead"
        )
    return real(x) if bool(all_(close)) else x


def isclose(
    a: ArrayLike, b: ArrayLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> TracedTensor:
    """|a - b| <= atol + rtol |b| for finite b, a == b otherwise (NaN == NaN if equal_nan)."""
    x, y = broadcast_arrays(*promote(a, b))
    x, y = inexact(x), inexact(y)
    close = less_equal(absolute(subtract(x, y)), add(atol, multiply(rtol, absolute(y))))
    out = logical_or(logical_and(close, isfinite(y)), equal(x, y))
    if equal_nan:
        out = logical_or(out, logical_and(isnan(x), isnan(y)))
    return out


def allclose(
    a: ArrayLike, b: ArrayLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> TracedTensor:
    """all(isclose(a, b)) as a traced bool scalar."""
    return all_(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: ArrayLike, a2: ArrayLike, equal_nan: bool = False) -> Any:
    """True when shapes match and all elements are equal (a traced bool when shapes match)."""
    x, y = asarray(a1), asarray(a2)
    if x.shape != y.shape:
        return False
    same = equal(x, y)
    if equal_nan:
        same = logical_or(same, logical_and(isnan(x), isnan(y)))
    return all_(same)
