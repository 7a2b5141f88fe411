"""tf8.scipy.linalg: scipy.linalg's names and conventions on traced values, differentiable.

`solve_triangular`, `expm` and `expm_frechet` are here only (numpy.linalg has no such
functions); `cholesky` and `eigh` follow scipy's signatures (`lower=` rather than numpy's
UPLO, and scipy's default upper factor for `cholesky`); `inv`, `det` and `svd` are
`tf8.linalg`'s. `check_finite` and `overwrite_*` are accepted and ignored (traced values
are never overwritten).
"""

from __future__ import annotations

from typing import Any

from tf8 import linalg as _numpy_linalg
from tf8.errors import ParameterError
from tf8.lax.core import apply
from tf8.lax.linalg import as_matrix, as_system, unvector
from tf8.lax.matrix import mH
from tf8.ops.extension import linalg as ops
from tf8.traced import TracedTensor

det = _numpy_linalg.det
inv = _numpy_linalg.inv
svd = _numpy_linalg.svd

__all__ = [
    "cholesky",
    "det",
    "eigh",
    "expm",
    "expm_frechet",
    "inv",
    "solve_triangular",
    "svd",
]

_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}


def solve_triangular(
    a: Any,
    b: Any,
    trans: int | str = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> TracedTensor:
    """x with op(T) x = b, T the `lower` (else upper) triangle of a (its diagonal taken as 1
    if `unit_diagonal`), op = identity, transpose or conjugate transpose for trans 0/'N',
    1/'T', 2/'C'. Batched over leading axes; b is a vector when 1-D."""
    if trans not in _TRANS:
        raise ParameterError(
            f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}"
        )
    x, y, vector = as_system("solve_triangular", a, b)
    op = ops.TriangularSolve(bool(lower), _TRANS[trans], bool(unit_diagonal))
    return unvector(apply(op, [x, y])[0], vector)


def cholesky(
    a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> TracedTensor:
    """Cholesky factor of a Hermitian positive-definite matrix: upper U with A = Uᴴ U (read from
    A's upper triangle) by default, lower L with A = L Lᴴ (from the lower one) if `lower`."""
    x = as_matrix(a)
    if lower:
        return _numpy_linalg.cholesky(x, symmetrize_input=False)
    return mH(_numpy_linalg.cholesky(mH(x), symmetrize_input=False))


def eigh(a: Any, lower: bool = True, eigvals_only: bool = False, check_finite: bool = True) -> Any:
    """(w, v) of the Hermitian matrix (a + aᴴ)/2, w alone when `eigvals_only`. As JAX's,
    the input is symmetrized, so `lower` (which triangle scipy reads) changes nothing."""
    uplo = "L" if lower else "U"
    if eigvals_only:
        return _numpy_linalg.eigvalsh(a, UPLO=uplo, symmetrize_input=True)
    return _numpy_linalg.eigh(a, UPLO=uplo, symmetrize_input=True)


def expm(a: Any, *, upper_triangular: bool = False, max_squarings: int = 16) -> TracedTensor:
    """The matrix exponential (scipy.linalg.expm; batched), differentiable to any order.

    `upper_triangular` and `max_squarings` are JAX's tuning hints, accepted and ignored: the
    kernel (scipy's) picks its own scaling, and a triangular input gives the same result."""
    return apply(ops.Expm(), [as_matrix(a)])[0]


def expm_frechet(a: Any, e: Any, compute_expm: bool = True) -> Any:
    """The Fréchet derivative L(A, E) of expm at A in direction E; (expm(A), L) when
    `compute_expm`, as scipy."""
    x, y, _ = as_system("expm_frechet", a, e)
    frechet = apply(ops.ExpmFrechet(), [x, y])[0]
    return (expm(x), frechet) if compute_expm else frechet
