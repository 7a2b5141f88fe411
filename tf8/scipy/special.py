"""tf8.scipy.special: scipy.special's functions that compose from tf8.numpy (as jax.scipy.special).

`erfc` and `log_ndtr` stay accurate in the far tail, where 1 - erf(x) has cancelled to 0:
for x >= 2.5 they use the continued fraction erfc(x) = exp(-x²) / √π · 1 / (x + (1/2) / (x +
1 / (x + (3/2) / (x + ...)))), whose scaled factor never underflows, so log_ndtr works in
log space down to x = -1e150. The gamma, beta, Bessel and inverse-normal functions rest on
tf8's special-function rows (`tf8.lax.lgamma`, `digamma`, `polygamma`, `igamma`, `betainc`,
`bessel_i0e`, `ndtri`, `erf_inv`), whose kernels are scipy's own. scipy.special's ufuncs called
on traced values (`scipy.special.gammaln(t)`) land here through `for_scipy_ufunc`.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import tf8.numpy as tnp
from tf8 import lax
from tf8.ops import dtypes as dt
from tf8.scipy import _logsumexp
from tf8.traced import TracedTensor

__all__ = [
    "beta",
    "betainc",
    "betaln",
    "boxcox",
    "boxcox1p",
    "comb",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "expit",
    "factorial",
    "gamma",
    "gammainc",
    "gammaincc",
    "gammaln",
    "gammasgn",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "kl_div",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "poch",
    "polygamma",
    "rel_entr",
    "softmax",
    "xlog1py",
    "xlogy",
    "zeta",
]

erf = tnp.erf
expit = tnp.logistic
logsumexp = _logsumexp.logsumexp

_TAIL = 2.5  # from here on the continued fraction (32 terms) is within 2e-14 of erfc
_TERMS = 32
_LOG_SQRT_PI = 0.5 * math.log(math.pi)


def _inexact(x: Any) -> TracedTensor:
    """x in an inexact dtype (ints and bools → float64), as scipy's float functions."""
    x = tnp.asarray(x)
    return x if dt.is_inexact(x.dtype) else tnp.astype(x, tnp.float64)


def _log_tail_factor(z: TracedTensor) -> TracedTensor:
    """log(erfc(z) · exp(z²)) for z >= _TAIL, by the continued fraction evaluated bottom-up."""
    denominator = z
    for k in range(_TERMS, 0, -1):
        denominator = z + (k / 2) / denominator
    return -tnp.log(denominator) - _LOG_SQRT_PI


def _split_tail(x: TracedTensor) -> tuple[TracedTensor, TracedTensor, TracedTensor]:
    """(in_tail, x for the near branch, x for the tail branch), each branch fed safe inputs."""
    in_tail = x >= _TAIL
    return in_tail, tnp.where(in_tail, 0.0, x), tnp.where(in_tail, x, _TAIL)


def erfc(x: Any) -> TracedTensor:
    """1 - erf(x), accurate where it is tiny (x >= 2.5 by continued fraction)."""
    x = _inexact(x)
    in_tail, near, far = _split_tail(x)
    tail = tnp.exp(_log_tail_factor(far) - far * far)
    return tnp.where(in_tail, tail, 1 - tnp.erf(near))


def _log_erfc(x: TracedTensor) -> TracedTensor:
    in_tail, near, far = _split_tail(x)
    return tnp.where(in_tail, _log_tail_factor(far) - far * far, tnp.log(1 - tnp.erf(near)))


def ndtr(x: Any) -> TracedTensor:
    """The standard normal CDF, Φ(x) = erfc(-x / √2) / 2."""
    return 0.5 * erfc(-tnp.asarray(x) / math.sqrt(2))


def log_ndtr(x: Any) -> TracedTensor:
    """log Φ(x): log1p(-Φ(-x)) for x > 0, log(erfc(-x / √2) / 2) in log space otherwise."""
    x = _inexact(x)
    positive = x > 0
    upper = tnp.where(positive, x, 0.0)
    lower = tnp.where(positive, 0.0, x)
    return tnp.where(
        positive,
        tnp.log1p(-ndtr(-upper)),
        _log_erfc(-lower / math.sqrt(2)) - math.log(2),
    )


def logit(x: Any) -> TracedTensor:
    """log(x / (1 - x)), the inverse of expit."""
    x = _inexact(x)
    return tnp.log(x) - tnp.log1p(-x)


def xlogy(x: Any, y: Any) -> TracedTensor:
    """x · log(y), 0 where x is 0 (whatever y), with derivatives that stay finite there."""
    x, y = tnp.broadcast_arrays(tnp.asarray(x), tnp.asarray(y))
    zero = x == 0
    return tnp.where(zero, 0.0, x * tnp.log(tnp.where(zero, 1.0, y)))


def xlog1py(x: Any, y: Any) -> TracedTensor:
    """x · log1p(y), 0 where x is 0 (whatever y)."""
    x, y = tnp.broadcast_arrays(tnp.asarray(x), tnp.asarray(y))
    zero = x == 0
    return tnp.where(zero, 0.0, x * tnp.log1p(tnp.where(zero, 0.0, y)))


