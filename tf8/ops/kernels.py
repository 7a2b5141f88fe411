"""numpy kernels for every catalog row: `KERNELS[name](op, *arrays) -> ndarray`.

Kernels return exactly the dtype inference promised (numpy would sometimes widen, e.g. the sum
of int32), and follow numpy's semantics where numpy has the operation.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.ops.igamma_grad_kernels import igamma_grad_a_kernel, random_gamma_grad_kernel

Kernel = Callable[..., np.ndarray]


def _scipy_special() -> Any:
    """scipy.special, imported when a kernel first needs it (`import tf8` stays fast)."""
    return importlib.import_module("scipy.special")


def _special(name: str) -> Kernel:
    """The kernel of scipy.special.`name`, its result in the operands' dtype: scipy has no
    float16 loops and computes float16 in float32 or float64."""

    def kernel(op: Any, *xs: np.ndarray) -> np.ndarray:
        out = getattr(_scipy_special(), name)(*xs)
        return out if out.dtype == xs[-1].dtype else out.astype(xs[-1].dtype)

    return kernel


def _polygamma(op: Any, n: np.ndarray, x: np.ndarray) -> np.ndarray:
    """scipy's polygamma, NaN where n is not a non-negative integer (as JAX's)."""
    valid = (n >= 0) & (n == np.floor(n))
    out = _scipy_special().polygamma(np.where(valid, n, 0).astype(np.int64), x)
    return np.where(valid, out, np.nan).astype(x.dtype)


KERNELS: dict[str, Kernel] = {
    "erf": _special("erf"),
    "erf_inv": _special("erfinv"),
    "ndtri": _special("ndtri"),
    "lgamma": _special("gammaln"),
    "digamma": _special("psi"),
    "polygamma": _polygamma,
    "zeta": _special("zeta"),
    "igamma": _special("gammainc"),
    "igammac": _special("gammaincc"),
    "igamma_grad_a": igamma_grad_a_kernel,
    "random_gamma_grad": random_gamma_grad_kernel,
    "betainc": _special("betainc"),
    "bessel_i0e": _special("i0e"),
    "bessel_i1e": _special("i1e"),
}
