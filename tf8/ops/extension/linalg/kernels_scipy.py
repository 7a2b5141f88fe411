"""Kernels of `schur.py`'s ops: scipy.linalg's and LAPACK's routines, looped over batch axes.

A matrix holding NaN or infinity gets NaN results (LAPACK's iterations refuse it), as the
family's other iterative kernels do.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import LinAlgError

from .kernels import _nan_where_not_finite, batched
from .schur import (
    EighTridiagonal,
    EigvalshTridiagonal,
    Hessenberg,
    HessenbergH,
    Parlett,
    QrMultiply,
    QrPivoted,
    QrPivotedR,
    Schur,
    SchurT,
    SolveSylvester,
    Sqrtm,
)


def _scipy_linalg() -> Any:
    return importlib.import_module("scipy.linalg")


def _schur_2d(a: np.ndarray, compute_v: bool) -> Any:
    lapack = _scipy_linalg().lapack
    gees = lapack.get_lapack_funcs("gees", (a,))
    if a.shape[-1] == 0:
        return (a.copy(), a.copy()) if compute_v else a.copy()
    lwork = int(gees(lambda *x: None, a, lwork=-1)[-2][0].real)
    result = gees(lambda *x: None, a, compute_v=int(compute_v), lwork=lwork)
    if result[-1] < 0:
        raise LinAlgError(f"schur: LAPACK gees refused argument {-result[-1]}")
    return (result[0], result[-3]) if compute_v else result[0]


def _hessenberg_2d(a: np.ndarray, calc_q: bool) -> Any:
    if a.shape[-1] == 0:
        return (a.copy(), a.copy()) if calc_q else a.copy()
    return _scipy_linalg().hessenberg(a, calc_q=calc_q, check_finite=False)


def _sqrtm_2d(a: np.ndarray) -> np.ndarray:
    """JAX's sqrtm: Z sqrt(T) Zᴴ from the complex Schur form; the upper-triangular root U of T
    by columns, U_ij = (T_ij − Σ_k U_ik U_kj) / (U_ii + U_jj), 0 where the numerator is."""
    t, z = _schur_2d(a.astype(np.result_type(a.dtype, np.complex64)), True)
    n = t.shape[0]
    diag = np.sqrt(np.diagonal(t))
    u = np.diag(diag)
    for j in range(n):
        for i in range(j - 1, -1, -1):
            s = u[i, i + 1 : j] @ u[i + 1 : j, j]
            u[i, j] = 0 if t[i, j] == s else (t[i, j] - s) / (diag[i] + diag[j])
    return z @ u @ z.conj().T


def _parlett_2d(t: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Golub & Van Loan's algorithm 11.1.1, as JAX's funm (a zero gap leaves the sum as is)."""
    n = t.shape[0]
    out = np.diag(f).astype(t.dtype)
    minden = abs(t[0, 0]) if n else np.inf
    for p in range(1, n):
        for i in range(1, n - p + 1):
            j = i + p
            s = t[i - 1, j - 1] * (out[j - 1, j - 1] - out[i - 1, i - 1])
            between = slice(i, j - 1)
            s = (
                s
                + t[i - 1, between] @ out[between, j - 1]
                - out[i - 1, between] @ t[between, j - 1]
            )
            gap = t[j - 1, j - 1] - t[i - 1, i - 1]
            out[i - 1, j - 1] = s / gap if gap != 0 else s
            minden = min(minden, abs(gap))
    return out, np.asarray(minden, np.result_type(t.real.dtype))


