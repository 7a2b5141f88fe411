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

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import DTypeError, ParameterError
from tf8.lax.core import apply1
from tf8.numpy._core import in_float64
from tf8.scipy import _logsumexp
from tf8.scipy._gamma import (
    args_inexact,
    beta,
    betainc,
    betaln,
    comb,
    const,
    digamma,
    factorial,
    gamma,
    gammainc,
    gammaincc,
    gammaln,
    gammasgn,
    multigammaln,
    poch,
    polygamma,
    strong,
    zeta,
)
from tf8.scipy._wofz import erfcx_complex
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

_TAIL = 2.5  # from here on the continued fraction (32 terms) is within 2e-14 of erfc
_TERMS = 32
_LOG_SQRT_PI = 0.5 * math.log(math.pi)


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


def _erfc(x: TracedTensor) -> TracedTensor:
    if x.dtype in (np.float16, np.float32):  # 1 - erf(x) cancels: computed in float64
        return tnp.astype(_erfc(tnp.astype(x, np.float64)), x.dtype)
    in_tail, near, far = _split_tail(x)
    tail = tnp.exp(_log_tail_factor(far) - far * far)
    return tnp.where(in_tail, tail, 1 - tnp.erf(near))


def erfc(x: Any) -> TracedTensor:
    """1 - erf(x), accurate where it is tiny (x >= 2.5 by continued fraction)."""
    (x,) = args_inexact("erfc", x, complex_ok=False)
    return _erfc(x)


def _float_only(name: str, x: Any) -> TracedTensor:
    """x as a tensor; JAX's ndtr, ndtri and log_ndtr take float32 and float64 only."""
    x = tnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise DTypeError(f"{name}: x.dtype={x.dtype} is not supported (float32 or float64)")
    return x


def _ndtr(x: TracedTensor) -> TracedTensor:
    half_sqrt_2 = const(x, 0.5 * math.sqrt(2.0))
    w = x * half_sqrt_2
    z = tnp.abs(w)
    tail = tnp.where(w > 0, const(x, 2.0) - _erfc(z), _erfc(z))
    return const(x, 0.5) * tnp.where(z < half_sqrt_2, const(x, 1.0) + tnp.erf(w), tail)


def ndtr(x: Any) -> TracedTensor:
    """The standard normal CDF, Φ(x) (JAX's: erf near 0, erfc in the tails)."""
    return _ndtr(_float_only("ndtr", x))


def ndtri(p: Any) -> TracedTensor:
    """The inverse of ndtr (the standard normal quantile), accurate in both tails."""
    return strong(lax.ndtri(_float_only("ndtri", p)))


_LOG_NDTR_SEGMENTS = {np.dtype(np.float64): (-20.0, 8.0), np.dtype(np.float32): (-10.0, 5.0)}


def _log_ndtr_lower(x: TracedTensor, series_order: int) -> TracedTensor:
    """log Φ(x) for x far below 0, by the asymptotic series (JAX's)."""
    x_2 = x * x
    log_scale = -0.5 * x_2 - tnp.log(-x) - const(x, 0.5 * math.log(2.0 * math.pi))
    even, odd, x_2n = tnp.zeros_like(x), tnp.zeros_like(x), x_2
    for n in range(1, series_order + 1):
        y = float(math.prod(range(2 * n - 1, 0, -2))) / x_2n
        if n % 2:
            odd = odd + y
        else:
            even = even + y
        x_2n = x_2n * x_2
    return log_scale + tnp.log(const(x, 1.0) + even - odd)


