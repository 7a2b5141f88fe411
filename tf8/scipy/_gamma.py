"""scipy.special's gamma family, as jax.scipy.special computes it: gammaln, gammasgn, gamma,
betaln (with scipy's algdiv for large arguments, as JAX), beta, poch, factorial, comb,
multigammaln, digamma, polygamma, zeta, gammainc, gammaincc and betainc, on tf8's special-function
rows. Arguments are promoted as JAX's promote_args_inexact (int32 and bool → float32, Python
scalars weak); results JAX builds from typed constants are strongly typed, as in JAX."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import DTypeError, ParameterError, UnsupportedOperationError
from tf8.numpy._core import in_float64, inexact, promote
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor


def args_inexact(name: str, *xs: Any, complex_ok: bool = True) -> list[TracedTensor]:
    """JAX's promote_args_inexact: one dtype (JAX's lattice, weak types kept), inexact; a
    DTypeError naming `name` for complex operands where JAX refuses them."""
    out = [inexact(x) for x in promote(*xs)]
    if not complex_ok and out and out[0].dtype.kind == "c":
        raise DTypeError(f"{name} does not support complex-valued inputs, got {out[0].dtype}")
    return out


def broadcast(*xs: TracedTensor) -> list[TracedTensor]:
    return tnp.broadcast_arrays(*xs)


def strong(x: TracedTensor) -> TracedTensor:
    """x (a fresh result) strongly typed: JAX's typed constants make its result strong."""
    x._weak = False
    return x


def const(x: TracedTensor, value: float) -> TracedTensor:
    """`value` as a strongly typed scalar of x's dtype (JAX's _lax_const)."""
    return tnp.asarray(np.asarray(value, x.dtype))


def gammaln(x: Any) -> TracedTensor:
    """log |Γ(x)|."""
    (x,) = args_inexact("gammaln", x)
    return lax.lgamma(x)


def gammasgn(x: Any) -> TracedTensor:
    """The sign of Γ(x): NaN at the poles, -inf and NaN; -1 where Γ < 0 and at -0; else 1."""
    (x,) = args_inexact("gammasgn", x, complex_ok=False)
    floor_x = tnp.floor(x)
    negative = x < 0
    nan = (negative & (x == floor_x)) | tnp.isnan(x)
    minus = (negative & (tnp.remainder(floor_x, 2) != 0)) | ((x == 0) & tnp.signbit(x))
    return tnp.where(nan, const(x, np.nan), tnp.where(minus, const(x, -1.0), const(x, 1.0)))


def gamma(x: Any) -> TracedTensor:
    """Γ(x) = gammasgn(x) exp(gammaln(x)) (NaN at the poles, as JAX)."""
    (x,) = args_inexact("gamma", x)
    if x.dtype.kind == "c":
        return _complex_gamma(x)
    return gammasgn(x) * tnp.exp(lax.lgamma(x))


# Lanczos coefficients for g = 7, N = 9 (GSL's, as JAX's complex gamma)
_LANCZOS_G = 7.0
_LANCZOS = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)


def _complex_loggamma(z: TracedTensor) -> TracedTensor:
    """log Γ(z) by Lanczos' approximation, reflected for Re z < 1/2 (JAX's)."""
    reflect = tnp.real(z) < 0.5
    zz = tnp.where(reflect, 1.0 - z, z) - 1.0
    ag = const(z, _LANCZOS[0])
    for k in range(1, 9):
        ag = ag + _LANCZOS[k] / (zz + float(k))
    t = zz + _LANCZOS_G + 0.5
    log_lanczos = 0.5 * math.log(2.0 * math.pi) + (zz + 0.5) * tnp.log(t) - t + tnp.log(ag)
    z_safe = tnp.where(reflect, z, const(z, 0.5))
    reflected = math.log(math.pi) - tnp.log(tnp.sin(math.pi * z_safe)) - log_lanczos
    return tnp.where(reflect, reflected, log_lanczos)


def _complex_gamma(z: TracedTensor) -> TracedTensor:
    """Γ(z) for complex z: exp(log Γ(z)), NaN at the poles and NaNs (JAX's)."""
    re = tnp.real(z)
    pole = (tnp.imag(z) == 0) & (re == tnp.floor(re)) & (re <= 0)
    safe = pole | tnp.isnan(z)
    z_safe = tnp.where(safe, const(z, 1.0), z)
    return tnp.where(safe, const(z, complex(np.nan, np.nan)), tnp.exp(_complex_loggamma(z_safe)))


_ALGDIV = (
    0.833333333333333e-01,
    -0.277777777760991e-02,
    0.793650666825390e-03,
    -0.595202931351870e-03,
    0.837308034031215e-03,
    -0.165322962780713e-02,
)


def _algdiv(a: TracedTensor, b: TracedTensor) -> TracedTensor:
    """log(Γ(b) / Γ(a + b)) for b >= 8 and a <= b (scipy's algdiv, as JAX's betaln)."""
    c0, c1, c2, c3, c4, c5 = _ALGDIV
    h = a / b
    c = h / (1 + h)
    x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * tnp.log1p(a / b)
    v = a * (tnp.log(b) - 1.0)
    return tnp.where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a: Any, b: Any) -> TracedTensor:
    """log |B(a, b)|: lgamma(a) + lgamma(b) - lgamma(a + b) for min(a, b) < 8, else through
    algdiv (JAX's algorithm, from scipy's cdflib)."""
    a, b = broadcast(*args_inexact("betaln", a, b))
    a, b = tnp.minimum(a, b), tnp.maximum(a, b)
    small_b = lax.lgamma(a) + (lax.lgamma(b) - lax.lgamma(a + b))
    large_b = lax.lgamma(a) + _algdiv(a, b)
    return tnp.where(b < 8, small_b, large_b)


