"""logaddexp and logaddexp2, real and complex, as JAX computes them.

log(e**x1 + e**x2) = m + log1p(s), m = max(x1, x2) (lexicographic for complex) held constant
under differentiation, s = e**(x1 - m) + e**(x2 - m) - 1, computed without cancellation as
expm1 of the larger's difference (exactly 0) plus exp of the other's. The value does not
depend on m, so its derivatives are the smooth ones at every order, e**(x1 - out) and
e**(x2 - out) (JAX's custom JVP), ties x1 = x2 included.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.lax.core import apply1
from tf8.lax.stop import stop_gradient
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._arithmetic import add, computed, fmod, imag, maximum, multiply, real, subtract, wrapped
from ._core import ArrayLike, broadcast_arrays, inexact, promote
from ._float_ufuncs import exp, exp2, expm1, isfinite, isnan, log1p
from ._logic import equal, less, where
from ._math import strong_unless_scalar

_LN2 = math.log(2.0)


def _wrap(x: TracedTensor, half: float) -> TracedTensor:
    """`x` wrapped into [-half, half) (JAX's `_wrap_between`: the imaginary part of the
    complex logarithm kept on its principal branch)."""
    rem = fmod(add(x, half), 2 * half)
    return subtract(where(less(rem, 0), add(rem, 2 * half), rem), half)


def _log_add(
    x1: ArrayLike,
    x2: ArrayLike,
    grow: Callable[[Any], TracedTensor],
    power: Callable[[Any], TracedTensor],
    scale: float,
) -> TracedTensor:
    """m + scale * log1p(s) in the base whose exponential is `power` (`grow` = power - 1)."""
    a, b = (inexact(x) for x in broadcast_arrays(*promote(x1, x2)))
    if not dt.is_complex(a.dtype) and computed(a, b):  # at once, in numpy
        value = _numpy_log_add(a._value, b._value, scale)  # type: ignore[arg-type]
        weak = a._weak and b._weak and (scale == 1.0 or a.ndim == 0)
        return wrapped(value, a, weak)
    top = maximum(a, b)
    finite = isfinite(top)
    m = stop_gradient(where(finite, top, 0))
    a_safe, b_safe = where(finite, a, 0), where(finite, b, 0)  # no inf - inf in the branch
    da, db = subtract(a_safe, m), subtract(b_safe, m)
    s = where(equal(a_safe, m), add(grow(da), power(db)), add(power(da), grow(db)))
    tail = log1p(s)
    value = add(m, tail if scale == 1.0 else multiply(tail, scale))
    if dt.is_complex(value.dtype):
        parts = [real(value), _wrap(imag(value), math.pi * scale)]
        value = apply1("complex", parts)
        # JAX's formula where the larger operand is not finite
        spread = subtract(add(a, b), multiply(top, 2))
        edge = add(top, multiply(log1p(power(spread)), scale))
    else:  # ±inf or nan: x1 + x2 where they are infinities of one sign (or a nan), else max
        edge = where(isnan(subtract(a, b)), add(a, b), top)
    out = where(finite, value, edge)
    if scale != 1.0 or dt.is_complex(out.dtype):
        # JAX scales by, or wraps with, constants of the result's dtype
        out = strong_unless_scalar(out, out)
    return out


def _numpy_log_add(a: np.ndarray, b: np.ndarray, scale: float) -> np.ndarray:
    """`_log_add` of real numpy values, by the same kernels in the same order."""
    with np.errstate(all="ignore"):
        top = np.maximum(a, b)
        finite = np.isfinite(top)
        m = np.where(finite, top, 0)
        a_safe, b_safe = np.where(finite, a, 0), np.where(finite, b, 0)
        da, db = a_safe - m, b_safe - m
        if scale == 1.0:
            s = np.where(a_safe == m, np.expm1(da) + np.exp(db), np.exp(da) + np.expm1(db))
            value = m + np.log1p(s)
        else:
            grown_a, grown_b = np.expm1(da * _LN2), np.expm1(db * _LN2)
            s = np.where(a_safe == m, grown_a + np.exp2(db), np.exp2(da) + grown_b)
            value = m + np.log1p(s) * scale
        edge = np.where(np.isnan(a - b), a + b, top)
        return np.where(finite, value, edge)


def logaddexp(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """log(exp(x1) + exp(x2)) without overflow; complex too (its imaginary part in
    [-pi, pi)), with JAX's derivatives exp(x1 - out), exp(x2 - out)."""
    return _log_add(x1, x2, expm1, exp, 1.0)


def logaddexp2(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """log2(2**x1 + 2**x2) without overflow; complex too (its imaginary part in
    [-pi/log 2, pi/log 2))."""
    return _log_add(x1, x2, lambda d: expm1(multiply(d, _LN2)), exp2, 1.0 / _LN2)
