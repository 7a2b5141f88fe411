"""The linalg family's numpy/scipy kernels, keyed by op class: `kernel(op, *arrays)`.

numpy's batched routines where numpy has them; 2-D scipy routines are looped over the batch
axes (`batched`). A failure on the data (a singular matrix, a non-positive-definite one to
cholesky) raises `tf8.errors.LinAlgError` naming the op.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import LinAlgError
from tf8.ops import dtypes as dt

from .decompositions import Eigh, Eigvalsh, Qr, QrFull, QrR, QrRaw, Svd, SvdFull, Svdvals
from .eig import Eig, Eigvals
from .expm import Expm, ExpmFrechet
from .lstsq import Lstsq, Pinv
from .solve import (
    Adjugate,
    Cholesky,
    Det,
    Inv,
    LogAbsDet,
    MinorProducts,
    Slogdet,
    Solve,
    TriangularSolve,
)


def _scipy_linalg() -> Any:
    """scipy.linalg, imported when a kernel first needs it (`import tf8` stays fast)."""
    return importlib.import_module("scipy.linalg")


def batched(fn: Any, *arrays: np.ndarray) -> Any:
    """Apply a 2-D kernel `fn` to each matrix of the (equal) leading axes; stack the results."""
    batch = arrays[0].shape[:-2]
    if not batch:
        return fn(*arrays)
    results = [fn(*(a[index] for a in arrays)) for index in np.ndindex(*batch)]
    if isinstance(results[0], tuple):
        return tuple(_stack(batch, list(parts)) for parts in zip(*results))
    return _stack(batch, results)


def _stack(batch: tuple, parts: list) -> np.ndarray:
    stacked = np.stack([np.asarray(p) for p in parts])
    return stacked.reshape(*batch, *stacked.shape[1:])


def _triangular_solve(op: TriangularSolve, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    lower, trans, unit = op.payload

    def solve2d(m, r):
        return _scipy_linalg().solve_triangular(
            m, r, trans=trans, lower=lower, unit_diagonal=unit, check_finite=False
        )

    return batched(solve2d, a, b)


def _slogdet(op: Slogdet, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sign, logabsdet = np.linalg.slogdet(a)
    return np.asarray(sign), np.asarray(logabsdet)


def _eig(op: Eig, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w, v = np.linalg.eig(a)
    dtype = dt.complex_dtype(a.dtype)
    return w.astype(dtype, copy=False), v.astype(dtype, copy=False)


def _wide(a: np.ndarray) -> np.ndarray:
    """a in double precision: scipy's single-precision expm loses digits JAX's keeps."""
    return a.astype(np.result_type(a.dtype, np.float64), copy=False)


def _expm(op: Expm, a: np.ndarray) -> np.ndarray:
    return _scipy_linalg().expm(_wide(a)).astype(a.dtype, copy=False)


def _expm_frechet(op: ExpmFrechet, a: np.ndarray, e: np.ndarray) -> np.ndarray:
    def frechet(x, y):
        return _scipy_linalg().expm_frechet(x, y, compute_expm=False, check_finite=False)

    return np.asarray(batched(frechet, _wide(a), _wide(e))).astype(e.dtype, copy=False)


def _exclusive_products(s: np.ndarray) -> np.ndarray:
    """∏_{j ≠ i} s_j along the last axis, without dividing (zeros are fine)."""
    ones = np.ones_like(s[..., :1])
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return before * after


def _adjugate(op: Adjugate, a: np.ndarray) -> np.ndarray:
    """adj(A) = adj(Vᴴ) adj(S) adj(U) = det(U) det(Vᴴ) V diag(∏_{j≠i} s_j) Uᴴ."""
    if a.shape[-1] == 0:
        return np.zeros_like(a)
    u, s, vh = np.linalg.svd(a)
    phase = (np.linalg.det(u) * np.linalg.det(vh))[..., None, None]
    scaled = np.swapaxes(vh, -1, -2).conj() * _exclusive_products(s)[..., None, :]
    return (phase * (scaled @ np.swapaxes(u, -1, -2).conj())).astype(a.dtype, copy=False)


def _minor_products(op: MinorProducts, s: np.ndarray) -> np.ndarray:
    """H_ij = ∏_{k ∉ {i, j}} s_k (H_ii = ∏_{k ≠ i} s_k)."""
    n = s.shape[-1]
    out = np.empty((*s.shape, n), s.dtype)
    for i in range(n):
        without_i = s.copy()
        without_i[..., i] = 1
        out[..., i, :] = _exclusive_products(without_i)
    return out


def _pinv(op: Pinv, a: np.ndarray) -> np.ndarray:
    (rcond,) = op.payload
    return np.linalg.pinv(a) if rcond is None else np.linalg.pinv(a, rcond=rcond)


def _lstsq(op: Lstsq, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    (rcond,) = op.payload
    return batched(lambda m, r: np.linalg.lstsq(m, r, rcond=rcond)[0], a, b)


_COMPUTE: dict[type, Callable[..., Any]] = {
    Inv: lambda op, a: np.linalg.inv(a),
    Solve: lambda op, a, b: np.linalg.solve(a, b),
    TriangularSolve: _triangular_solve,
    Det: lambda op, a: np.asarray(np.linalg.det(a)),
    Adjugate: _adjugate,
    MinorProducts: _minor_products,
    Slogdet: _slogdet,
    LogAbsDet: lambda op, a: np.asarray(np.linalg.slogdet(a)[1]),
    Cholesky: lambda op, a: np.linalg.cholesky(a),
    Eigh: lambda op, a: tuple(np.linalg.eigh(a)),
    Eigvalsh: lambda op, a: np.linalg.eigvalsh(a),
    Svd: lambda op, a: tuple(np.linalg.svd(a, full_matrices=False)),
    SvdFull: lambda op, a: tuple(np.linalg.svd(a, full_matrices=True)),
    Svdvals: lambda op, a: np.linalg.svd(a, compute_uv=False),
    Qr: lambda op, a: tuple(np.linalg.qr(a)),
    QrR: lambda op, a: np.linalg.qr(a, mode="r"),
    QrFull: lambda op, a: tuple(np.linalg.qr(a, mode="complete")),
    QrRaw: lambda op, a: tuple(np.linalg.qr(a, mode="raw")),
    Eig: _eig,
    Eigvals: lambda op, a: np.linalg.eigvals(a).astype(dt.complex_dtype(a.dtype), copy=False),
    Expm: _expm,
    ExpmFrechet: _expm_frechet,
    Pinv: _pinv,
    Lstsq: _lstsq,
}


# Iterative decompositions: LAPACK refuses a matrix holding a NaN or an infinity (and some
# routines print to stdout first), so such matrices are set aside before it runs.
_ITERATIVE = (Svd, SvdFull, Svdvals, Eigh, Eigvalsh, Eig, Eigvals, Pinv, Lstsq)


def _raising_linalg_error(cls: type, compute: Callable[..., Any]) -> Callable[..., Any]:
    """`compute` with numpy's LinAlgError turned into tf8's, naming the op. For the iterative
    decompositions, a matrix that is not finite gets NaN results, as in JAX (the other
    matrices of a batch keep theirs)."""
    iterative = cls in _ITERATIVE

    def kernel(op: Any, *arrays: Any) -> Any:
        if iterative:
            result = _nan_where_not_finite(compute, op, arrays)
            if result is not None:
                return result
        try:
            return compute(op, *arrays)
        except np.linalg.LinAlgError as exc:
            raise LinAlgError(f"{op.name}: {exc}") from None

    return kernel


def _nan_where_not_finite(compute: Callable[..., Any], op: Any, arrays: tuple) -> Any:
    """The results with every matrix of the first operand that is not finite replaced by
    zeros, then NaN in those matrices' results; None when every matrix is finite."""
    a = arrays[0]
    if a.ndim < 2 or a.dtype.kind not in "fc":
        return None
    bad = ~np.isfinite(a).all(axis=(-2, -1))
    if not bad.any():
        return None
    clean = np.where(bad[..., None, None], np.zeros((), a.dtype), a)
    result = compute(op, clean, *arrays[1:])
    outs = list(result) if isinstance(result, tuple) else [result]
    for i, out in enumerate(outs):
        out = np.array(out, copy=True)
        if out.dtype.kind in "fc":
            if a.ndim == 2:
                out[...] = np.nan
            else:
                out[bad] = np.nan  # results share the operand's leading batch axes
        outs[i] = out
    return tuple(outs) if isinstance(result, tuple) else outs[0]


KERNELS: dict[type, Callable[..., Any]] = {
    cls: _raising_linalg_error(cls, compute) for cls, compute in _COMPUTE.items()
}