def _solve_sylvester_2d(tol: float, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    gaps = np.abs(np.linalg.eigvals(a)[:, None] + np.linalg.eigvals(b)[None, :])
    if gaps.size and np.any(gaps < tol):
        return np.full(c.shape, np.nan, c.dtype)
    x = _scipy_linalg().solve_sylvester(a, b, c)
    return x.astype(c.dtype, copy=False)


def _qr_pivoted_2d(full: bool, with_q: bool, a: np.ndarray) -> tuple:
    m, n = a.shape
    mode = ("full" if full else "economic") if with_q else "r"
    if a.size == 0:
        k = m if full else min(m, n)
        q, r = np.eye(m, k, dtype=a.dtype), np.zeros((k, n), a.dtype)
        p = np.arange(n, dtype=np.int32)
    else:
        found = _scipy_linalg().qr(a, mode=mode, pivoting=True, check_finite=False)
        q, r, p = (None, *found) if mode == "r" else found
        if mode == "r" and not full:
            r = r[: min(m, n)]
    p = np.asarray(p, np.int32)
    return (q, r, p) if with_q else (r, p)


def _r_and_permutation(op: QrPivotedR, a: np.ndarray) -> Any:
    full, with_permutation = op.payload
    r, p = batched(functools.partial(_qr_pivoted_2d, full, False), a)
    return (r, p) if with_permutation else r


def _qr_multiply_2d(op: QrMultiply, a: np.ndarray, c: np.ndarray) -> tuple:
    mode, pivoting, conjugate = op.payload
    m, n = a.shape
    k = min(m, n)
    if a.size == 0 or c.size == 0:
        shape = (m, c.shape[1]) if mode == "left" else (c.shape[0], k)
        outs = (np.zeros(shape, a.dtype), np.zeros((k, n), a.dtype))
        return (*outs, np.arange(n, dtype=np.int32)) if pivoting else outs
    found = _scipy_linalg().qr_multiply(a, c, mode=mode, pivoting=pivoting, conjugate=conjugate)
    product = found[0].astype(a.dtype, copy=False)
    if mode == "left" and product.shape[0] != m:  # scipy keeps k rows when m > n
        product = np.concatenate([product, np.zeros((m - product.shape[0], product.shape[1]))])
    r = np.triu(found[1][:k])
    return (product, r, np.asarray(found[2], np.int32)) if pivoting else (product, r)


def _eigh_tridiagonal_2d(selected, with_vectors: bool, d: np.ndarray, e: np.ndarray) -> Any:
    """scipy's (LAPACK stemr/stebz), on |e| for a complex e: the Hermitian tridiagonal matrix
    is D T D⁻¹ with T real symmetric (off-diagonal |e|) and D the diagonal of phases."""
    real = d.real.astype(np.result_type(d.real.dtype, np.float32))
    n = d.shape[-1]
    if n == 0 or (n == 1 and selected is None):
        w = real.copy()
        return (w, np.eye(n, dtype=d.dtype)) if with_vectors else w
    select, select_range = ("a", None) if selected is None else ("i", selected)
    off = np.abs(e) if np.iscomplexobj(e) else e
    found = _scipy_linalg().eigh_tridiagonal(
        real, off.astype(real.dtype), eigvals_only=not with_vectors, select=select,
        select_range=select_range, check_finite=False,
    )  # fmt: skip
    if not with_vectors:
        return found.astype(real.dtype, copy=False)
    w, v = found
    if np.iscomplexobj(e):
        magnitude = np.abs(e)
        unit = np.where(magnitude == 0, 1, e / np.where(magnitude == 0, 1, magnitude))
        phases = np.concatenate([[1], np.cumprod(unit.conj())])
        v = phases[:, None] * v
    return w.astype(real.dtype, copy=False), v.astype(d.dtype, copy=False)


def _vectorized(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A kernel looping a 1-D routine over the leading axes of (d, e)."""

    def run(d: np.ndarray, e: np.ndarray) -> Any:
        batch = d.shape[:-1]
        if not batch:
            return fn(d, e)
        results = [fn(d[i], e[i]) for i in np.ndindex(*batch)]
        if isinstance(results[0], tuple):
            return tuple(_stack(batch, [r[k] for r in results]) for k in range(len(results[0])))
        return _stack(batch, results)

    return run


def _stack(batch: tuple, parts: list) -> np.ndarray:
    stacked = np.stack(parts)
    return stacked.reshape(*batch, *stacked.shape[1:])


def _finite_or_nan(compute: Callable[..., Any]) -> Callable[..., Any]:
    """`compute` with a non-finite first operand's results NaN (see the module docstring)."""

    def kernel(op: Any, *arrays: Any) -> Any:
        result = _nan_where_not_finite(compute, op, arrays)
        return compute(op, *arrays) if result is None else result

    return kernel


_COMPUTE: dict[type, Callable[..., Any]] = {
    Schur: lambda op, a: batched(lambda x: _schur_2d(x, True), a),
    SchurT: lambda op, a: batched(lambda x: _schur_2d(x, False), a),
    Hessenberg: lambda op, a: batched(lambda x: _hessenberg_2d(x, True), a),
    HessenbergH: lambda op, a: batched(lambda x: _hessenberg_2d(x, False), a),
    Sqrtm: lambda op, a: batched(_sqrtm_2d, a),
    Parlett: lambda op, t, f: batched(_parlett_2d, t, f),
    SolveSylvester: lambda op, a, b, c: batched(
        functools.partial(_solve_sylvester_2d, op.payload[0]), a, b, c
    ),
    QrPivoted: lambda op, a: batched(functools.partial(_qr_pivoted_2d, op.payload[0], True), a),
    QrPivotedR: lambda op, a: _r_and_permutation(op, a),
    QrMultiply: lambda op, a, c: batched(functools.partial(_qr_multiply_2d, op), a, c),
    EighTridiagonal: lambda op, d, e: _vectorized(
        functools.partial(_eigh_tridiagonal_2d, op.payload[0], True)
    )(d, e),
    EigvalshTridiagonal: lambda op, d, e: _vectorized(
        functools.partial(_eigh_tridiagonal_2d, op.payload[0], False)
    )(d, e),
}

KERNELS: dict[type, Callable[..., Any]] = {
    cls: compute if cls in (EighTridiagonal, EigvalshTridiagonal) else _finite_or_nan(compute)
    for cls, compute in _COMPUTE.items()
}
