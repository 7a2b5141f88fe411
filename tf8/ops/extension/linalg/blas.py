"""BLAS/LAPACK building blocks of the LU and Cholesky kernels, on one matrix (2-D).

LAPACK reads matrices in Fortran order; a C-ordered triangular matrix is passed as its
transpose (a free view) with the triangle and the transposition flipped, so no kernel copies
an n × n factor it only reads. Products meant for an outer product go through gemm (numpy's
matmul and outer take a slow loop for a rank-1 product) and come back in Fortran order,
owning their data.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

import numpy as np

from tf8.errors import LinAlgError

PREFIX = {
    np.dtype(np.float32): "s",
    np.dtype(np.float64): "d",
    np.dtype(np.complex64): "c",
    np.dtype(np.complex128): "z",
}


@functools.cache
def _routine(kind: str, name: str, dtype: np.dtype) -> Any:
    module = importlib.import_module(f"scipy.linalg.{kind}")
    return getattr(module, PREFIX[dtype] + name)


def blas(name: str, dtype: np.dtype) -> Any:
    """scipy's wrapper of BLAS routine `name` ('trmm', 'gemm', ...) for `dtype`."""
    return _routine("blas", name, np.dtype(dtype))


def lapack(name: str, dtype: np.dtype) -> Any:
    """scipy's wrapper of LAPACK routine `name` ('getrs', 'potrs', ...) for `dtype`."""
    return _routine("lapack", name, np.dtype(dtype))


@functools.cache
def mask(n: int, lower: bool, strict: bool) -> np.ndarray:
    """Where an n × n matrix's lower (or upper) triangle is, its diagonal excluded if `strict`;
    Fortran-ordered, read-only, shared."""
    k = -1 if strict else 0
    found = np.tri(n, k=k, dtype=bool) if lower else ~np.tri(n, k=-k - 1, dtype=bool)
    found = np.asfortranarray(found)
    found.setflags(write=False)
    return found


def _as_read(a: np.ndarray, lower: bool, trans: int, b: np.ndarray) -> tuple:
    """(matrix, lower, trans, b, conjugate the result) that compute op(tri(a)) with a
    Fortran-ordered matrix: a C-ordered `a` is read as its transpose."""
    if a.dtype.kind != "c" and trans == 2:
        trans = 1
    if a.flags.f_contiguous or not a.flags.c_contiguous:
        return np.asfortranarray(a), lower, trans, b, False
    if trans == 2:  # Aᴴ b = conj(Aᵀ conj(b)), and Aᵀ is the Fortran-ordered view a.T
        return a.T, not lower, 0, b.conj(), True
    return a.T, not lower, 1 - trans, b, False


def tri_mul(a: np.ndarray, b: np.ndarray, lower: bool, trans: int, unit: bool = False) -> Any:
    """op(tri(a)) @ b: a (n, n) read on its lower (or upper) triangle, its diagonal taken as
    ones if `unit`; op the identity, transpose or conjugate transpose (trans 0, 1, 2)."""
    if a.size == 0 or b.size == 0:
        return np.zeros(b.shape, np.result_type(a.dtype, b.dtype))
    m, low, tr, rhs, conjugate = _as_read(a, lower, trans, b)
    if rhs.shape[1] == 1:
        found = blas("trmv", a.dtype)(m, rhs[:, 0], lower=low, trans=tr, diag=int(unit))
        out = found[:, None]
    else:
        out = blas("trmm", a.dtype)(1.0, m, rhs, lower=low, trans_a=tr, diag=int(unit))
    return out.conj() if conjugate else out


def cho_solve(name: str, lower: bool, c: np.ndarray, b: np.ndarray) -> Any:
    """A⁻¹ b with A = cᴴ c (c's upper triangle) or c cᴴ (its lower one): LAPACK's potrs."""
    if b.size == 0:
        return np.zeros(b.shape, b.dtype)
    conjugate = False
    if c.flags.c_contiguous and not c.flags.f_contiguous:
        # cᵀ holds the other triangle of conj(A)'s factor: solve conj(A) conj(x) = conj(b)
        c, lower, conjugate = c.T, not lower, c.dtype.kind == "c"
    x, info = lapack("potrs", c.dtype)(c, b.conj() if conjugate else b, lower=int(lower))
    if info < 0:
        raise LinAlgError(f"{name}: LAPACK potrs refused argument {-info}")
    return x.conj() if conjugate else x


def outer(c: np.ndarray, b: np.ndarray) -> np.ndarray:
    """c @ bᵀ (no conjugate) for c, b (n, k), Fortran-ordered and owning its data."""
    if c.size == 0 or b.size == 0:
        return np.zeros((c.shape[0], b.shape[0]), np.result_type(c.dtype, b.dtype), order="F")
    return blas("gemm", c.dtype)(1.0, c, b, trans_b=1)


def accumulate_outer(out: np.ndarray, c: np.ndarray, b: np.ndarray) -> np.ndarray:
    """out + c @ bᵀ, in place when out is Fortran-ordered (gemm with beta = 1)."""
    if out.size == 0 or c.size == 0:
        return out
    if not out.flags.f_contiguous:
        return out + c @ b.T
    return blas("gemm", out.dtype)(1.0, c, b, beta=1.0, c=out, trans_b=1, overwrite_c=1)


def masked_outer(c: np.ndarray, b: np.ndarray, lower: bool, strict: bool) -> np.ndarray:
    """tri(c @ bᵀ): the outer product kept on one triangle, in one n × n array."""
    out = outer(c, b)
    np.multiply(out, mask(c.shape[0], lower, strict), out=out)
    return out


__all__ = [
    "accumulate_outer",
    "blas",
    "cho_solve",
    "lapack",
    "mask",
    "masked_outer",
    "outer",
    "tri_mul",
]
