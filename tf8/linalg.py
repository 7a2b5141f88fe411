"""tf8.linalg: numpy.linalg's matrix functions on traced values, differentiable.

Batched over leading axes as numpy. Kernels are numpy's LAPACK calls; ops live in
`tf8.ops.extension.linalg` (family "tf8.linalg.v1"). Integer and bool inputs are computed in
float64. Data a kernel cannot factor (a singular matrix to `solve`/`inv`, a matrix that is
not positive definite to `cholesky`) raises `tf8.errors.LinAlgError` when the program runs;
`det` of a singular matrix is 0, but its derivative needs A⁻¹ and raises too. Repeated
eigenvalues (`eigh`) or singular values (`svd`) make the vector derivatives infinite.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.ad.lax import broadcast, reshape
from tf8.errors import ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.extension import linalg as ops
from tf8.ops.shapes import is_symbolic, shape_str
from tf8.traced import TracedTensor, apply, apply1, tensor

__all__ = [
    "cholesky",
    "det",
    "eigh",
    "eigvalsh",
    "inv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
]


def _matrix(a: Any) -> TracedTensor:
    x = tensor(a)
    if not dt.is_inexact(x.dtype):
        x = apply1("convert", [x], dtype=dt.float64)
    return x


def _one(op: ops.LinalgOp, *args: TracedTensor) -> TracedTensor:
    return apply(op, list(args))[0]


def inv(a: Any) -> TracedTensor:
    """The inverse of each (square) matrix."""
    return _one(ops.Inv(), _matrix(a))


def det(a: Any) -> TracedTensor:
    """The determinant of each (square) matrix."""
    return _one(ops.Det(), _matrix(a))


def slogdet(a: Any) -> tuple[TracedTensor, TracedTensor]:
    """(sign, log|det|) of each square matrix, as numpy.linalg.slogdet."""
    sign, logabsdet = apply(ops.Slogdet(), [_matrix(a)])
    return sign, logabsdet


def cholesky(a: Any) -> TracedTensor:
    """Lower Cholesky factor L (A = L Lᴴ), reading A's lower triangle."""
    return _one(ops.Cholesky(), _matrix(a))


def eigh(a: Any, UPLO: str = "L") -> tuple[TracedTensor, TracedTensor]:  # noqa: N803
    """(eigenvalues ascending, eigenvectors) of a Hermitian matrix read from its lower triangle."""
    _lower_only(UPLO)
    w, v = apply(ops.Eigh(), [_matrix(a)])
    return w, v


def eigvalsh(a: Any, UPLO: str = "L") -> TracedTensor:  # noqa: N803
    """Eigenvalues (ascending) of a Hermitian matrix read from its lower triangle."""
    _lower_only(UPLO)
    return _one(ops.Eigvalsh(), _matrix(a))


def _lower_only(uplo: str) -> None:
    if uplo != "L":
        raise ParameterError(f"eigh/eigvalsh: only UPLO='L' is supported, got {uplo!r}")


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """(U, S, Vh) as numpy.linalg.svd, reduced form only (square input or full_matrices=False)."""
    x = _matrix(a)
    if not compute_uv:
        return svdvals(x)
    m, n = x.shape[-2:] if x.ndim >= 2 else (None, None)
    if full_matrices and m != n:
        raise ParameterError(
            f"svd: full_matrices=True of a {shape_str(x.shape)} matrix is not supported;"
            " pass full_matrices=False for the reduced SVD"
        )
    u, s, vh = apply(ops.Svd(), [x])
    return u, s, vh


def svdvals(a: Any) -> TracedTensor:
    """Singular values, descending (numpy.linalg.svdvals)."""
    return _one(ops.Svdvals(), _matrix(a))


def qr(a: Any, mode: str = "reduced") -> Any:
    """(Q, R) of the reduced QR decomposition; mode='r' returns R alone."""
    x = _matrix(a)
    if mode == "r":
        return _one(ops.QrR(), x)
    if mode != "reduced":
        raise ParameterError(f"qr: mode must be 'reduced' or 'r', got {mode!r}")
    q, r = apply(ops.Qr(), [x])
    return q, r


def solve(a: Any, b: Any) -> TracedTensor:
    """x with a @ x = b; b is a vector only when 1-D (numpy ≥ 2), batch axes broadcast."""
    x, y = _matrix(a), tensor(b)
    dtype = dt.result_type(x.dtype, y.dtype)
    x, y = (t if t.dtype == dtype else apply1("convert", [t], dtype=dtype) for t in (x, y))
    if x.ndim < 2:
        raise ShapeError(f"solve: needs a matrix, got {shape_str(x.shape)}")
    vector = y.ndim == 1
    if vector:
        y = reshape(y, (*y.shape, 1))
    if y.ndim < 2:
        raise ShapeError("solve: right-hand side must have at least 1 axis, got a scalar")
    batch_a, batch_b = x.shape[:-2], y.shape[:-2]
    if batch_a != batch_b:
        if is_symbolic(batch_a) or is_symbolic(batch_b):
            raise ShapeError(f"solve: batch axes {batch_a} and {batch_b} must match")
        try:
            batch = np.broadcast_shapes(batch_a, batch_b)
        except ValueError:
            raise ShapeError(
                f"solve: batch axes of {shape_str(x.shape)} and {shape_str(y.shape)} do not"
                " broadcast"
            ) from None
        x, y = _broadcast_batch(x, batch), _broadcast_batch(y, batch)
    out = _one(ops.Solve(), x, y)
    return reshape(out, out.shape[:-1]) if vector else out


def _broadcast_batch(x: TracedTensor, batch: tuple) -> TracedTensor:
    shape = (*batch, *x.shape[-2:])
    lead = len(shape) - x.ndim
    squeezed = [i for i, d in enumerate(x.shape[:-2]) if d == 1 and batch[lead + i] != 1]
    keep = [i for i in range(x.ndim) if i not in squeezed]
    x = reshape(x, [x.shape[i] for i in keep])
    return broadcast(x, shape, [lead + i for i in keep])
