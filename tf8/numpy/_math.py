"""numpy functions with no catalog row of their own, written as compositions of rows.

Each follows numpy's definition (and its edge cases at 0, ±inf and NaN) closely enough to
match it to rounding; the composition is spelled out in the docstring.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tf8.errors import ConcretizationError, DTypeError
from tf8.lax.special import bessel_i0e
from tf8.lax.stop import stop_gradient
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._arithmetic import (
    absolute,
    add,
    divide,
    float_divmod,
    floor_divide,
    imag,
    maximum,
    multiply,
    negative,
    numeric,
    power,
    real,
    remainder,
    subtract,
)
from ._core import (
    ArrayLike,
    asarray,
    astype,
    broadcast_arrays,
    elementwise,
    in_float64,
    inexact,
    promote,
)
from ._float_ufuncs import arctan2, exp, isfinite, isinf, isnan, log, log1p, sin, sqrt
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
    |x1| == |x2| (the scale's split derivative cancels); inf wins over NaN, as in numpy. At
    the origin the value is s itself, and so is its derivative (JAX's), not 0 * inf.
    """
    a, b = _real_inexact("hypot", x1, x2)
    scale = maximum(absolute(a), absolute(b))
    zero = equal(scale, 0)
    safe = where(zero, 1, scale)
    ra, rb = divide(a, safe), divide(b, safe)
    norm = sqrt(where(zero, 1, add(multiply(ra, ra), multiply(rb, rb))))
    value = where(zero, scale, multiply(scale, norm))
    out = where(logical_or(isinf(a), isinf(b)), math.inf, value)
    return strong_unless_scalar(out, out)


def strong_unless_scalar(out: TracedTensor, example: ArrayLike) -> TracedTensor:
    """`out` strongly typed unless `example` is a scalar (and `out` weak): JAX mixes in
    constants of `example`'s dtype (`lax._const`), a weak Python scalar for a weakly typed
    scalar example, else a strong array, which makes the result strong."""
    out._weak = out._weak and np.ndim(example) == 0
    return out


def angle(z: ArrayLike, deg: bool = False) -> TracedTensor:
    """The argument of z: arctan2(imag, real), in degrees when `deg`. As JAX's, an integer,
    bool or real scalar argument is computed in float64 (strongly typed)."""
    z = asarray(z)
    re, im = real(z), imag(z)
    in_float64 = not dt.is_inexact(re.dtype) or (not dt.is_complex(z.dtype) and z.ndim == 0)
    if in_float64:
        re, im = astype(re, dt.float64), astype(im, dt.float64)
    out = arctan2(im, re)
    out._weak = out._weak and not in_float64
    return rad2deg(out) if deg else out


def i0(x: ArrayLike) -> TracedTensor:
    """The modified Bessel function I0 of real x: exp(|x|) * i0e(|x|), as JAX's, whose
    derivatives at 0 are 0 (|x| has none there; I0 is even, so the first is 0)."""
    (x,) = _real_inexact("i0", x)
    a = absolute(where(equal(x, 0), stop_gradient(x), x))
    return multiply(exp(a), bessel_i0e(a))


def cbrt(x: ArrayLike) -> TracedTensor:
    """Real cube root: sign(x) |x|^(1/3), refined by one Newton step (exact on cubes)."""
    (x,) = _real_inexact("cbrt", x)
    # each branch reads a safe input where unused, so at ±0 the derivative is the taken
    # branch's, the limit +inf (as JAX's), with no 0 · inf from the other
    negative_x = signbit(x)  # -0.0 too: its root is -0.0
    positive_part = power(where(negative_x, 1, x), 1.0 / 3.0)
    negative_part = negative(power(where(negative_x, negative(x), 1), 1.0 / 3.0))
    guess = where(negative_x, negative_part, positive_part)
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
    """sin(pi x) / (pi x); at 0 its Maclaurin polynomial 1 - (pi x)²/6 + (pi x)⁴/120, whose
    value is 1 and whose derivatives are sinc's (JAX's: 0, -pi²/3, ...). float16 and float32
    in float64 (`in_float64`): the derivative (cos(pi x) - sinc(x)) / x cancels near 0."""
    return in_float64(_sinc, inexact(x))


