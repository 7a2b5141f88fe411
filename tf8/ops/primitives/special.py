"""Special functions: the error function, its complement and its inverse, the inverse normal
CDF, the gamma family (lgamma, digamma, polygamma, Hurwitz zeta, the regularized incomplete
gamma functions and their derivatives in the shape parameter), the regularized incomplete
beta function, the exponentially scaled modified Bessel functions of order 0 and 1, and
xlogy and xlog1py (x log y and x log(1 + y), 0 at x = 0).

Each row sits with its numpy kernel (scipy.special's function, its result in the operands'
dtype), its partial derivatives (`partials`, written with the builders the transforms hand in
as `lax`; a scipy row's evaluated in float64 for float16 and float32 operands, as its
kernel) and the scipy ufunc the numpy engine fuses it as; numba compiles erf and erfc alone
(`math.erf`, `math.erfc`). Each partial is written in primitives that have rules themselves, so
derivatives of every order follow, except where a partial is not implemented: as in JAX,
polygamma in n, betainc in a and b; and igamma_grad_a and random_gamma_grad (JAX
gives igamma_grad_a no rule, and differentiates random_gamma_grad only through its loops in
forward mode). Asking raises DifferentiationError. igamma and igammac are differentiated in a
through igamma_grad_a, as in JAX; zeta in x through the derivative of JAX's Euler-Maclaurin
series (jax.scipy.special.zeta's rule). Where JAX's (XLA's) special values differ from scipy's
(poles, infinities, signed zeros), the kernels give JAX's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import DifferentiationError
from tf8.ops import dtypes as dt
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define
from tf8.ops.fusion import Fusion, call, scipy_direct
from tf8.ops.igamma_grad_kernels import igamma_grad_a_kernel, random_gamma_grad_kernel

from .common import scipy_special, special_kernel

_A, _FLOAT = Category.ANALYTIC, DTypePolicy.SAME_FLOAT
_SQRT_2PI = math.sqrt(2 * math.pi)
_LOOPS = "JAX differentiates its loops in forward mode only; tf8 computes it in one kernel"
Partial = Callable[..., Any]


def _scipy_function(
    name: str,
    scipy_name: str,
    arity: int,
    doc: str,
    *partials: Partial,
    scalar: Any = None,
    fix: Callable[..., np.ndarray] | None = None,
    in_float64: bool = False,
    policy: DTypePolicy = _FLOAT,
) -> OpDefinition:
    """A row computed by scipy.special.`scipy_name` (and fused as that ufunc); `fix(out, *xs)`
    replaces the values where JAX's differ from scipy's (then the row is not fused);
    `in_float64` computes float16 and float32 in float64 and rounds (where scipy's float32 loop
    is inaccurate; such a row is not fused either)."""
    kernel = special_kernel(scipy_name)
    partials = tuple(p if _refuses(p) else _partial_in_float64(name, p) for p in partials)
    kinds = "f" if policy is _FLOAT else "fc"
    fusion = Fusion(ufunc=scipy_direct(scipy_name, kinds), scalar=scalar)
    if in_float64:
        narrow = kernel
        kernel = lambda op, *xs: narrow(op, *[x.astype(np.float64) for x in xs]).astype(  # noqa: E731
            xs[-1].dtype
        )
        fusion = Fusion(scalar=scalar)
    if fix is not None:
        base = kernel
        kernel = lambda op, *xs: fix(base(op, *xs), *xs)  # noqa: E731
        fusion = Fusion(scalar=scalar)
    return define(
        Row(name, _A, policy, arity, arity, doc=doc),
        kernel=kernel,
        partials=partials,
        fusion=fusion,
    )


def _signed_zero(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    """x itself at ±0 (JAX keeps the sign of a zero where scipy returns +0)."""
    return np.where(x == 0, x, out)


def _lgamma_fix(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    """lgamma(-inf) = inf, as JAX (scipy: -inf)."""
    return np.where(x == -np.inf, np.asarray(np.inf, out.dtype), out)


def _igamma_fix(out: np.ndarray, a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """NaN at a = inf, as JAX (scipy: 0 for P, 1 for Q)."""
    return np.where(a == np.inf, np.asarray(np.nan, out.dtype), out)


def _digamma_fix(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    """NaN at the poles 0, -0, -1, -2, ... and at -inf, as JAX (scipy: ±inf at ±0)."""
    pole = (x <= 0) & (x == np.floor(x))
    return np.where(pole, np.asarray(np.nan, out.dtype), out)


def _not_differentiable(name: str, operand: str, why: str = "as in JAX") -> Partial:
    """The partial of an operand JAX does not differentiate either: a clear error."""

    def refused(*args: Any) -> Any:
        raise DifferentiationError(
            f"{name}: the derivative with respect to {operand} is not implemented ({why}); "
            f"stop_gradient({operand}) or keep it constant"
        )

    refused.refuses = True  # type: ignore[attr-defined]
    return refused


def _refuses(partial: Partial) -> bool:
    return getattr(partial, "refuses", False)


_NARROW = (np.dtype(np.float16), np.dtype(np.float32))


def _partial_in_float64(name: str, partial: Partial) -> Partial:
    """`partial` on float16/float32 operands evaluated in float64, from the row recomputed in
    float64, and rounded once: as the kernels compute the values (scipy's float32 loops run in
    double). A derivative built from the rounded result would amplify its rounding (ndtri's
    exp(out² / 2) multiplies out's relative error by out²)."""

    def rule(lax: Any, *args: Any) -> Any:
        *xs, out = args
        wide = dt.canonical_dtype(np.dtype(np.float64))  # (float32 with x64 off)
        if out.dtype not in _NARROW or out.dtype == wide:
            return partial(lax, *args)
        xs = [lax.convert(x, wide) for x in xs]
        return lax.convert(partial(lax, *xs, lax.apply1(name, xs)), out.dtype)

    return rule


def _polygamma(op: Any, n: np.ndarray, x: np.ndarray) -> np.ndarray:
    """scipy's polygamma, NaN where n is not a non-negative integer (as JAX's)."""
    valid = (n >= 0) & (n == np.floor(n))
    out = scipy_special().polygamma(np.where(valid, n, 0).astype(np.int64), x)
    pole = (x <= 0) & (x == np.floor(x))  # XLA's: NaN at the poles for even n (scipy: -inf)
    nan = ~valid | (pole & (np.remainder(n, 2) == 0)) | ((x == np.inf) & (n >= 1))
    return np.where(nan, np.nan, out).astype(x.dtype)


def _zeta(op: Any, x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """scipy's Hurwitz zeta with XLA's special values: at the poles q = 0, -1, ..., -inf it is
    inf for x = 1 and even integers x, NaN otherwise; NaN for q = inf (but x = 1), and for
    x = inf, q <= 1."""
    out = scipy_special().zeta(x, q)
    pole = (q <= 0) & (q == np.floor(q))
    even = (x == 1) | ((np.remainder(x, 2) == 0) & np.isfinite(x))
    out = np.where(pole, np.where(even, np.inf, np.nan), out)
    out = np.where(((q == np.inf) & (x != 1)) | ((x == np.inf) & (q <= 1)), np.nan, out)
    return out.astype(x.dtype)


def _igamma_dx(lax: Any, a: Any, x: Any, out: Any) -> Any:
    """d/dx P(a, x) = x**(a-1) e**-x / Gamma(a), in logs."""
    log_power = lax.sub(lax.mul(lax.sub(a, 1.0), lax.unary("log", x)), x)
    return lax.unary("exp", lax.sub(log_power, lax.unary("lgamma", a)))


def _igamma_da(lax: Any, a: Any, x: Any, out: Any) -> Any:
    return lax.apply1("igamma_grad_a", [a, x])


def _i0e_dx(lax: Any, x: Any, out: Any) -> Any:
    """i1e(x) - sign(x) i0e(x); + 0 so that x = -0 gives +0, as JAX's (its sign(-0) is -0)."""
    slope = lax.sub(lax.unary("bessel_i1e", x), lax.mul(lax.unary("sign", x), out))
    return lax.add(slope, 0.0)


def _i1e_dx(lax: Any, x: Any, out: Any) -> Any:
    """i0e(x) - i1e(x) (sign(x) + 1/x), and its limit 1/2 at x = 0 (JAX's rule)."""
    tiny = lax.compare(lax.unary("abs", x), float(np.finfo(x.dtype).eps), "gt")
    safe = lax.select(tiny, x, lax.like(x, 1.0))
    scale = lax.add(lax.unary("sign", safe), lax.div(1.0, safe))
    slope = lax.sub(lax.unary("bessel_i0e", safe), lax.mul(out, scale))
    return lax.select(tiny, slope, lax.like(x, 0.5))


# (2j + 2)! / B_{2j+2}: the Euler-Maclaurin coefficients of JAX's zeta series
_ZETA_COEFS = (
    12,
    -720,
    30240,
    -1209600,
    47900160,
    -1307674368000 / 691,
    74724249600,
    -10670622842880000 / 3617,
    5109094217170944000 / 43867,
    -802857662698291200000 / 174611,
    14101100039391805440000 / 77683,
    -1693824136731743669452800000 / 236364091,
    186134520519971831808000000 / 657931,
    -37893265687455865519472640000000 / 3392780147,
    759790291646040068357842010112000000 / 1723168255201,
    -134196726836183700385281186201600000000 / 7709321041217,
)


def zeta_dx(lax: Any, s: Any, a: Any, out: Any) -> Any:
    """d/ds zeta(s, a), the derivative of JAX's Euler-Maclaurin series for zeta (Johansson
    2015, formula (5); N = M = 8 terms in float32, 16 otherwise):
    zeta = sum_{k<N} (a+k)**-s + (a+N)**(1-s) / (s-1)
           + (a+N)**-s (1/2 + sum_{j<M} prod_{m<=2j} (s+m)/(a+N) / C_j)."""
    terms = 8 if s.dtype == np.float32 else 16
    log = lambda v: lax.unary("log", v)  # noqa: E731
    d_sum = lax.like(s, 0.0)
    for k in range(terms):
        base = lax.add(a, float(k))
        d_sum = lax.sub(d_sum, lax.mul(log(base), lax.pow_(base, lax.neg(s))))
    big = lax.add(a, float(terms))
    log_big = log(big)
    s_1 = lax.sub(s, 1.0)
    rest = lax.div(lax.pow_(big, lax.neg(s_1)), s_1)  # (a+N)**(1-s) / (s-1)
    d_rest = lax.neg(lax.add(lax.mul(log_big, rest), lax.div(rest, s_1)))
    t0 = lax.pow_(big, lax.neg(s))
    inv_big = lax.div(1.0, big)
    prod, d_prod = lax.like(s, 1.0), lax.like(s, 0.0)
    tail, d_tail = lax.like(s, 0.5), lax.like(s, 0.0)
    for m in range(2 * terms - 1):
        ratio = lax.mul(lax.add(s, float(m)), inv_big)
        prod, d_prod = lax.mul(prod, ratio), lax.add(lax.mul(d_prod, ratio), lax.mul(prod, inv_big))
        if m % 2 == 0:
            tail = lax.add(tail, lax.div(prod, _ZETA_COEFS[m // 2]))
            d_tail = lax.add(d_tail, lax.div(d_prod, _ZETA_COEFS[m // 2]))
    d_t = lax.sub(lax.mul(t0, d_tail), lax.mul(lax.mul(log_big, t0), tail))
    return lax.add(lax.add(d_sum, d_rest), d_t)


def _betainc_dx(lax: Any, a: Any, b: Any, x: Any, out: Any) -> Any:
    """d/dx I_x(a, b) = x**(a-1) (1-x)**(b-1) / B(a, b), in logs."""
    lgamma = lambda v: lax.unary("lgamma", v)  # noqa: E731
    log_beta = lax.sub(lax.add(lgamma(a), lgamma(b)), lgamma(lax.add(a, b)))
    log_x, log_1mx = lax.unary("log", x), lax.unary("log1p", lax.neg(x))
    power = lax.add(lax.mul(lax.sub(a, 1.0), log_x), lax.mul(lax.sub(b, 1.0), log_1mx))
    return lax.unary("exp", lax.sub(power, log_beta))


DEFINITIONS: tuple[OpDefinition, ...] = (
    _scipy_function(
        "erf",
        "erf",
        1,
        "error function",
        lambda lax, x, out: lax.mul(
            2.0 / math.sqrt(math.pi), lax.unary("exp", lax.neg(lax.mul(x, x)))
        ),
        scalar=call("math.erf"),
    ),
    _scipy_function(
        "erfc",
        "erfc",
        1,
        "complementary error function 1 - erf(x), accurate where erf(x) is near 1",
        lambda lax, x, out: lax.mul(
            -2.0 / math.sqrt(math.pi), lax.unary("exp", lax.neg(lax.mul(x, x)))
        ),
        scalar=call("math.erfc"),
    ),
    _scipy_function(
        "erf_inv",
        "erfinv",
        1,
        "inverse error function on (-1, 1)",
        lambda lax, x, out: lax.mul(math.sqrt(math.pi) / 2.0, lax.unary("exp", lax.mul(out, out))),
        fix=_signed_zero,
    ),
    _scipy_function(
        "ndtri",
        "ndtri",
        1,
        "inverse of the standard normal CDF on (0, 1)",
        lambda lax, x, out: lax.mul(_SQRT_2PI, lax.unary("exp", lax.mul(0.5, lax.mul(out, out)))),
    ),
    _scipy_function(
        "lgamma",
        "gammaln",
        1,
        "log |Gamma(x)|",
        lambda lax, x, out: lax.unary("digamma", x),
        fix=_lgamma_fix,
    ),
    _scipy_function(
        "digamma",
        "psi",
        1,
        "d/dx lgamma(x)",
        lambda lax, x, out: lax.apply1("polygamma", [lax.like(x, 1.0), x]),
        fix=_digamma_fix,
    ),
    define(
        Row("polygamma", _A, _FLOAT, 2, 2, doc="polygamma(n, x): n-th derivative of digamma"),
        kernel=_polygamma,
        partials=(
            _not_differentiable("polygamma", "n"),
            lambda lax, n, x, out: lax.apply1("polygamma", [lax.add(n, 1.0), x]),
        ),
    ),
    define(
        Row("zeta", _A, _FLOAT, 2, 2, doc="Hurwitz zeta(x, q) = sum_k (k + q)**-x"),
        kernel=_zeta,
        partials=(
            zeta_dx,
            lambda lax, x, q, out: lax.neg(lax.mul(x, lax.apply1("zeta", [lax.add(x, 1.0), q]))),
        ),
    ),
    _scipy_function(
        "igamma",
        "gammainc",
        2,
        "regularized lower incomplete gamma P(a, x)",
        _igamma_da,
        _igamma_dx,
        fix=_igamma_fix,
    ),
    _scipy_function(
        "igammac",
        "gammaincc",
        2,
        "regularized upper incomplete gamma Q(a, x)",
        lambda lax, a, x, out: lax.neg(_igamma_da(lax, a, x, out)),
        lambda lax, a, x, out: lax.neg(_igamma_dx(lax, a, x, out)),
        fix=_igamma_fix,
    ),
    define(
        Row("igamma_grad_a", _A, _FLOAT, 2, 2, doc="d/da P(a, x) (igamma's derivative in a)"),
        kernel=igamma_grad_a_kernel,
        partials=(
            _not_differentiable("igamma_grad_a", "a", "JAX has no rule either"),
            _not_differentiable("igamma_grad_a", "x", "JAX has no rule either"),
        ),
    ),
    define(
        Row(
            "random_gamma_grad",
            _A,
            _FLOAT,
            2,
            2,
            doc="dx/da of a Gamma(a) draw x: -(dP/da)/(dP/dx)",
        ),
        kernel=random_gamma_grad_kernel,
        partials=(
            _not_differentiable("random_gamma_grad", "a", _LOOPS),
            _not_differentiable("random_gamma_grad", "x", _LOOPS),
        ),
    ),
    _scipy_function(
        "betainc",
        "betainc",
        3,
        "regularized incomplete beta I_x(a, b)",
        _not_differentiable("betainc", "a"),
        _not_differentiable("betainc", "b"),
        _betainc_dx,
        in_float64=True,  # scipy's float32 loop is off by up to 1.5e-5 (relative)
    ),
    _scipy_function(
        "bessel_i0e",
        "i0e",
        1,
        "exp(-|x|) I0(x)",
        _i0e_dx,
    ),
    _scipy_function("bessel_i1e", "i1e", 1, "exp(-|x|) I1(x)", _i1e_dx, fix=_signed_zero),
    # JAX's rules (its custom JVPs), at x = 0 too: d/dx is log y there, not 0
    _scipy_function(
        "xlogy",
        "xlogy",
        2,
        "x log(y), 0 where x is 0 and y is not NaN",
        lambda lax, x, y, out: lax.unary("log", y),
        lambda lax, x, y, out: lax.div(x, y),
        policy=DTypePolicy.SAME_FLOAT_OR_COMPLEX,
    ),
    _scipy_function(
        "xlog1py",
        "xlog1py",
        2,
        "x log(1 + y), 0 where x is 0 and y is not NaN",
        lambda lax, x, y, out: lax.unary("log1p", y),
        lambda lax, x, y, out: lax.div(x, lax.add(1.0, y)),
        policy=DTypePolicy.SAME_FLOAT_OR_COMPLEX,
    ),
)
