"""The linalg family ("tf8.linalg.v1"): batched matrix ops, their shape rules and pruning.

One module per group: `base` (the op base class, shape checks), `solve` (inv, solve,
triangular_solve, det, slogdet, cholesky), `decompositions` (eigh, svd, qr), `eig` (general
eigendecomposition), `lstsq` (pinv, lstsq), `expm` (matrix exponential and its Fréchet
derivative), `lu` (LU, the LU and Cholesky solves), `triangular` and `factor_tangents` (the
products their derivatives are written in), `schur` (schur, hessenberg, sqrtm, funm's
recurrence, solve_sylvester, pivoted QR, qr_multiply, eigh_tridiagonal); numpy/scipy kernels
in `kernels`, `kernels_lu` (on `blas`) and `kernels_scipy`, AD rules in
`tf8.ad.families.linalg*`. The public functions are in `tf8.linalg` and `tf8.scipy.linalg`.
"""

from .base import LinalgOp, Pruned
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

__all__ = [
    "Adjugate",
    "Cholesky",
    "Det",
    "Eig",
    "Eigh",
    "Eigvals",
    "Eigvalsh",
    "Expm",
    "ExpmFrechet",
    "Inv",
    "LinalgOp",
    "LogAbsDet",
    "Lstsq",
    "MinorProducts",
    "Pinv",
    "Pruned",
    "Qr",
    "QrFull",
    "QrR",
    "QrRaw",
    "Slogdet",
    "Solve",
    "Svd",
    "SvdFull",
    "Svdvals",
    "TriangularSolve",
]