def _sinc(x: TracedTensor) -> TracedTensor:
    zero = equal(x, 0)
    y = multiply(math.pi, where(zero, 1, x))
    t2 = multiply(multiply(math.pi, x), multiply(math.pi, x))
    maclaurin = add(1, multiply(t2, add(-1 / 6, divide(t2, 120))))
    return where(zero, maclaurin, divide(sin(y), y))


def signbit(x: ArrayLike) -> TracedTensor:
    """x < 0, and for zeros the sign bit read through arctan2(±0, -1) = ±pi."""
    (x,) = _real_inexact("signbit", x)
    out = where(equal(x, 0), less(arctan2(x, -1), 0), less(x, 0))
    out._weak = False  # a comparison, as JAX's
    return out


def copysign(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """|x1| with the sign bit of x2."""
    a, b = _real_inexact("copysign", x1, x2)
    return where(signbit(b), negative(absolute(a)), absolute(a))


def heaviside(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """0 for x1 < 0, x2 for x1 == 0, 1 for x1 > 0; NaN stays NaN."""
    a, b = _real_inexact("heaviside", x1, x2)
    step = where(less(a, 0), 0, where(greater(a, 0), 1, b))
    return strong_unless_scalar(where(isnan(a), a, step), x1)


def fmax(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """Elementwise maximum that ignores NaNs (NaN only when both are): JAX's
    where(x1 > x2 or isnan(x2), x1, x2), so at a tie x2 and its derivative."""
    a, b = broadcast_arrays(*promote(x1, x2))
    return where(logical_or(greater(a, b), isnan(b)), a, b)


def fmin(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """Elementwise minimum that ignores NaNs (NaN only when both are): JAX's
    where(x1 < x2 or isnan(x2), x1, x2), so at a tie x2 and its derivative."""
    a, b = broadcast_arrays(*promote(x1, x2))
    return where(logical_or(less(a, b), isnan(b)), a, b)


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
    """(x1 // x2, x1 % x2); on floats JAX's `float_divmod` (bools as int32)."""
    a, b = broadcast_arrays(*numeric(x1, x2))
    if dt.is_inexact(a.dtype) and not dt.is_complex(a.dtype):
        return float_divmod(a, b)
    return floor_divide(a, b), remainder(a, b)


def arcsinh(x: ArrayLike) -> TracedTensor:
    """±log1p(|x| + x²/(1 + sqrt(1 + x²))) by the sign of x; log(2|x|) for huge |x|; x itself
    at ±0 (its sign, and the derivative 1 there)."""
    x = inexact(x)
    if dt.is_complex(x.dtype):
        return log(add(x, sqrt(add(multiply(x, x), 1))))
    negative_x = less(x, 0)
    a = where(negative_x, negative(x), x)
    huge = greater(a, 1e8)
    small, large = where(huge, 0, a), where(huge, a, 1)  # each branch finite where unused
    sq = multiply(small, small)
    near = log1p(add(small, divide(sq, add(1, sqrt(add(1, sq))))))
    value = where(huge, add(log(large), _LN2), near)
    return where(equal(x, 0), x, where(negative_x, negative(value), value))


def arccosh(x: ArrayLike) -> TracedTensor:
    """log(x + sqrt(x - 1) sqrt(x + 1)); log(2x) for huge x; NaN below 1."""
    x = inexact(x)
    if dt.is_complex(x.dtype):
        return log(add(x, multiply(sqrt(add(x, 1)), sqrt(subtract(x, 1)))))
    huge = greater(x, 1e8)
    small = where(huge, 1, x)
    # sqrt(x - 1) sqrt(x + 1), not sqrt((x - 1)(x + 1)): at x = 1 the derivative is +inf (the
    # one-sided limit, as JAX's), where the product's rule would meet 0 · inf
    near = log1p(add(subtract(small, 1), multiply(sqrt(subtract(small, 1)), sqrt(add(small, 1)))))
    return where(huge, add(log(x), _LN2), near)


def arctanh(x: ArrayLike) -> TracedTensor:
    """0.5 (log1p(x) - log1p(-x)): its derivative at ±1 is the limit +inf, as JAX's."""
    x = inexact(x)
    if dt.is_complex(x.dtype):
        return multiply(0.5, log(divide(add(1, x), subtract(1, x))))
    return multiply(0.5, subtract(log1p(x), log1p(negative(x))))


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
    out = where(equal(x, -math.inf), lo, out)
    out._weak = False  # JAX's fills are constants of x's dtype
    return out


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