def entr(x: Any) -> TracedTensor:
    """-x · log(x) for x > 0, 0 at 0, -inf for x < 0 (scipy's elementwise entropy)."""
    x = tnp.asarray(x)
    positive = x > 0
    safe = tnp.where(positive, x, 1.0)
    return tnp.where(positive, -safe * tnp.log(safe), tnp.where(x == 0, 0.0, -math.inf))


def softmax(x: Any, axis: int | tuple[int, ...] | None = None) -> TracedTensor:
    """scipy's softmax: over all axes unless `axis` is given."""
    return _logsumexp.softmax(x, axis=axis)


def log_softmax(x: Any, axis: int | tuple[int, ...] | None = None) -> TracedTensor:
    """scipy's log_softmax: over all axes unless `axis` is given."""
    return _logsumexp.log_softmax(x, axis=axis)


# --- on the special-function rows ---------------------------------------------------------------


def _floats(*xs: Any) -> list[TracedTensor]:
    """The operands broadcast to one shape in one float dtype (ints → float64)."""
    arrays = tnp.broadcast_arrays(*[_inexact(x) for x in xs])
    dtype = tnp.result_type(*arrays)
    return [tnp.astype(a, dtype) for a in arrays]


def erfinv(x: Any) -> TracedTensor:
    """The inverse error function on (-1, 1)."""
    return lax.erf_inv(_inexact(x))


def ndtri(p: Any) -> TracedTensor:
    """The inverse of ndtr (the standard normal quantile), accurate in both tails."""
    return lax.ndtri(_inexact(p))


def gammaln(x: Any) -> TracedTensor:
    """log |Γ(x)|."""
    return lax.lgamma(_inexact(x))


def digamma(x: Any) -> TracedTensor:
    """ψ(x) = d/dx log Γ(x)."""
    return lax.digamma(_inexact(x))


def polygamma(n: Any, x: Any) -> TracedTensor:
    """The n-th derivative of digamma (n a non-negative whole number; NaN otherwise)."""
    return lax.polygamma(*_floats(n, x))


def zeta(x: Any, q: Any = None) -> TracedTensor:
    """The Hurwitz zeta function sum_k (k + q)**-x (Riemann's when q is None, i.e. q = 1);
    differentiable in q, not in x (as JAX)."""
    return lax.zeta(*_floats(x, 1.0 if q is None else q))


def gammainc(a: Any, x: Any) -> TracedTensor:
    """The regularized lower incomplete gamma function P(a, x)."""
    return lax.igamma(*_floats(a, x))


def gammaincc(a: Any, x: Any) -> TracedTensor:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return lax.igammac(*_floats(a, x))


def betainc(a: Any, b: Any, x: Any) -> TracedTensor:
    """The regularized incomplete beta function I_x(a, b)."""
    return lax.betainc(*_floats(a, b, x))


def gammasgn(x: Any) -> TracedTensor:
    """The sign of Γ(x): 1 for x > 0, (-1)^ceil(-x) below (NaN at the poles, ±1 at ±0)."""
    x = _inexact(x)
    odd = tnp.remainder(tnp.floor(x), 2) == 1
    negative = tnp.where(odd, -1.0, 1.0)
    sign = tnp.where(x > 0, 1.0, tnp.where(x == 0, tnp.where(tnp.signbit(x), -1.0, 1.0), negative))
    pole = (x < 0) & (x == tnp.floor(x))
    return tnp.astype(tnp.where(pole, math.nan, sign), x.dtype)


def gamma(x: Any) -> TracedTensor:
    """Γ(x) = gammasgn(x) exp(gammaln(x)) (NaN at the negative integers, as scipy)."""
    x = _inexact(x)
    return gammasgn(x) * tnp.exp(gammaln(x))


def betaln(a: Any, b: Any) -> TracedTensor:
    """log |B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b)."""
    a, b = _floats(a, b)
    return gammaln(a) + gammaln(b) - gammaln(a + b)


def beta(a: Any, b: Any) -> TracedTensor:
    """B(a, b) = Γ(a) Γ(b) / Γ(a + b), through its logarithm (no overflow in between)."""
    a, b = _floats(a, b)
    return gammasgn(a) * gammasgn(b) * gammasgn(a + b) * tnp.exp(betaln(a, b))


def poch(z: Any, m: Any) -> TracedTensor:
    """The rising factorial Γ(z + m) / Γ(z)."""
    z, m = _floats(z, m)
    return gammasgn(z + m) * gammasgn(z) * tnp.exp(gammaln(z + m) - gammaln(z))


def factorial(n: Any, exact: bool = False) -> TracedTensor:
    """n! = Γ(n + 1) (0 for negative n); exact=True is not supported (as in JAX)."""
    if exact:
        raise ValueError("factorial: exact=True is not supported on traced values (as in JAX)")
    n = _inexact(n)
    return tnp.where(n < 0, 0.0, gamma(tnp.where(n < 0, 0.0, n) + 1))


