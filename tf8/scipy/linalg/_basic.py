"""scipy.linalg's basic functions with JAX's signatures: solve_triangular, cholesky, eigh, expm,
expm_frechet, and det, inv, svd (tf8.linalg's, with scipy's extra arguments)."""

from __future__ import annotations

import warnings
from typing import Any

from tf8 import linalg as _numpy_linalg
from tf8.errors import ParameterError, ShapeError
from tf8.lax.builders import reshape
from tf8.lax.core import apply
from tf8.lax.linalg import as_matrix, as_system, unvector
from tf8.lax.matrix import mH
from tf8.ops.extension import linalg as ops
from tf8.traced import TracedTensor, tensor

_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}


def right_hand_side(name: str, a: Any, b: Any) -> tuple[TracedTensor, TracedTensor, bool]:
    """(A, B, b_was_vector) for JAX's scipy solves: one inexact dtype, B as (..., n, k) with
    A's batch axes broadcast. b is a vector when 1-D, or (deprecated in JAX, with its
    FutureWarning) when A has one more axis than b and b's last axis has A's size."""
    x, y = as_matrix(a), tensor(b)
    if y.ndim == 0:
        raise ShapeError(f"{name}: b must have at least one axis, got a scalar")
    vector = y.ndim == 1
    if not vector and x.ndim == y.ndim + 1 and x.shape[-1] == y.shape[-1]:
        warnings.warn(
            f"tf8.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, and in"
            " the future will be treated as a batched 2D solve (as JAX's). Use b[..., None]"
            " and squeeze the result to avoid this warning.",
            FutureWarning,
            stacklevel=3,
        )
        vector = True
    if vector:
        y = reshape(y, (*y.shape, 1))
    x, y, _ = as_system(name, x, y)
    return x, y, vector


def solve_triangular(
    a: Any,
    b: Any,
    trans: int | str = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    debug: Any = None,
    check_finite: bool = True,
) -> TracedTensor:
    """x with op(T) x = b, T the triangle of `a` that `lower` names.

    Parameters: `a` (..., n, n), of which only the lower (if `lower`) or upper triangle is
    read, its diagonal taken as 1 if `unit_diagonal`; `b` (n,) or (..., n, k); `trans` 0/'N',
    1/'T' or 2/'C' for op = identity, transpose, conjugate transpose. `overwrite_b`, `debug`
    and `check_finite` are accepted and ignored. Batched over leading axes (broadcast).

    >>> import numpy as np
    >>> from tf8.scipy.linalg import solve_triangular
    >>> solve_triangular(np.array([[2.0, 1.0], [0.0, 4.0]]), np.array([4.0, 8.0])).tolist()
    [1.0, 2.0]

    As JAX's: a batch of vectors b (..., n) under a batch of matrices (..., n, n) is solved
    as vectors, with JAX's FutureWarning."""
    if trans not in _TRANS:
        raise ParameterError(
            f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}"
        )
    x, y, vector = right_hand_side("solve_triangular", a, b)
    op = ops.TriangularSolve(bool(lower), _TRANS[trans], bool(unit_diagonal))
    return unvector(apply(op, [x, y])[0], vector)


