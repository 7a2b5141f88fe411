"""tf8.linalg: numpy.linalg's matrix functions on traced values, differentiable.

Batched over leading axes as numpy. Kernels are numpy's LAPACK calls; ops live in
`tf8.ops.extension.linalg` (family "tf8.linalg.v1"). Integer and bool inputs are computed in
JAX's inexact dtype (int64 in float64; bool, uint8, int32 and uint32 in float32). Data a
kernel cannot factor (a singular matrix to `solve`/`inv`, a matrix that is not positive
definite to `cholesky`) raises `tf8.errors.LinAlgError` when the program runs; `det` of a
singular matrix is 0, and its derivative (the adjugate, to second order) is defined there, as
JAX's. Repeated eigenvalues (`eigh`, `eig`) or singular values (`svd`) make the vector
derivatives infinite. `cholesky`, `eigh` and `eigvalsh` factor (A + Aᴴ)/2 by default, as JAX's
(`symmetrize_input=False` reads one triangle, as numpy's).
Where numpy ≥ 2 and JAX return a named tuple, so does tf8 (`slogdet(a).logabsdet`,
`eigh(a).eigenvectors`, `svd(a).S`, `qr(a).R`); `lstsq` returns one too (numpy's is plain).

Derivatives that need more than numpy's contract says: `eig` is always complex (numpy's is
real when every eigenvalue is); `pinv` and `lstsq` differentiate where the rank is locally
constant; the extra columns of `svd(..., full_matrices=True)` (see `SvdFull`) are a basis
chosen by LAPACK, and only quantities independent of that choice have meaningful derivatives.
"""

from ._compositions import cond, matrix_rank, multi_dot, tensorinv, tensorsolve
from ._core import (
    EighResult,
    EigResult,
    LstsqResult,
    QRResult,
    SlogdetResult,
    SVDResult,
    cholesky,
    det,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    inv,
    lstsq,
    matrix_power,
    norm,
    pinv,
    qr,
    slogdet,
    solve,
    svd,
    svdvals,
)

__all__ = [
    "cholesky",
    "cond",
    "det",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
]
