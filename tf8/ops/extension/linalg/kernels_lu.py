"""Kernels of LU, the LU and Cholesky solves and their factor derivatives, and the
triangle-restricted products: BLAS/LAPACK calls (`blas.py`), looped over batch axes."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import LinAlgError

from .blas import accumulate_outer, cho_solve, lapack, mask, masked_outer, tri_mul
from .factor_tangents import (
    CholeskyFactorProduct,
    CholeskyFactorProductT,
    LuFactorProduct,
    LuFactorProductT,
)
from .kernels import batched
from .lu import CholeskySolve, Lu, LuPruned, LuSolve, PivotsToPermutation
from .triangular import PermuteRows, TriangularOuter, TriangularProduct


# --- triangle-restricted products --------------------------------------------------------
def _triangular_product_2d(op: TriangularProduct, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    lower, trans, strict = op.payload
    out = tri_mul(a, b, lower, trans, unit=strict)
    if strict and out.size:
        out -= b
    return out


def _triangular_product(op: TriangularProduct, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return batched(functools.partial(_triangular_product_2d, op), a, b)


def _triangular_outer(op: TriangularOuter, c: np.ndarray, b: np.ndarray) -> np.ndarray:
    lower, strict = op.payload
    if c.ndim == 2:
        return masked_outer(c, b, lower, strict)
    out = np.matmul(c, np.swapaxes(b, -1, -2))
    np.multiply(out, mask(c.shape[-2], lower, strict), out=out)
    return out


def _permute_rows(op: PermuteRows, x: np.ndarray, p: np.ndarray) -> np.ndarray:
    (inverse,) = op.payload
    index = p[..., None].astype(np.intp, copy=False)
    if x.ndim == 2:
        if not inverse:
            return x[index[:, 0]]
        out = np.empty_like(x)
        out[index[:, 0]] = x
        return out
    if not inverse:
        return np.take_along_axis(x, index, axis=-2)
    out = np.empty_like(x)
    np.put_along_axis(out, np.broadcast_to(index, x.shape), x, axis=-2)
    return out


# --- LU ----------------------------------------------------------------------------------
def _check_pivots(name: str, pivots: np.ndarray, m: int) -> None:
    """LAPACK reads rows pivots[i] unchecked: a pivot outside [0, m) would read past them."""
    if pivots.size and (pivots.min() < 0 or pivots.max() >= m):
        raise LinAlgError(
            f"{name}: pivots must lie in [0, {m}), got {pivots.min()} to {pivots.max()}"
        )


def _permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """The permutation of 0..m−1 that the row swaps `pivots` (0-based, in order) make."""
    if pivots.size == 0:
        return np.arange(m, dtype=np.int32)
    rows = np.arange(m, dtype=np.float64)[:, None]
    return lapack("laswp", np.dtype(np.float64))(rows, pivots)[:, 0].astype(np.int32)


def _lu_2d(a: np.ndarray, with_permutation: bool) -> tuple[np.ndarray, ...]:
    m, n = a.shape
    if a.size == 0:
        lu, pivots = a.copy(), np.zeros(min(m, n), np.int32)
    else:
        lu, pivots, info = lapack("getrf", a.dtype)(a)
        if info < 0:
            raise LinAlgError(f"lu: LAPACK getrf refused argument {-info}")
        pivots = pivots.astype(np.int32, copy=False)
    if not with_permutation:
        return lu, pivots
    return lu, pivots, _permutation(pivots, m)


def _lu(op: Lu, a: np.ndarray) -> tuple[np.ndarray, ...]:
    return batched(lambda x: _lu_2d(x, True), a)


def _lu_pruned(op: LuPruned, a: np.ndarray) -> Any:
    (live,) = op.payload
    lu, pivots = batched(lambda x: _lu_2d(x, False), a)
    outs = [x for x, alive in zip((lu, pivots), live) if alive]
    return tuple(outs) if len(outs) > 1 else outs[0]


def _pivots_to_permutation(op: PivotsToPermutation, pivots: np.ndarray) -> np.ndarray:
    (m,) = op.payload
    _check_pivots("lu_pivots_to_permutation", pivots, m)
    batch = pivots.shape[:-1]
    out = np.empty((*batch, m), np.int32)
    for index in np.ndindex(*batch):
        out[index] = _permutation(np.asarray(pivots[index], np.int32), m)
    return out


def _lu_solve_2d(trans: int, lu: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    if b.size == 0:
        return np.zeros(b.shape, b.dtype)
    getrs = lapack("getrs", lu.dtype)
    x, info = getrs(lu, np.asarray(pivots, np.int32), b, trans=trans)
    if info < 0:
        raise LinAlgError(f"lu_solve: LAPACK getrs refused argument {-info}")
    return x


def _lu_solve(op: LuSolve, lu: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    _check_pivots("lu_solve", pivots, lu.shape[-1])
    trans = op.payload[0] if lu.dtype.kind == "c" else min(op.payload[0], 1)
    return batched(functools.partial(_lu_solve_2d, trans), lu, pivots, b)


def _cho_solve(op: CholeskySolve, c: np.ndarray, b: np.ndarray) -> np.ndarray:
    return batched(functools.partial(cho_solve, "cho_solve", op.payload[0]), c, b)


# --- the products a factor's derivative makes (factor_tangents.py) ------------------------
def _cholesky_product(lower: bool, c: np.ndarray, x: np.ndarray, t: np.ndarray) -> Any:
    """dF_c(t) x: Tᴴ (U x) + Uᴴ (T x), or T (Lᴴ x) + L (Tᴴ x)."""
    if lower:
        return tri_mul(t, tri_mul(c, x, True, 2), True, 0) + tri_mul(
            c, tri_mul(t, x, True, 2), True, 0
        )
    return tri_mul(t, tri_mul(c, x, False, 0), False, 2) + tri_mul(
        c, tri_mul(t, x, False, 0), False, 2
    )


def _cholesky_product_t(lower: bool, c: np.ndarray, x: np.ndarray, w: np.ndarray) -> Any:
    """triu([ȳ, Ū w] [w̄, x]ᵀ), y = U x; or tril([w, x̄] [y, conj(Lᵀ w)]ᵀ), y = Lᴴ x."""
    if lower:
        left = np.concatenate([w, x.conj()], 1)
        right = np.concatenate([tri_mul(c, x, True, 2), tri_mul(c, w.conj(), True, 2)], 1)
    else:
        y, uw = tri_mul(c, x, False, 0), tri_mul(c, w.conj(), False, 0)
        left = np.concatenate([y, uw], 1).conj()
        right = np.concatenate([w.conj(), x], 1)
    return masked_outer(left, right, lower, strict=False)


def _lu_product(lu: np.ndarray, x: np.ndarray, t: np.ndarray) -> Any:
    """T_L (U x) + L (T_U x)."""
    y = tri_mul(lu, x, False, 0)
    return (
        tri_mul(t, y, True, 0, unit=True)
        - y
        + tri_mul(lu, tri_mul(t, x, False, 0), True, 0, unit=True)
    )


def _lu_product_t(lu: np.ndarray, x: np.ndarray, w: np.ndarray) -> Any:
    """tril(w yᵀ, −1) + triu(q xᵀ), y = U x, q = Lᵀ w; in one array as
    tril(w yᵀ − q xᵀ, −1) + q xᵀ."""
    y, q = tri_mul(lu, x, False, 0), tri_mul(lu, w, True, 1, unit=True)
    out = masked_outer(np.concatenate([w, -q], 1), np.concatenate([y, x], 1), True, True)
    return accumulate_outer(out, q, x)


def _factor_kernel(fn: Callable[..., Any]) -> Callable[..., Any]:
    def kernel(op: Any, factor: np.ndarray, x: np.ndarray, direction: np.ndarray) -> Any:
        two_d = functools.partial(fn, op.payload[0]) if op.payload else fn
        return batched(two_d, factor, x, direction)

    return kernel


_WIDE = {np.dtype(np.float32): np.float64, np.dtype(np.complex64): np.complex128}


def _in_double(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`kernel` computing float32 and complex64 in double precision, rounded once at the end
    (as scipy's special functions do; a solve's rounding errors grow with its condition
    number). The factorisation itself (getrf) stays in its dtype: its pivots are JAX's."""

    def run(op: Any, *arrays: np.ndarray) -> Any:
        dtype = next((a.dtype for a in arrays if a.dtype in _WIDE), None)
        if dtype is None:
            return kernel(op, *arrays)
        wide = [a.astype(_WIDE[a.dtype]) if a.dtype in _WIDE else a for a in arrays]
        return kernel(op, *wide).astype(dtype)

    return run


_EXACT_DTYPE: dict[type, Callable[..., Any]] = {
    PermuteRows: _permute_rows,
    Lu: _lu,
    LuPruned: _lu_pruned,
    PivotsToPermutation: _pivots_to_permutation,
}
_SOLVES_AND_PRODUCTS: dict[type, Callable[..., Any]] = {
    CholeskyFactorProduct: _factor_kernel(_cholesky_product),
    CholeskyFactorProductT: _factor_kernel(_cholesky_product_t),
    LuFactorProduct: _factor_kernel(_lu_product),
    LuFactorProductT: _factor_kernel(_lu_product_t),
    TriangularProduct: _triangular_product,
    TriangularOuter: _triangular_outer,
    LuSolve: _lu_solve,
    CholeskySolve: _cho_solve,
}
KERNELS: dict[type, Callable[..., Any]] = {
    **_EXACT_DTYPE,
    **{cls: _in_double(kernel) for cls, kernel in _SOLVES_AND_PRODUCTS.items()},
}
