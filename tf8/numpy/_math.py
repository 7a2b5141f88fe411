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

from . import _ufuncs as u
from ._core import ArrayLike, asarray, astype, broadcast_arrays, full_of, inexact, promote

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
    scale = u.maximum(u.absolute(a), u.absolute(b))
    safe = u.where(u.equal(scale, 0), 1, scale)
    ra, rb = u.divide(a, safe), u.divide(b, safe)
    value = u.multiply(scale, u.sqrt(u.add(u.multiply(ra, ra), u.multiply(rb, rb))))
    return u.where(u.logical_or(isinf(a), isinf(b)), math.inf, value)


def logaddexp(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """log(exp(x1) + exp(x2)) = max + log1p(exp(-|x1 - x2|)); where x1 - x2 is nan (equal
    infinities, or a nan) x1 + x2, which is ±inf or nan as numpy's. At x1 = x2 each input's
    derivative is 1/2 (no branch on equality, whose derivative would be 1 and 0)."""
    a, b = _real_inexact("logaddexp", x1, x2)
    delta = u.subtract(a, b)
    value = u.add(u.maximum(a, b), u.log1p(u.exp(u.negative(u.absolute(delta)))))
    return u.where(isnan(delta), u.add(a, b), value)


def logaddexp2(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """log2(2**x1 + 2**x2) = max + log1p(2**-|x1 - x2|) / log 2; as logaddexp where the
    difference is nan, and derivatives 1/2 at x1 = x2."""
    a, b = _real_inexact("logaddexp2", x1, x2)
    delta = u.subtract(a, b)
    tail = u.log1p(u.exp2(u.negative(u.absolute(delta))))
    value = u.add(u.maximum(a, b), u.multiply(tail, _LOG2E))  # numpy multiplies by log2(e)
    return u.where(isnan(delta), u.add(a, b), value)


def angle(z: ArrayLike, deg: bool = False) -> TracedTensor:
    """The argument of z: arctan2(imag, real), in degrees when `deg`."""
    z = asarray(z)
    if dt.is_complex(z.dtype):
        out = u.arctan2(u.imag(z), u.real(z))
    else:
        out = u.arctan2(0.0, inexact(z))  # numpy takes the imaginary part as +0
    return rad2deg(out) if deg else out


def cbrt(x: ArrayLike) -> TracedTensor:
    """Real cube root: sign(x) |x|^(1/3), refined by one Newton step (exact on cubes)."""
    (x,) = _real_inexact("cbrt", x)
    guess = u.multiply(u.sign(x), u.power(u.absolute(x), 1.0 / 3.0))
    regular = u.logical_and(isfinite(guess), u.not_equal(guess, 0))
    safe = u.where(regular, guess, 1)
    step = u.divide(
        u.subtract(u.multiply(u.multiply(safe, safe), safe), x),
        u.multiply(3, u.multiply(safe, safe)),
    )
    return u.where(regular, u.subtract(safe, step), guess)


def deg2rad(x: ArrayLike) -> TracedTensor:
    """x * (pi / 180)."""
    (x,) = _real_inexact("deg2rad", x)
    return u.multiply(x, math.pi / 180.0)


def rad2deg(x: ArrayLike) -> TracedTensor:
    """x * (180 / pi)."""
    (x,) = _real_inexact("rad2deg", x)
    return u.multiply(x, 180.0 / math.pi)


radians, degrees = deg2rad, rad2deg


def sinc(x: ArrayLike) -> TracedTensor:
    """sin(pi x) / (pi x), as numpy computes it (x = 0 replaced by 1e-20)."""
    x = inexact(x)
    y = u.multiply(math.pi, u.where(u.equal(x, 0), 1.0e-20, x))
    return u.divide(u.sin(y), y)


def isnan(x: ArrayLike) -> TracedTensor:
    """x != x (always False for integers and bools)."""
    x = asarray(x)
    if not dt.is_inexact(x.dtype):
        return full_of(False, x.shape, dt.bool_)
    return u.not_equal(x, x)


def isinf(x: ArrayLike) -> TracedTensor:
    """|x| == inf (for complex: either part infinite)."""
    x = asarray(x)
    if not dt.is_inexact(x.dtype):
        return full_of(False, x.shape, dt.bool_)
    if dt.is_complex(x.dtype):
        return u.logical_or(isinf(u.real(x)), isinf(u.imag(x)))
    return u.equal(u.absolute(x), math.inf)


def isfinite(x: ArrayLike) -> TracedTensor:
    """|x| < inf (for complex: both parts finite)."""
    x = asarray(x)
    if not dt.is_inexact(x.dtype):
        return full_of(True, x.shape, dt.bool_)
    if dt.is_complex(x.dtype):
        return u.logical_and(isfinite(u.real(x)), isfinite(u.imag(x)))
    return u.less(u.absolute(x), math.inf)


def signbit(x: ArrayLike) -> TracedTensor:
    """x < 0, and for zeros the sign bit read through arctan2(±0, -1) = ±pi."""
    (x,) = _real_inexact("signbit", x)
    return u.where(u.equal(x, 0), u.less(u.arctan2(x, -1), 0), u.less(x, 0))


def copysign(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """|x1| with the sign bit of x2."""
    a, b = _real_inexact("copysign", x1, x2)
    return u.where(signbit(b), u.negative(u.absolute(a)), u.absolute(a))


def heaviside(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """0 for x1 < 0, x2 for x1 == 0, 1 for x1 > 0; NaN stays NaN."""
    a, b = _real_inexact("heaviside", x1, x2)
    step = u.where(u.less(a, 0), 0, u.where(u.greater(a, 0), 1, b))
    return u.where(isnan(a), a, step)


def fmax(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """Elementwise maximum that ignores NaNs (NaN only when both are)."""
    a, b = broadcast_arrays(*promote(x1, x2))
    return u.where(isnan(b), a, u.where(isnan(a), b, u.maximum(a, b)))


def fmin(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """Elementwise minimum that ignores NaNs (NaN only when both are)."""
    a, b = broadcast_arrays(*promote(x1, x2))
    return u.where(isnan(b), a, u.where(isnan(a), b, u.minimum(a, b)))


def fabs(x: ArrayLike) -> TracedTensor:
    """|x| of real input, in a float dtype."""
    (x,) = _real_inexact("fabs", x)
    return u.absolute(x)


def float_power(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """x1 ** x2 computed in float64 (complex128 for complex input)."""
    a, b = promote(x1, x2)
    target = dt.complex128 if dt.is_complex(a.dtype) else dt.float64
    return u.power(astype(a, target), astype(b, target))


def divmod_(x1: ArrayLike, x2: ArrayLike) -> tuple[TracedTensor, TracedTensor]:
    """(x1 // x2, x1 % x2)."""
    return u.floor_divide(x1, x2), u.remainder(x1, x2)


def arcsinh(x: ArrayLike) -> TracedTensor:
    """sign(x) log1p(|x| + x²/(1 + sqrt(1 + x²))); log(2|x|) for huge |x|."""
    x = inexact(x)
    if dt.is_complex(x.dtype):
        return u.log(u.add(x, u.sqrt(u.add(u.multiply(x, x), 1))))
    a = u.absolute(x)
    small = u.where(u.greater(a, 1e8), 0, a)
    sq = u.multiply(small, small)
    near = u.log1p(u.add(small, u.divide(sq, u.add(1, u.sqrt(u.add(1, sq))))))
    far = u.add(u.log(a), _LN2)
    return u.multiply(u.sign(x), u.where(u.greater(a, 1e8), far, near))


def arccosh(x: ArrayLike) -> TracedTensor:
    """log(x + sqrt(x - 1) sqrt(x + 1)); log(2x) for huge x; NaN below 1."""
    x = inexact(x)
    if dt.is_complex(x.dtype):
        return u.log(u.add(x, u.multiply(u.sqrt(u.add(x, 1)), u.sqrt(u.subtract(x, 1)))))
    huge = u.greater(x, 1e8)
    small = u.where(huge, 1, x)
    near = u.log1p(
        u.add(u.subtract(small, 1), u.sqrt(u.multiply(u.subtract(small, 1), u.add(small, 1))))
    )
    return u.where(huge, u.add(u.log(x), _LN2), near)


def arctanh(x: ArrayLike) -> TracedTensor:
    """0.5 log1p(2x / (1 - x))."""
    x = inexact(x)
    if dt.is_complex(x.dtype):
        return u.multiply(0.5, u.log(u.divide(u.add(1, x), u.subtract(1, x))))
    return u.multiply(0.5, u.log1p(u.divide(u.multiply(2, x), u.subtract(1, x))))


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
        parts = [
            nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf) for p in (u.real(x), u.imag(x))
        ]
        from ._core import elementwise

        return elementwise("complex", *parts)
    info = np.finfo(x.dtype)
    hi = float(info.max) if posinf is None else posinf
    lo = float(info.min) if neginf is None else neginf
    out = u.where(isnan(x), nan, x)
    out = u.where(u.equal(x, math.inf), hi, out)
    return u.where(u.equal(x, -math.inf), lo, out)


def real_if_close(a: ArrayLike, tol: float = 100) -> TracedTensor:
    """The real part when every imaginary part is within `tol` machine epsilons of 0.

    The result's dtype depends on the data, so the value must be concrete (not under jit).
    """
    x = asarray(a)
    if not dt.is_complex(x.dtype):
        return x
    eps = float(np.finfo(dt.real_dtype(x.dtype)).eps)
    bound = tol * eps if tol > 1 else tol
    close = u.less(u.absolute(u.imag(x)), bound)
    if not close.is_concrete:
        raise ConcretizationError(
            f"real_if_close on {x.aval}: whether the result is real depends on the values, "
            "which are only known when the compiled program runs; use tf8.numpy.real instead"
        )
    from ._reductions import all as all_

    return u.real(x) if bool(all_(close)) else x


def isclose(
    a: ArrayLike, b: ArrayLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> TracedTensor:
    """|a - b| <= atol + rtol |b| for finite b, a == b otherwise (NaN == NaN if equal_nan)."""
    x, y = broadcast_arrays(*promote(a, b))
    x, y = inexact(x), inexact(y)
    close = u.less_equal(u.absolute(u.subtract(x, y)), u.add(atol, u.multiply(rtol, u.absolute(y))))
    out = u.logical_or(u.logical_and(close, isfinite(y)), u.equal(x, y))
    if equal_nan:
        out = u.logical_or(out, u.logical_and(isnan(x), isnan(y)))
    return out


def allclose(
    a: ArrayLike, b: ArrayLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> TracedTensor:
    """all(isclose(a, b)) as a traced bool scalar."""
    from ._reductions import all as all_

    return all_(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: ArrayLike, a2: ArrayLike, equal_nan: bool = False) -> Any:
    """True when shapes match and all elements are equal (a traced bool when shapes match)."""
    from ._reductions import all as all_

    x, y = asarray(a1), asarray(a2)
    if x.shape != y.shape:
        return False
    same = u.equal(x, y)
    if equal_nan:
        same = u.logical_or(same, u.logical_and(isnan(x), isnan(y)))
    return all_(same)
