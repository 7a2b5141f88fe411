"""numpy kernels for every catalog row: `KERNELS[name](op, *arrays) -> ndarray`.

Kernels return exactly the dtype inference promised (numpy would sometimes widen, e.g. the sum
of int32), and follow numpy's semantics where numpy has the operation.
"""

from __future__ import annotations

import importlib
import math
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


def _dot_general(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    (lc, rc), (lb, rb) = op["contracting"], op["batch"]
    # Axes may be negative (inference accepts them); the free-axis scan below needs them >= 0.
    lc, lb = tuple(a % x.ndim for a in lc), tuple(a % x.ndim for a in lb)
    rc, rb = tuple(a % y.ndim for a in rc), tuple(a % y.ndim for a in rb)
    if not lb and x.ndim <= 2 and y.ndim <= 2:  # matrix and vector products straight to BLAS
        if len(lc) == 1:
            if lc == (x.ndim - 1,) and rc == (0,):
                return x @ y
            if x.ndim == 2 and lc == (0,) and rc == (0,):
                return x.T @ y
            if y.ndim == 2 and lc == (x.ndim - 1,) and rc == (1,):
                return x @ y.T
        elif not lc and x.ndim == 1 and y.ndim == 1:
            return np.multiply.outer(x, y)
    lf = [i for i in range(x.ndim) if i not in lc and i not in lb]
    rf = [i for i in range(y.ndim) if i not in rc and i not in rb]
    # Bring batch dims first, then free, then contracting: a batched matmul for np.matmul.
    xs = x.transpose(list(lb) + lf + list(lc))
    ys = y.transpose(list(rb) + list(rc) + rf)
    batch = xs.shape[: len(lb)]
    m = math.prod(xs.shape[len(lb) : len(lb) + len(lf)])  # math.prod: np.prod costs µs here
    k = math.prod(xs.shape[len(lb) + len(lf) :])
    n = math.prod(ys.shape[len(rb) + len(rc) :])
    if k == 1 and batch:  # outer products (a vmapped vector transpose): broadcasting is exact
        out = np.multiply(xs.reshape(batch + (m, 1)), ys.reshape(batch + (1, n)))
    else:
        out = np.matmul(xs.reshape(batch + (m, k)), ys.reshape(batch + (k, n)))
    shape = batch + xs.shape[len(lb) : len(lb) + len(lf)] + ys.shape[len(rb) + len(rc) :]
    return out.reshape(shape)


def _reduction(ufunc: np.ufunc) -> Kernel:
    """`ufunc.reduce` over the op's axes: what np.sum/np.max call, minus their Python layer.
    Sums and products stay in the input's dtype (numpy would widen small ints)."""
    reduce = ufunc.reduce
    keep_dtype = ufunc is np.add or ufunc is np.multiply

    def kernel(op: Any, x: np.ndarray) -> np.ndarray:
        axes = tuple(op["axes"])
        if keep_dtype:
            return reduce(x, axis=axes, dtype=x.dtype)
        return reduce(x, axis=axes)

    return kernel


def _argreduce(fn: Callable) -> Kernel:
    return lambda op, x: fn(x, axis=op["axis"]).astype(np.int64)


def _cumsum(op: Any, x: np.ndarray) -> np.ndarray:
    if x.ndim == 0:  # one element (np.cumsum would return shape (1,), inference says ())
        return x.copy()
    axis = op["axis"]
    if op["reverse"]:
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
    return np.cumsum(x, axis=axis, dtype=x.dtype)


def _broadcast_in_dim(op: Any, x: np.ndarray) -> np.ndarray:
    shape, dims = op["shape"], op["broadcast_dimensions"]
    expanded = [1] * len(shape)
    for axis, d in zip(dims, x.shape):
        expanded[axis] = d
    return np.broadcast_to(x.reshape(expanded), shape)


def _extract_diag(op: Any, x: np.ndarray) -> np.ndarray:
    return np.diagonal(x, axis1=-2, axis2=-1).copy()


def _embed_diag(op: Any, x: np.ndarray) -> np.ndarray:
    n = x.shape[-1]
    out = np.zeros(x.shape + (n,), dtype=x.dtype)
    idx = np.arange(n)
    out[..., idx, idx] = x
    return out


def _iota(op: Any) -> np.ndarray:
    shape, dim = tuple(op["shape"]), op["dimension"]
    ramp = np.arange(shape[dim], dtype=np.dtype(op["dtype"]))
    view = [1] * len(shape)
    view[dim] = shape[dim]
    return np.broadcast_to(ramp.reshape(view), shape)


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
    "dot_general": _dot_general,
    "reduce_sum": _reduction(np.add),
    "reduce_prod": _reduction(np.multiply),
    "reduce_max": _reduction(np.maximum),
    "reduce_min": _reduction(np.minimum),
    "argmax": _argreduce(np.argmax),
    "argmin": _argreduce(np.argmin),
    "cumsum": _cumsum,
    "transpose": lambda op, x: np.transpose(x, op["permutation"]),
    "reshape": lambda op, x: np.reshape(x, op["shape"]),
    "broadcast_in_dim": _broadcast_in_dim,
    "extract_diag": _extract_diag,
    "embed_diag": _embed_diag,
    "tril": lambda op, x: np.tril(x, op["k"]),
    "triu": lambda op, x: np.triu(x, op["k"]),
    "concatenate": lambda op, *xs: np.concatenate(xs, axis=op["axis"]),
    "reverse": lambda op, x: np.flip(x, op["axes"]),
    "iota": _iota,
}
