"""Partial derivatives of the special-function rows (ndtri, lgamma, digamma, polygamma, zeta,
igamma, igammac, igamma_grad_a, random_gamma_grad, betainc, bessel_i0e, bessel_i1e), in the
form `defjvp_elementwise` takes: one per operand, `partial(*primals, out)`. Each is written in
primitives that have rules themselves, so derivatives of every order follow, except where a
partial is not implemented: as in JAX, polygamma in n, zeta in x, betainc in a and b; and
igamma_grad_a and random_gamma_grad (JAX gives igamma_grad_a no rule, and differentiates
random_gamma_grad only through its loops in forward mode). Asking raises DifferentiationError.
igamma and igammac are differentiated in a through igamma_grad_a, as in JAX.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import DifferentiationError
from tf8.lax.builders import add, compare, div, like, mul, neg, select, sub, unary
from tf8.lax.core import apply1

Partial = Callable[..., Any]
_SQRT_2PI = math.sqrt(2 * math.pi)
_LOOPS = "JAX differentiates its loops in forward mode only; tf8 computes it in one kernel"


def _not_differentiable(name: str, operand: str, why: str = "as in JAX") -> Callable[..., Any]:
    """The partial of an operand JAX does not differentiate either: a clear error."""

    def partial(*args: Any) -> Any:
        raise DifferentiationError(
            f"{name}: the derivative with respect to {operand} is not implemented ({why}); "
            f"stop_gradient({operand}) or keep it constant"
        )

    return partial


def _igamma_dx(a, x, out):
    """d/dx P(a, x) = x**(a-1) e**-x / Gamma(a), in logs."""
    return unary("exp", sub(sub(mul(sub(a, 1.0), unary("log", x)), x), unary("lgamma", a)))


def _i1e_dx(x, out):
    """i0e(x) - i1e(x) (sign(x) + 1/x), and its limit 1/2 at x = 0 (JAX's rule)."""
    tiny = compare(unary("abs", x), float(np.finfo(x.dtype).eps), "gt")
    safe = select(tiny, x, like(x, 1.0))
    slope = sub(unary("bessel_i0e", safe), mul(out, add(unary("sign", safe), div(1.0, safe))))
    return select(tiny, slope, like(x, 0.5))


def _betainc_dx(a, b, x, out):
    """d/dx I_x(a, b) = x**(a-1) (1-x)**(b-1) / B(a, b), in logs."""
    log_beta = sub(add(unary("lgamma", a), unary("lgamma", b)), unary("lgamma", add(a, b)))
    log_x, log_1mx = unary("log", x), unary("log1p", neg(x))
    power = add(mul(sub(a, 1.0), log_x), mul(sub(b, 1.0), log_1mx))
    return unary("exp", sub(power, log_beta))


SPECIAL_PARTIALS: dict[str, tuple[Partial, ...]] = {
    "ndtri": (lambda x, out: mul(_SQRT_2PI, unary("exp", mul(0.5, mul(out, out)))),),
    "lgamma": (lambda x, out: unary("digamma", x),),
    "digamma": (lambda x, out: apply1("polygamma", [like(x, 1.0), x]),),
    "polygamma": (
        _not_differentiable("polygamma", "n"),
        lambda n, x, out: apply1("polygamma", [add(n, 1.0), x]),
    ),
    "zeta": (
        _not_differentiable("zeta", "x"),
        lambda x, q, out: neg(mul(x, apply1("zeta", [add(x, 1.0), q]))),
    ),
    "igamma": (lambda a, x, out: apply1("igamma_grad_a", [a, x]), _igamma_dx),
    "igammac": (
        lambda a, x, out: neg(apply1("igamma_grad_a", [a, x])),
        lambda a, x, out: neg(_igamma_dx(a, x, out)),
    ),
    "igamma_grad_a": (
        _not_differentiable("igamma_grad_a", "a", "JAX has no rule either"),
        _not_differentiable("igamma_grad_a", "x", "JAX has no rule either"),
    ),
    "random_gamma_grad": (
        _not_differentiable("random_gamma_grad", "a", _LOOPS),
        _not_differentiable("random_gamma_grad", "x", _LOOPS),
    ),
    "betainc": (
        _not_differentiable("betainc", "a"),
        _not_differentiable("betainc", "b"),
        _betainc_dx,
    ),
    "bessel_i0e": (lambda x, out: sub(unary("bessel_i1e", x), mul(unary("sign", x), out)),),
    "bessel_i1e": (_i1e_dx,),
}
