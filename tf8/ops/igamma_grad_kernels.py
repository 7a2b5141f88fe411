"""numpy kernels of the shape-parameter derivatives of the incomplete gamma function:
`igamma_grad_a(a, x)` = ∂P(a, x)/∂a, and `random_gamma_grad(a, x)` = the implicit derivative
dx/da of a Gamma(a) draw x (the quantile held fixed) = -(∂P/∂a) / (∂P/∂x), P the regularized
lower incomplete gamma function.

JAX's algorithm (XLA's math.cc), vectorised: the power series of P for x <= max(1, a), the
continued fraction of Q = 1 - P otherwise, each iterated on the elements that have not yet
converged (the others are dropped from the working arrays, as JAX's loops leave them unchanged),
differentiated in `a` term by term. The continued fraction stops after 2000 steps, as JAX's; the
series (JAX: unbounded) after 20 000 terms, enough for a <= 10**6 at x = a in float64. NaN for
x < 0, a <= 0 or NaN operands; 0 at x = 0. float16 and float32 are computed in float64 and
rounded, as tf8's scipy.special rows are (JAX iterates in float32, so its float32 answers
differ from these in the last digits, and by more where a log x - x - lgamma(a) cancels).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

_CF_STEPS = 2000
_SERIES_STEPS = 20_000


def _scipy_special() -> Any:
    return importlib.import_module("scipy.special")


def _series(a: np.ndarray, x: np.ndarray, live: np.ndarray, eps: Any):
    """The series sum_k x**k / ((a+1)...(a+k)) and its derivative in a, iterated at the
    indices `live` (the other elements keep the starting values 1 and 0, as in JAX)."""
    ans, dans_da = np.ones_like(a), np.zeros_like(a)
    r, c, dc_da = a.copy(), np.ones_like(a), np.zeros_like(a)
    for _ in range(_SERIES_STEPS):
        if live.size == 0:
            break
        xs, rs = x[live], r[live] + 1
        cs, dcs = c[live], dc_da[live]
        dcs = dcs * (xs / rs) - (cs * xs) / (rs * rs)
        dans = dans_da[live] + dcs
        cs = cs * (xs / rs)
        r[live], c[live], dc_da[live], dans_da[live] = rs, cs, dcs, dans
        ans[live] += cs
        live = live[np.abs(dcs / dans) > eps]
    return ans, dans_da


def _continued_fraction(a: np.ndarray, x: np.ndarray, live: np.ndarray, eps: Any):
    """The continued fraction of Q(a, x) / (x**a e**-x / Gamma(a)) and its derivative in a,
    iterated at the indices `live` (the others keep the starting values)."""
    dtype = a.dtype
    y = 1 - a
    z = x + y + 1
    pkm2, qkm2 = np.ones_like(x), x.copy()
    pkm1, qkm1 = x + 1, z * x
    ans = pkm1 / qkm1
    dpkm2, dqkm2, dpkm1, dqkm1 = (np.zeros_like(x), np.zeros_like(x), np.zeros_like(x), -x)
    dans_da = (dpkm1 - ans * dqkm1) / qkm1
    state = [y, z, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1]
    big = 1 / eps
    for step in range(1, _CF_STEPS + 1):
        if live.size == 0:
            break
        c = dtype.type(step)
        y, z, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1 = (s[live] for s in state)
        y = y + 1
        z = z + 2
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        nonzero = qk != 0
        ans_live = np.where(nonzero, pk / qk, ans[live])
        dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c
        dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
        old = dans_da[live]
        new = np.where(nonzero, (dpk - ans_live * dqk) / qk, old)
        moved = np.where(nonzero, np.abs(new - old), 1)
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2, dqkm2, dpkm1, dqkm1 = dpkm1, dqkm1, dpk, dqk
        rescale = np.abs(pk) > big
        scaled = [np.where(rescale, v * eps, v) for v in (pkm2, pkm1, qkm2, qkm1)]
        scaled += [np.where(rescale, v * eps, v) for v in (dpkm2, dqkm2, dpkm1, dqkm1)]
        pkm2, pkm1, qkm2, qkm1, dpkm2, dqkm2, dpkm1, dqkm1 = scaled
        for s, v in zip(state, (y, z, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1)):
            s[live] = v
        ans[live], dans_da[live] = ans_live, new
        live = live[moved > eps]
    return ans, dans_da


def _derivative(a: np.ndarray, x: np.ndarray, sample: bool) -> np.ndarray:
    """∂P/∂a (`sample` False) or -(∂P/∂a)/(∂P/∂x) (`sample` True), elementwise."""
    shape = np.broadcast_shapes(a.shape, x.shape)
    dtype = np.result_type(a, x)
    a = np.broadcast_to(a, shape).astype(np.float64).ravel()
    x = np.broadcast_to(x, shape).astype(np.float64).ravel()
    special = _scipy_special()
    eps = np.finfo(np.float64).eps
    with np.errstate(all="ignore"):
        is_nan = np.isnan(a) | np.isnan(x)
        x_is_zero = x == 0
        domain_error = (x < 0) | (a <= 0)
        use_cf = (x > 1) & (x > a)
        log_ax = a * np.log(x) - x - special.gammaln(a)
        underflow = log_ax < -np.log(np.finfo(np.float64).max)
        ax = np.exp(log_ax)
        enabled = ~(x_is_zero | domain_error | underflow | is_nan)
        cf = np.flatnonzero(use_cf)
        series = np.flatnonzero(~use_cf)
        s, ds = _series(a[series], x[series], np.flatnonzero(enabled[series]), eps)
        f, df = _continued_fraction(a[cf], x[cf], np.flatnonzero(enabled[cf]), eps)
        a_s, x_s, a_f, x_f = a[series], x[series], a[cf], x[cf]
        s_dlogax = np.log(x_s) - special.psi(a_s + 1)
        f_dlogax = np.log(x_f) - special.psi(a_f)
        out = np.empty_like(a)
        if sample:
            out[series] = -(ds + s * s_dlogax) * x_s / a_s
            out[cf] = (df + f * f_dlogax) * x_f
        else:
            out[series] = ax[series] * (s * s_dlogax + ds) / a_s
            out[cf] = -ax[cf] * (f * f_dlogax + df)
        out[x_is_zero] = 0
        out[domain_error | is_nan] = np.nan
    return out.reshape(shape).astype(dtype, copy=False)


def igamma_grad_a_kernel(op: Any, a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """∂P(a, x)/∂a, P the regularized lower incomplete gamma function (JAX's igamma_grad_a)."""
    return _derivative(a, x, sample=False)


def random_gamma_grad_kernel(op: Any, a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """dx/da of a Gamma(a) draw x: -(∂P/∂a)/(∂P/∂x) (JAX's random_gamma_grad)."""
    return _derivative(a, x, sample=True)