def beta(a: Any, b: Any) -> TracedTensor:
    """B(a, b) = Γ(a) Γ(b) / Γ(a + b), through its logarithm (no overflow in between)."""
    a, b = args_inexact("beta", a, b, complex_ok=False)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * tnp.exp(betaln(a, b))


def poch(z: Any, m: Any) -> TracedTensor:
    """The rising factorial Γ(z + m) / Γ(z) (1 at m = 0); float16 and float32 in float64
    (`in_float64`: its derivatives cancel, Γ(z + m)'s against Γ(z)'s)."""
    return in_float64(_poch, *args_inexact("poch", z, m, complex_ok=False))


def _poch(z: TracedTensor, m: TracedTensor) -> TracedTensor:
    return tnp.where(m == 0.0, const(z, 1.0), gamma(z + m) / gamma(z))


def factorial(n: Any, exact: bool = False) -> TracedTensor:
    """n! = Γ(n + 1) (0 for negative n); exact=True is not supported (as in JAX)."""
    if exact:
        raise UnsupportedOperationError("factorial: exact=True is not supported (as in JAX)")
    (n,) = args_inexact("factorial", n)
    return tnp.where(n < 0, 0, tnp.exp(lax.lgamma(n + 1)))


def comb(N: Any, k: Any, *, exact: bool = False, repetition: bool = False) -> TracedTensor:
    """N choose k through gammaln (0 outside 0 <= k <= N); `repetition=True` counts
    multisets, comb(N + k - 1, k) (1 at k = 0 <= N). exact=True is not supported."""
    if exact:
        raise UnsupportedOperationError("comb: exact=True is not supported (as in JAX)")
    N, k = args_inexact("comb", N, k)
    if repetition:
        cond = (k == 0) & (N >= 0)
        return tnp.where(cond, 1.0, comb(N + k - 1, k))
    cond = (k <= N) & (N >= 0) & (k >= 0)
    safe_n, safe_k = tnp.where(cond, N, 0.0), tnp.where(cond, k, 0.0)
    log_comb = gammaln(safe_n + 1) - gammaln(safe_k + 1) - gammaln(safe_n + 1 - safe_k)
    return tnp.where(cond, tnp.exp(log_comb), 0.0)


def multigammaln(a: Any, d: Any) -> TracedTensor:
    """The log of the multivariate gamma function of dimension d (a static int)."""
    if isinstance(d, TracedTensor) or not isinstance(d, (int, np.integer)):
        raise ParameterError(f"multigammaln: d must be a static int, got {d!r}")
    d = int(d)
    a, d_ = args_inexact("multigammaln", a, d)
    constant = 0.25 * d_ * (d_ - 1) * const(a, math.log(math.pi))
    b = tnp.arange(d, dtype=d_.dtype) / 2
    terms = gammaln(tnp.expand_dims(a, -1) - tnp.reshape(b, (1,) * a.ndim + (d,)))
    return tnp.sum(terms, axis=-1) + constant


def digamma(x: Any) -> TracedTensor:
    """ψ(x) = d/dx log Γ(x) (NaN at the poles, as JAX)."""
    (x,) = args_inexact("digamma", x)
    return lax.digamma(x)


def polygamma(n: Any, x: Any) -> TracedTensor:
    """The n-th derivative of digamma; n must have an integer dtype (as in JAX)."""
    n_dtype = tnp.asarray(n).dtype if not isinstance(n, int) or isinstance(n, bool) else None
    if n_dtype is not None and not dt.is_integer(n_dtype):
        raise DTypeError(f"polygamma: n must have an integer dtype, got {n_dtype}")
    n, x = args_inexact("polygamma", n, x, complex_ok=False)
    return lax.polygamma(*broadcast(n, x))


def zeta(x: Any, q: Any = None) -> TracedTensor:
    """The Hurwitz zeta function sum_k (k + q)**-x; JAX has no Riemann zeta (q = None)."""
    if q is None:
        raise UnsupportedOperationError(
            "zeta: the Riemann zeta function (q=None) is not implemented (as in JAX); "
            "pass q=1.0 for the Hurwitz zeta function at q = 1"
        )
    x, q = args_inexact("zeta", x, q)
    return lax.zeta(*broadcast(x, q))


def gammainc(a: Any, x: Any) -> TracedTensor:
    """The regularized lower incomplete gamma function P(a, x)."""
    return lax.igamma(*broadcast(*args_inexact("gammainc", a, x)))


def gammaincc(a: Any, x: Any) -> TracedTensor:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return lax.igammac(*broadcast(*args_inexact("gammaincc", a, x)))


def betainc(a: Any, b: Any, x: Any) -> TracedTensor:
    """The regularized incomplete beta function I_x(a, b)."""
    return lax.betainc(*broadcast(*args_inexact("betainc", a, b, x)))