def log_ndtr(x: Any, series_order: int = 3) -> TracedTensor:
    """log Φ(x): -Φ(-x) above the upper segment, log Φ(x) in between, the asymptotic series of
    `series_order` terms below the lower one (JAX's segments: -20 and 8 in float64)."""
    if not isinstance(series_order, int) or isinstance(series_order, bool):
        raise ParameterError(f"log_ndtr: series_order must be a Python int, got {series_order!r}")
    if not 0 <= series_order <= 30:
        raise ParameterError(f"log_ndtr: series_order must be in [0, 30], got {series_order}")
    x = _float_only("log_ndtr", x)
    lower, upper = _LOG_NDTR_SEGMENTS[x.dtype]
    above = x > upper
    res = _ndtr(tnp.where(above, -x, tnp.maximum(x, lower)))
    low = _log_ndtr_lower(tnp.minimum(x, lower), series_order)
    return tnp.where(above, -res, tnp.where(x > lower, tnp.log(res), low))


def logit(x: Any) -> TracedTensor:
    """log(x / (1 - x)), the inverse of expit."""
    (x,) = args_inexact("logit", x)
    return tnp.log(x / (1 - x))


def xlogy(x: Any, y: Any) -> TracedTensor:
    """x · log(y), 0 where x is 0 unless y is NaN; derivatives log(y) and x / y (JAX's rule,
    at x = 0 too)."""
    return apply1("xlogy", tnp.broadcast_arrays(*args_inexact("xlogy", x, y)))


def xlog1py(x: Any, y: Any) -> TracedTensor:
    """x · log1p(y), 0 where x is 0 unless y is NaN; derivatives log1p(y) and x / (1 + y)."""
    return apply1("xlog1py", tnp.broadcast_arrays(*args_inexact("xlog1py", x, y)))


def entr(x: Any) -> TracedTensor:
    """-x · log(x) for x > 0, 0 at 0, -inf for x < 0 (scipy's elementwise entropy)."""
    (x,) = args_inexact("entr", x, complex_ok=False)
    positive = x > 0
    safe = tnp.where(positive, x, 1.0)
    inside = tnp.where(positive, -safe * tnp.log(safe), tnp.where(tnp.isnan(x), x, -0.0))
    return tnp.where(x < 0, -math.inf, inside)


def _axis_arg(x: TracedTensor, name: str) -> TracedTensor:
    if x.dtype == np.bool_:
        raise DTypeError(f"{name}: bool input is not supported (as in JAX); cast it to a float")
    return x


def softmax(x: Any, axis: int | tuple[int, ...] | None = None) -> TracedTensor:
    """scipy's softmax: exp(x - max) / sum, over all axes unless `axis` is given (NaN where a
    slice is all -inf or holds +inf, as JAX)."""
    x = _axis_arg(tnp.asarray(x), "softmax")
    unnormalized = tnp.exp(x - tnp.max(x, axis=axis, keepdims=True))
    return strong(unnormalized / tnp.sum(unnormalized, axis=axis, keepdims=True))


def log_softmax(x: Any, axis: int | tuple[int, ...] | None = None) -> TracedTensor:
    """scipy's log_softmax: x - max - log(sum(exp(x - max))), over all axes by default."""
    x = _axis_arg(tnp.asarray(x), "log_softmax")
    shifted = x - tnp.max(x, axis=axis, keepdims=True)
    return strong(shifted - tnp.log(tnp.sum(tnp.exp(shifted), axis=axis, keepdims=True)))


def logsumexp(
    a: Any,
    axis: Any = None,
    b: Any = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: Any = None,
) -> Any:
    """log(sum(b · exp(a))) over axis, with the max subtracted (JAX's promotion: ints to
    float32 or float64, a Python float's result strongly typed)."""
    if b is None:
        (a,) = args_inexact("logsumexp", a)
    else:
        a, b = args_inexact("logsumexp", a, b)
    out = _logsumexp.logsumexp(a, axis, b, keepdims, return_sign, where)
    return tuple(strong(o) for o in out) if return_sign else strong(out)


def erfinv(x: Any) -> TracedTensor:
    """The inverse error function on (-1, 1)."""
    (x,) = args_inexact("erfinv", x)
    return lax.erf_inv(x)


