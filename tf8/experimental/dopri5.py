"""Dormand–Prince 5(4) with adaptive steps and 4th-order dense output (JAX's odeint solver).

Works on one flat state vector `y` (shape (n,)); `func(y, t)` returns dy/dt. The step-size
control, initial step and interpolation follow Hairer, Nørsett & Wanner, Solving ODEs I
(Sec. II.4), exactly as `jax.experimental.ode`, so the two take the same steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.traced import TracedTensor

Func = Callable[[TracedTensor, TracedTensor], TracedTensor]

# The Butcher tableau: stage i (1..6) is evaluated at t + ALPHA[i-1] dt on y + dt BETA[i-1]·k.
ALPHA = (1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
BETA = (
    (1 / 5,),
    (3 / 40, 9 / 40),
    (44 / 45, -56 / 15, 32 / 9),
    (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
    (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
    (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84),
)
C_SOLUTION = (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0)
C_ERROR = (
    35 / 384 - 1951 / 21600,
    0.0,
    500 / 1113 - 22642 / 50085,
    125 / 192 - 451 / 720,
    -2187 / 6784 - -12231 / 42400,
    11 / 84 - 649 / 6300,
    -1.0 / 60.0,
)
# The solution at the step's midpoint, for the interpolating polynomial.
C_MID = (
    6025192743 / 30085553152 / 2,
    0.0,
    51252292925 / 65400821598 / 2,
    -2691868925 / 45128329728 / 2,
    187940372067 / 1594534317056 / 2,
    -1776094331 / 19743644256 / 2,
    11237099 / 235043384 / 2,
)


def combine(coefficients: tuple[float, ...], k: list[TracedTensor]) -> TracedTensor:
    """sum_j coefficients[j] * k[j], skipping the tableau's zeros."""
    terms = [c * kj for c, kj in zip(coefficients, k) if c != 0.0]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def norm(x: TracedTensor) -> TracedTensor:
    return tnp.sqrt(tnp.sum(x * x))


def initial_step_size(
    func: Func, t0: Any, y0: Any, order: int, rtol: float, atol: float, f0: Any
) -> TracedTensor:
    """Hairer, Nørsett & Wanner's starting step for a method of the given order."""
    scale = atol + tnp.abs(y0) * rtol
    d0, d1 = norm(y0 / scale), norm(f0 / scale)
    h0 = tnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = func(y0 + h0 * f0, t0 + h0.astype(t0.dtype))
    d2 = norm((f1 - f0) / scale) / h0
    h1 = tnp.where(
        (d1 <= 1e-15) & (d2 <= 1e-15),
        tnp.maximum(1e-6, h0 * 1e-3),
        (0.01 / tnp.maximum(d1, d2)) ** (1.0 / (order + 1.0)),
    )
    return tnp.minimum(100.0 * h0, h1)


def runge_kutta_step(
    func: Func, y0: Any, f0: Any, t0: Any, dt: Any
) -> tuple[TracedTensor, TracedTensor, TracedTensor, list[TracedTensor]]:
    """One dopri5 step: (y1, f1 = func(y1, t1), the error estimate, the stages k)."""
    h = dt.astype(y0.dtype)
    k = [f0]
    for alpha, beta in zip(ALPHA, BETA):
        k.append(func(y0 + h * combine(beta, k), t0 + dt * alpha))
    y1 = y0 + h * combine(C_SOLUTION, k)
    return y1, k[-1], h * combine(C_ERROR, k), k


def mean_error_ratio(error: Any, rtol: float, atol: float, y0: Any, y1: Any) -> TracedTensor:
    tolerance = atol + rtol * tnp.maximum(tnp.abs(y0), tnp.abs(y1))
    ratio = error / tolerance
    return tnp.sqrt(tnp.mean(ratio * ratio))


