"""tf8.scipy.linalg: `jax.scipy.linalg`'s names on traced values, differentiable.

Every function takes JAX's signature, semantics and dtypes; `overwrite_*` and `check_finite`
are accepted and ignored (traced values are never overwritten). Decompositions are
extension ops of the "tf8.linalg.v1" family that compute only the outputs a program reads
(`schur` without Z, `hessenberg` without Q, `qr` without Q, `lu` without its permutation,
`eigh_tridiagonal` without vectors).

Derivatives, as in JAX: LU (`lu`, `lu_factor`, `lu_solve`), Cholesky (`cho_factor`,
`cho_solve`), `solve`, `qr`, `polar`, `rsf2csf`, `expm`, `expm_frechet`, the special
matrices and the basics differentiate to any order; `schur`, `hessenberg`, `sqrtm`, `funm`,
`solve_sylvester` and `qr_multiply` raise `DifferentiationError` (JAX: NotImplementedError).
Where tf8 differentiates more than JAX (`polar`'s default method, `eigh_tridiagonal`), the
function's docstring says so.

Modules: `_basic` (solve_triangular, cholesky, eigh, expm, expm_frechet, det, inv, svd),
`_lu` (lu, lu_factor, lu_solve, cho_factor, cho_solve, solve), `_special` and `_sizes` (the
special matrices), `_decompositions` (schur, rsf2csf, hessenberg, qr, qr_multiply, polar),
`_functions` (sqrtm, funm, solve_sylvester, eigh_tridiagonal).
"""

from ._basic import cholesky, det, eigh, expm, expm_frechet, inv, solve_triangular, svd
from ._decompositions import hessenberg, polar, qr, qr_multiply, rsf2csf, schur
from ._functions import eigh_tridiagonal, funm, solve_sylvester, sqrtm
from ._lu import cho_factor, cho_solve, lu, lu_factor, lu_solve, solve
from ._sizes import dft, hadamard, helmert, hilbert, invhilbert, invpascal, pascal
from ._special import (
    block_diag,
    circulant,
    companion,
    convolution_matrix,
    fiedler,
    fiedler_companion,
    hankel,
    leslie,
    toeplitz,
)

__all__ = [
    "block_diag",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "circulant",
    "companion",
    "convolution_matrix",
    "det",
    "dft",
    "eigh",
    "eigh_tridiagonal",
    "expm",
    "expm_frechet",
    "fiedler",
    "fiedler_companion",
    "funm",
    "hadamard",
    "hankel",
    "helmert",
    "hessenberg",
    "hilbert",
    "inv",
    "invhilbert",
    "invpascal",
    "leslie",
    "lu",
    "lu_factor",
    "lu_solve",
    "pascal",
    "polar",
    "qr",
    "qr_multiply",
    "rsf2csf",
    "schur",
    "solve",
    "solve_sylvester",
    "solve_triangular",
    "sqrtm",
    "svd",
    "toeplitz",
]