def i0e(x: Any) -> TracedTensor:
    """exp(-|x|) I0(x), the exponentially scaled modified Bessel function of order 0."""
    (x,) = args_inexact("i0e", x)
    return lax.bessel_i0e(x)


def i1e(x: Any) -> TracedTensor:
    """exp(-|x|) I1(x), the exponentially scaled modified Bessel function of order 1."""
    (x,) = args_inexact("i1e", x)
    return lax.bessel_i1e(x)


def i0(x: Any) -> TracedTensor:
    """I0(x), the modified Bessel function of order 0."""
    (x,) = args_inexact("i0", x)
    return tnp.exp(tnp.abs(x)) * lax.bessel_i0e(x)


def i1(x: Any) -> TracedTensor:
    """I1(x), the modified Bessel function of order 1."""
    (x,) = args_inexact("i1", x)
    return tnp.exp(tnp.abs(x)) * lax.bessel_i1e(x)


def erfcx(x: Any) -> TracedTensor:
    """The scaled complementary error function exp(x²) erfc(x), finite for large x (by the
    continued fraction erfc uses in its tail); float16 is computed in float32, as JAX."""
    (x,) = args_inexact("erfcx", x)
    if x.dtype.kind == "c":
        return erfcx_complex(x)
    if x.dtype == np.float16:
        return tnp.astype(erfcx(tnp.astype(x, np.float32)), np.float16)
    in_tail, near, far = _split_tail(x)
    return strong(
        tnp.where(in_tail, tnp.exp(_log_tail_factor(far)), tnp.exp(near * near) * _erfc(near))
    )


def _boxcox(log_x: TracedTensor, lmbda: TracedTensor) -> TracedTensor:
    """expm1(lmbda log x) / lmbda, log x where lmbda is 0 (JAX's form); also below scipy's cut
    |lmbda| < 1e-19, where JAX's lmbda · log x underflows to a silent 0."""
    zero = (tnp.abs(lmbda) < 1e-19) | (log_x == 0)
    safe = tnp.where(zero, 1.0, lmbda)
    return tnp.where(zero, log_x, tnp.expm1(safe * log_x) / safe)


def boxcox(x: Any, lmbda: Any) -> TracedTensor:
    """The Box-Cox transform (x**lmbda - 1) / lmbda, log(x) at lmbda = 0; float16 and float32
    in float64 (`in_float64`: the derivatives in lmbda cancel for small lmbda log x)."""
    x, lmbda = args_inexact("boxcox", x, lmbda)
    return in_float64(lambda x, lmbda: _boxcox(tnp.log(x), lmbda), x, lmbda)


def boxcox1p(x: Any, lmbda: Any) -> TracedTensor:
    """boxcox(1 + x, lmbda), accurate for small x (float16 and float32 in float64)."""
    x, lmbda = args_inexact("boxcox1p", x, lmbda)
    return in_float64(lambda x, lmbda: _boxcox(tnp.log1p(x), lmbda), x, lmbda)


def rel_entr(x: Any, y: Any) -> TracedTensor:
    """x log(x / y) for x, y > 0; 0 at x = 0 <= y; inf otherwise (NaN where either is NaN)."""
    x, y = tnp.broadcast_arrays(*args_inexact("rel_entr", x, y, complex_ok=False))
    both = (x > 0) & (y > 0)
    safe_x, safe_y = tnp.where(both, x, 1.0), tnp.where(both, y, 1.0)
    inside = xlogy(safe_x, safe_x) - xlogy(safe_x, safe_y)
    return tnp.where(both, inside, tnp.where((x == 0) & (y >= 0), 0.0, math.inf))


def kl_div(x: Any, y: Any) -> TracedTensor:
    """x log(x / y) - x + y for x, y > 0; y at x = 0 <= y; inf otherwise."""
    x, y = args_inexact("kl_div", x, y, complex_ok=False)
    return rel_entr(x, y) - x + y


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
