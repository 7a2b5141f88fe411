"""Special functions: the error function and its inverse, the inverse normal CDF, the gamma
family (lgamma, digamma, polygamma, Hurwitz zeta, the regularized incomplete gamma functions
and their derivatives in the shape parameter), the regularized incomplete beta function and
the exponentially scaled modified Bessel functions of order 0 and 1.

Each row sits with its numpy kernel (scipy.special's function, its result in the operands'
dtype), its partial derivatives (`partials`, written with the builders the transforms hand in
as `lax`) and the scipy ufunc the numpy engine fuses it as; numba compiles erf alone
(`math.erf`). Each partial is written in primitives that have rules themselves, so
derivatives of every order follow, except where a partial is not implemented: as in JAX,
polygamma in n, zeta in x, betainc in a and b; and igamma_grad_a and random_gamma_grad (JAX
gives igamma_grad_a no rule, and differentiates random_gamma_grad only through its loops in
forward mode). Asking raises DifferentiationError. igamma and igammac are differentiated in a
through igamma_grad_a, as in JAX.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import DifferentiationError
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
    name: str, scipy_name: str, arity: int, doc: str, *partials: Partial, scalar: Any = None
) -> OpDefinition:
    """A row computed by scipy.special.`scipy_name` (and fused as that ufunc)."""
    return define(
        Row(name, _A, _FLOAT, arity, arity, doc=doc),
        kernel=special_kernel(scipy_name),
        partials=partials,
        fusion=Fusion(ufunc=scipy_direct(scipy_name, "f"), scalar=scalar),
    )


def _not_differentiable(name: str, operand: str, why: str = "as in JAX") -> Partial:
    """The partial of an operand JAX does not differentiate either: a clear error."""

    def partial(*args: Any) -> Any:
        raise DifferentiationError(
            f"{name}: the derivative with respect to {operand} is not implemented ({why}); "
            f"stop_gradient({operand}) or keep it constant"
        )

    return partial


def _polygamma(op: Any, n: np.ndarray, x: np.ndarray) -> np.ndarray:
    """scipy's polygamma, NaN where n is not a non-negative integer (as JAX's)."""
    valid = (n >= 0) & (n == np.floor(n))
    out = scipy_special().polygamma(np.where(valid, n, 0).astype(np.int64), x)
    return np.where(valid, out, np.nan).astype(x.dtype)


def _igamma_dx(lax: Any, a: Any, x: Any, out: Any) -> Any:
    """d/dx P(a, x) = x**(a-1) e**-x / Gamma(a), in logs."""
    log_power = lax.sub(lax.mul(lax.sub(a, 1.0), lax.unary("log", x)), x)
    return lax.unary("exp", lax.sub(log_power, lax.unary("lgamma", a)))


def _igamma_da(lax: Any, a: Any, x: Any, out: Any) -> Any:
    return lax.apply1("igamma_grad_a", [a, x])


def _i1e_dx(lax: Any, x: Any, out: Any) -> Any:
    """i0e(x) - i1e(x) (sign(x) + 1/x), and its limit 1/2 at x = 0 (JAX's rule)."""
    tiny = lax.compare(lax.unary("abs", x), float(np.finfo(x.dtype).eps), "gt")
    safe = lax.select(tiny, x, lax.like(x, 1.0))
    scale = lax.add(lax.unary("sign", safe), lax.div(1.0, safe))
    slope = lax.sub(lax.unary("bessel_i0e", safe), lax.mul(out, scale))
    return lax.select(tiny, slope, lax.like(x, 0.5))


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
        "erf_inv",
        "erfinv",
        1,
        "inverse error function on (-1, 1)",
        lambda lax, x, out: lax.mul(math.sqrt(math.pi) / 2.0, lax.unary("exp", lax.mul(out, out))),
    ),
    _scipy_function(
        "ndtri",
        "ndtri",
        1,
        "inverse of the standard normal CDF on (0, 1)",
        lambda lax, x, out: lax.mul(_SQRT_2PI, lax.unary("exp", lax.mul(0.5, lax.mul(out, out)))),
    ),
    _scipy_function(
        "lgamma", "gammaln", 1, "log |Gamma(x)|", lambda lax, x, out: lax.unary("digamma", x)
    ),
    _scipy_function(
        "digamma",
        "psi",
        1,
        "d/dx lgamma(x)",
        lambda lax, x, out: lax.apply1("polygamma", [lax.like(x, 1.0), x]),
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
        kernel=special_kernel("zeta"),
        partials=(
            _not_differentiable("zeta", "x"),
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
    ),
    _scipy_function(
        "igammac",
        "gammaincc",
        2,
        "regularized upper incomplete gamma Q(a, x)",
        lambda lax, a, x, out: lax.neg(_igamma_da(lax, a, x, out)),
        lambda lax, a, x, out: lax.neg(_igamma_dx(lax, a, x, out)),
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
    ),
    _scipy_function(
        "bessel_i0e",
        "i0e",
        1,
        "exp(-|x|) I0(x)",
        lambda lax, x, out: lax.sub(lax.unary("bessel_i1e", x), lax.mul(lax.unary("sign", x), out)),
    ),
    _scipy_function("bessel_i1e", "i1e", 1, "exp(-|x|) I1(x)", _i1e_dx),
)
