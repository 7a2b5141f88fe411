"""JAX's `lax` special functions on tf8's special-function rows (kernels from scipy.special,
imported when first used): lgamma, digamma, polygamma, zeta, igamma, igammac,
igamma_grad_a, random_gamma_grad, betainc,
bessel_i0e, bessel_i1e, and ndtri (erf and erf_inv are in `ops`). Operands share one float
dtype and shape."""

from __future__ import annotations

from typing import Any

from tf8.lax.core import apply1
from tf8.traced import TracedTensor

from .ops import _binary, _operands, _unary

lgamma = _unary("lgamma")
ndtri = _unary("ndtri")  # not a JAX lax name: jax.scipy.special.ndtri is a composition
digamma = _unary("digamma")
bessel_i0e = _unary("bessel_i0e")
bessel_i1e = _unary("bessel_i1e")
polygamma = _binary("polygamma")
igamma = _binary("igamma")
igammac = _binary("igammac")
igamma_grad_a = _binary("igamma_grad_a")
random_gamma_grad = _binary("random_gamma_grad")
zeta = _binary("zeta")


def betainc(a: Any, b: Any, x: Any) -> TracedTensor:
    """lax.betainc: the regularized incomplete beta function I_x(a, b)."""
    return apply1("betainc", _operands(a, b, x))


__all__ = [
    "bessel_i0e",
    "bessel_i1e",
    "betainc",
    "digamma",
    "igamma",
    "igammac",
    "igamma_grad_a",
    "lgamma",
    "ndtri",
    "polygamma",
    "random_gamma_grad",
    "zeta",
]