def optimal_step_size(
    last_step: Any,
    error_ratio: Any,
    safety: float = 0.9,
    ifactor: float = 10.0,
    dfactor: float = 0.2,
    order: float = 5.0,
) -> TracedTensor:
    """The next step from the last one and its error ratio (shrink at most 5x, grow 10x)."""
    ratio = error_ratio.astype(last_step.dtype)
    dfactor_ = tnp.where(ratio < 1, 1.0, dfactor)
    factor = tnp.minimum(ifactor, tnp.maximum(ratio ** (-1.0 / order) * safety, dfactor_))
    return tnp.where(ratio == 0, last_step * ifactor, last_step * factor)


def interpolation_coefficients(
    y0: Any, y1: Any, k: list[TracedTensor], dt: Any
) -> tuple[TracedTensor, ...]:
    """(a, b, c, d, e) of the quartic a s^4 + ... + e through the step, s in [0, 1]."""
    h = dt.astype(y0.dtype)
    y_mid = y0 + h * combine(C_MID, k)
    dy0, dy1 = h * k[0], h * k[-1]
    a = -2.0 * dy0 + 2.0 * dy1 - 8.0 * y0 - 8.0 * y1 + 16.0 * y_mid
    b = 5.0 * dy0 - 3.0 * dy1 + 18.0 * y0 + 14.0 * y1 - 32.0 * y_mid
    c = -4.0 * dy0 + dy1 - 11.0 * y0 - 5.0 * y1 + 16.0 * y_mid
    return a, b, c, dy0, y0


def polyval(coefficients: tuple[TracedTensor, ...], s: Any) -> TracedTensor:
    """Horner's rule, highest power first (numpy.polyval's order)."""
    total = coefficients[0]
    for c in coefficients[1:]:
        total = total * s + c
    return total


def integrate(
    func: Func,
    y0: TracedTensor,
    ts: TracedTensor,
    rtol: float,
    atol: float,
    mxstep: float,
    hmax: float,
) -> TracedTensor:
    """The solution at each time of `ts` (shape (len(ts), n)); a scan over the output times,
    each a while_loop of accepted or rejected steps."""

    def advance(carry: list, target_t: TracedTensor) -> tuple[list, TracedTensor]:
        def keep_going(state: list) -> TracedTensor:
            i, _, _, t, dt, _, _ = state
            going = (t < target_t) & (dt > 0)
            return going & (i < mxstep) if np.isfinite(mxstep) else going

        def step(state: list) -> list:
            i, y, f, t, dt, last_t, coefficients = state
            next_y, next_f, error, k = runge_kutta_step(func, y, f, t, dt)
            ratio = mean_error_ratio(error, rtol, atol, y, next_y)
            new_coefficients = interpolation_coefficients(y, next_y, k, dt)
            next_dt = tnp.clip(optimal_step_size(dt, ratio), 0.0, hmax)
            accept = ratio <= 1.0
            new = [next_y, next_f, t + dt, t, new_coefficients]
            old = [y, f, t, last_t, coefficients]
            y, f, t, last_t, coefficients = [tree_where(accept, a, b) for a, b in zip(new, old)]
            return [i + 1, y, f, t, next_dt, last_t, coefficients]

        state = lax.while_loop(keep_going, step, [np.int64(0), *carry])
        _, y, f, t, dt, last_t, coefficients = state
        s = (target_t - last_t) / (t - last_t)
        return [y, f, t, dt, last_t, coefficients], polyval(coefficients, s.astype(y.dtype))

    t0 = ts[0]
    f0 = func(y0, t0)
    dt = initial_step_size(func, t0, y0, 4, rtol, atol, f0).astype(ts.dtype)
    dt = tnp.clip(dt, 0.0, hmax)
    carry = [y0, f0, t0, dt, t0, (y0,) * 5]
    _, ys = lax.scan(advance, carry, ts[1:])
    return tnp.concatenate([y0[None], ys])


def tree_where(condition: Any, a: Any, b: Any) -> Any:
    """where(condition, a, b) leaf by leaf."""
    if isinstance(a, tuple):
        return tuple(tnp.where(condition, x, y) for x, y in zip(a, b))
    return tnp.where(condition, a, b)
