"""The kernel of ∂g/∂a, g(a, x) = dx/da the implicit derivative of a Gamma(a) draw x (see
`gamma_jvp`, whose ops use it so that gamma draws differentiate twice, as JAX's do).

∂g/∂x has a closed form: with P_x = x^(a-1) e^-x / Γ(a) (P the regularized lower incomplete
gamma function), ∂P_x/∂x = P_x ((a-1)/x - 1) and ∂P_x/∂a = P_x (log x - ψ(a)), so from
g = -P_a / P_x, ∂g/∂x = ψ(a) - log x - g ((a-1)/x - 1).

∂g/∂a needs ∂²P/∂a², which has none: the kernel runs JAX's algorithm (XLA's math.cc, as
`tf8.ops.igamma_grad_kernels` does for g itself) carrying second derivatives in a, term by
term, with the same stopping rules, which is what JAX's forward mode through its loops
computes. In the series branch (x <= max(1, a)), g = -x (s' + s L) / a with s the series,
L = log x - ψ(a+1); in the continued-fraction branch g = x (f' + f L) with f the fraction,
L = log x - ψ(a).
"""

from __future__ import annotations

import importlib

import numpy as np

_CF_STEPS = 2000
_SERIES_STEPS = 20_000


def _series(a: np.ndarray, x: np.ndarray, eps: float):
    """(s, ∂s/∂a, ∂²s/∂a²) of s = Σ_k x^k / ((a+1)...(a+k)), JAX's stopping rule."""
    s, ds, dds = np.ones_like(a), np.zeros_like(a), np.zeros_like(a)
    r, c, dc, ddc = a.copy(), np.ones_like(a), np.zeros_like(a), np.zeros_like(a)
    live = np.arange(a.size)
    for _ in range(_SERIES_STEPS):
        if live.size == 0:
            break
        xs, rs = x[live], r[live] + 1
        cs, dcs, ddcs = c[live], dc[live], ddc[live]
        ratio = xs / rs
        ddcs = ddcs * ratio - 2 * dcs * ratio / rs + 2 * cs * ratio / (rs * rs)
        dcs = dcs * ratio - cs * ratio / rs
        cs = cs * ratio
        r[live], c[live], dc[live], ddc[live] = rs, cs, dcs, ddcs
        s[live] += cs
        ds[live] += dcs
        dds[live] += ddcs
        live = live[np.abs(dcs / ds[live]) > eps]
    return s, ds, dds


def _continued_fraction(a: np.ndarray, x: np.ndarray, eps: float):
    """(f, ∂f/∂a, ∂²f/∂a²) of the continued fraction of Q(a, x) / (x^a e^-x / Γ(a)),
    JAX's recurrence, rescaling and stopping rule (on the first derivative)."""
    y = 1 - a
    z = x + y + 1
    p2, q2, p1, q1 = np.ones_like(x), x.copy(), x + 1, z * x
    dp2, dq2, dp1, dq1 = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x), -x
    ddp2, ddq2, ddp1, ddq1 = (np.zeros_like(x) for _ in range(4))
    f = p1 / q1
    df = (dp1 - f * dq1) / q1
    ddf = (ddp1 - 2 * df * dq1 - f * ddq1) / q1
    state = [y, z, p1, q1, p2, q2, dp2, dq2, dp1, dq1, ddp2, ddq2, ddp1, ddq1]
    big = 1 / eps
    live = np.arange(a.size)
    for step in range(1, _CF_STEPS + 1):
        if live.size == 0:
            break
        c = float(step)
        y, z, p1, q1, p2, q2, dp2, dq2, dp1, dq1, ddp2, ddq2, ddp1, ddq1 = (s[live] for s in state)
        y, z = y + 1, z + 2
        yc = y * c
        pk, qk = p1 * z - p2 * yc, q1 * z - q2 * yc
        dpk = dp1 * z - p1 - dp2 * yc + p2 * c
        dqk = dq1 * z - q1 - dq2 * yc + q2 * c
        ddpk = ddp1 * z - 2 * dp1 - ddp2 * yc + 2 * dp2 * c
        ddqk = ddq1 * z - 2 * dq1 - ddq2 * yc + 2 * dq2 * c
        nonzero = qk != 0
        safe = np.where(nonzero, qk, 1)
        f_new = np.where(nonzero, pk / safe, f[live])
        df_old = df[live]
        df_new = np.where(nonzero, (dpk - f_new * dqk) / safe, df_old)
        ddf_new = np.where(nonzero, (ddpk - 2 * df_new * dqk - f_new * ddqk) / safe, ddf[live])
        moved = np.where(nonzero, np.abs(df_new - df_old), 1)
        p2, p1, q2, q1 = p1, pk, q1, qk
        dp2, dq2, dp1, dq1 = dp1, dq1, dpk, dqk
        ddp2, ddq2, ddp1, ddq1 = ddp1, ddq1, ddpk, ddqk
        rescale = np.abs(pk) > big
        scaled = [
            np.where(rescale, v * eps, v)
            for v in (p1, q1, p2, q2, dp2, dq2, dp1, dq1, ddp2, ddq2, ddp1, ddq1)
        ]
        for s, v in zip(state, (y, z, *scaled)):
            s[live] = v
        f[live], df[live], ddf[live] = f_new, df_new, ddf_new
        live = live[moved > eps]
    return f, df, ddf


def gamma_grad_da(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """∂g/∂a of g(a, x) = dx/da (JAX's random_gamma_grad), elementwise, in a's dtype."""
    special = importlib.import_module("scipy.special")
    shape = np.broadcast_shapes(np.shape(a), np.shape(x))
    dtype = np.result_type(a, x)
    a = np.broadcast_to(a, shape).astype(np.float64).ravel()
    x = np.broadcast_to(x, shape).astype(np.float64).ravel()
    out = np.zeros_like(a)
    eps = float(np.finfo(np.float64).eps)
    with np.errstate(all="ignore"):
        log_ax = a * np.log(x) - x - special.gammaln(a)
        bad = np.isnan(a) | np.isnan(x) | (x < 0) | (a <= 0)
        enabled = ~(bad | (x == 0) | (log_ax < -np.log(np.finfo(np.float64).max)))
        use_cf = (x > 1) & (x > a)
        for continued_fraction in (True, False):
            at = np.flatnonzero(enabled & (use_cf == continued_fraction))
            if at.size:
                out[at] = _branch(a[at], x[at], eps, continued_fraction)
        out[bad] = np.nan
    return out.reshape(shape).astype(dtype, copy=False)


def _branch(a: np.ndarray, x: np.ndarray, eps: float, continued_fraction: bool) -> np.ndarray:
    special = importlib.import_module("scipy.special")
    if continued_fraction:
        f, df, ddf = _continued_fraction(a, x, eps)
        log_term = np.log(x) - special.psi(a)
        return x * (ddf + df * log_term - f * special.polygamma(1, a))
    s, ds, dds = _series(a, x, eps)
    log_term = np.log(x) - special.psi(a + 1)
    g = -x * (ds + s * log_term) / a
    return -x / a * (dds + ds * log_term - s * special.polygamma(1, a + 1)) - g / a