def multigammaln(a: Any, d: int) -> TracedTensor:
    """The log of the multivariate gamma function of dimension d (a static int)."""
    if not isinstance(d, int) or d < 1:
        raise ValueError(f"multigammaln: d must be a positive int, got {d!r}")
    a = _inexact(a)
    total = gammaln(a)
    for j in range(1, d):
        total = total + gammaln(a - j / 2)
    return total + d * (d - 1) / 4 * math.log(math.pi)


def i0e(x: Any) -> TracedTensor:
    """exp(-|x|) I0(x), the exponentially scaled modified Bessel function of order 0."""
    return lax.bessel_i0e(_inexact(x))


def i1e(x: Any) -> TracedTensor:
    """exp(-|x|) I1(x), the exponentially scaled modified Bessel function of order 1."""
    return lax.bessel_i1e(_inexact(x))


def i0(x: Any) -> TracedTensor:
    """I0(x), the modified Bessel function of order 0."""
    x = _inexact(x)
    return tnp.exp(tnp.abs(x)) * i0e(x)


def i1(x: Any) -> TracedTensor:
    """I1(x), the modified Bessel function of order 1."""
    x = _inexact(x)
    return tnp.exp(tnp.abs(x)) * i1e(x)


def comb(N: Any, k: Any, *, exact: bool = False, repetition: bool = False) -> TracedTensor:
    """N choose k through gammaln (0 outside 0 <= k <= N); `repetition=True` counts
    multisets, comb(N + k - 1, k). exact=True is not supported (as in JAX)."""
    if exact:
        raise ValueError("comb: exact=True is not supported on traced values (as in JAX)")
    N, k = _floats(N, k)
    if repetition:
        N = N + k - 1
    inside = (k >= 0) & (k <= N) & (N >= 0)
    n_safe, k_safe = tnp.where(inside, N, 1.0), tnp.where(inside, k, 0.0)
    log_comb = gammaln(n_safe + 1) - gammaln(k_safe + 1) - gammaln(n_safe - k_safe + 1)
    return tnp.where(inside, tnp.exp(log_comb), 0.0)


def erfcx(x: Any) -> TracedTensor:
    """The scaled complementary error function exp(x²) erfc(x), finite for large x (by the
    continued fraction erfc uses in its tail)."""
    x = _inexact(x)
    in_tail, near, far = _split_tail(x)
    return tnp.where(in_tail, tnp.exp(_log_tail_factor(far)), tnp.exp(near * near) * erfc(near))


def _boxcox(log_x: TracedTensor, lmbda: TracedTensor) -> TracedTensor:
    zero = tnp.abs(lmbda) < 1e-19  # scipy's cut: below it lmbda * log(x) underflows
    zero = zero | (log_x == 0)
    safe = tnp.where(zero, 1.0, lmbda)
    return tnp.where(zero, log_x, tnp.expm1(safe * log_x) / safe)


def boxcox(x: Any, lmbda: Any) -> TracedTensor:
    """The Box-Cox transform (x**lmbda - 1) / lmbda, log(x) at lmbda = 0."""
    x, lmbda = _floats(x, lmbda)
    return _boxcox(tnp.log(x), lmbda)


def boxcox1p(x: Any, lmbda: Any) -> TracedTensor:
    """boxcox(1 + x, lmbda), accurate for small x."""
    x, lmbda = _floats(x, lmbda)
    return _boxcox(tnp.log1p(x), lmbda)


def rel_entr(x: Any, y: Any) -> TracedTensor:
    """x log(x / y) for x, y > 0; 0 at x = 0 <= y; inf otherwise (scipy's)."""
    x, y = _floats(x, y)
    both = (x > 0) & (y > 0)
    safe_x, safe_y = tnp.where(both, x, 1.0), tnp.where(both, y, 1.0)
    inside = safe_x * (tnp.log(safe_x) - tnp.log(safe_y))
    return tnp.where(both, inside, tnp.where((x == 0) & (y >= 0), 0.0, math.inf))


def kl_div(x: Any, y: Any) -> TracedTensor:
    """x log(x / y) - x + y for x, y > 0; y at x = 0 <= y; inf otherwise (scipy's)."""
    x, y = _floats(x, y)
    both = (x > 0) & (y > 0)
    return tnp.where(both, rel_entr(x, y) - x + y, tnp.where((x == 0) & (y >= 0), y, math.inf))


# scipy.special ufuncs whose tf8 function has another name (the others share theirs).
_UFUNC_NAMES = {"psi": "digamma"}


def for_scipy_ufunc(ufunc: Any) -> Any:
    """The tf8.scipy.special function for a scipy.special ufunc, or None (not one of them)."""
    name = getattr(ufunc, "__name__", "")
    ours = _UFUNC_NAMES.get(name, name)
    if ours not in __all__:
        return None
    special = sys.modules.get("scipy.special")
    if special is None or getattr(special, name, None) is not ufunc:
        return None
    return globals()[ours]