def cholesky(
    a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> TracedTensor:
    """The Cholesky factor of a Hermitian positive-definite matrix (batched).

    Parameters: `a` (..., n, n); `lower`: return L with A = L Lᴴ, read from A's lower
    triangle, instead of the default upper U with A = Uᴴ U, read from its upper one.
    `overwrite_a`, `check_finite` are ignored. A matrix that is not positive definite gives
    NaN, as JAX's.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import cholesky
    >>> cholesky(np.array([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 1.0], [0.0, 2.0]]
    """
    x = as_matrix(a)
    if lower:
        return _numpy_linalg.cholesky(x, symmetrize_input=False)
    return mH(_numpy_linalg.cholesky(mH(x), symmetrize_input=False))


def eigh(
    a: Any,
    b: Any = None,
    lower: bool = True,
    eigvals_only: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    turbo: bool = True,
    eigvals: Any = None,
    type: int = 1,  # noqa: A002 - scipy's name
    check_finite: bool = True,
) -> Any:
    """(w, v) of the Hermitian matrix (a + aᴴ)/2, eigenvalues ascending; w alone when
    `eigvals_only`.

    Parameters as scipy's; as in JAX, only the standard problem is supported (`b`,
    `eigvals` None and `type` 1, else ParameterError), and the input is symmetrized, so
    `lower` changes nothing. The overwrite and check flags are ignored.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import eigh
    >>> eigh(np.array([[2.0, 1.0], [1.0, 2.0]]), eigvals_only=True).tolist()
    [1.0, 3.0]
    """
    if b is not None:
        raise ParameterError("eigh: only b=None (the standard eigenproblem) is supported")
    if type != 1 or eigvals is not None:
        raise ParameterError("eigh: only type=1 and eigvals=None are supported, as in JAX")
    uplo = "L" if lower else "U"
    if eigvals_only:
        return _numpy_linalg.eigvalsh(a, UPLO=uplo, symmetrize_input=True)
    return tuple(_numpy_linalg.eigh(a, UPLO=uplo, symmetrize_input=True))


def expm(a: Any, *, upper_triangular: bool = False, max_squarings: int = 16) -> TracedTensor:
    """The matrix exponential (scipy.linalg.expm; batched), differentiable to any order.

    `upper_triangular` and `max_squarings` are JAX's tuning hints, accepted and ignored: the
    kernel (scipy's) picks its own scaling, and a triangular input gives the same result.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import expm
    >>> expm(np.zeros((2, 2))).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return apply(ops.Expm(), [as_matrix(a)])[0]


def expm_frechet(a: Any, e: Any, *, method: str | None = None, compute_expm: bool = True) -> Any:
    """The Fréchet derivative L(A, E) of expm at A in direction E; (expm(A), L) when
    `compute_expm`, as scipy. `a` and `e` are (..., n, n) of one shape; `method` is
    accepted and ignored (as JAX's, which takes the JVP of its expm).

    >>> import numpy as np
    >>> from tf8.scipy.linalg import expm_frechet
    >>> expm_frechet(np.zeros((1, 1)), np.ones((1, 1)), compute_expm=False).tolist()
    [[1.0]]
    """
    x, y = as_matrix(a), as_matrix(e)
    if x.shape != y.shape:
        raise ShapeError(f"expm_frechet: A and E must have one shape, got {x.shape} and {y.shape}")
    x, y, _ = as_system("expm_frechet", x, y)
    frechet = apply(ops.ExpmFrechet(), [x, y])[0]
    return (expm(x), frechet) if compute_expm else frechet


def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> TracedTensor:
    """The determinant of each square matrix of `a` (..., n, n); flags ignored.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import det
    >>> round(float(det(np.array([[1.0, 2.0], [3.0, 4.0]]))), 12)
    -2.0
    """
    return _numpy_linalg.det(a)


def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> TracedTensor:
    """The inverse of each square matrix of `a` (..., n, n); flags ignored.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import inv
    >>> inv(np.array([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return _numpy_linalg.inv(a)


def svd(
    a: Any,
    full_matrices: bool = True,
    compute_uv: bool = True,
    overwrite_a: bool = False,
    check_finite: bool = True,
    lapack_driver: str = "gesdd",
) -> Any:
    """(U, s, Vh) of `a` (..., m, n), s alone when not `compute_uv`; U (m, m) and Vh (n, n)
    with `full_matrices`. `lapack_driver` and the flags are accepted and ignored.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import svd
    >>> svd(np.diag([3.0, 4.0]), compute_uv=False).tolist()
    [4.0, 3.0]
    """
    return _numpy_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


__all__ = [
    "cholesky",
    "det",
    "eigh",
    "expm",
    "expm_frechet",
    "inv",
    "right_hand_side",
    "solve_triangular",
    "svd",
]
