"""sqrtm, funm, solve_sylvester and eigh_tridiagonal, with JAX's signatures."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tf8 import numpy as tnp
from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.lax.core import apply
from tf8.lax.linalg import as_matrix, broadcast_batch
from tf8.ops import dtypes as dt
from tf8.ops.extension.linalg.schur import EighTridiagonal, Parlett, SolveSylvester, Sqrtm
from tf8.ops.shapes import shape_str
from tf8.traced import TracedTensor, tensor

from ._decompositions import rsf2csf, schur


def sqrtm(a: Any, blocksize: int = 1) -> TracedTensor:
    """The principal square root of one matrix, complex (JAX's algorithm: the complex Schur
    form T = Zᴴ a Z, the upper-triangular root of T by columns, then Z √T Zᴴ).

    Parameters: `a` (n, n); `blocksize` must be 1 (JAX has no blocked version either).
    Not differentiable (nor is JAX's).

    >>> import numpy as np
    >>> from tf8.scipy.linalg import sqrtm
    >>> np.asarray(sqrtm(np.array([[4.0, 0.0], [0.0, 9.0]]))).real.round(12).tolist()
    [[2.0, 0.0], [0.0, 3.0]]

    As JAX's: the result is complex even where a real root exists (scipy's is real then)."""
    if blocksize > 1:
        raise ParameterError("sqrtm: only blocksize=1 is implemented, as in JAX")
    x = as_matrix(a)
    if x.ndim != 2:
        raise ShapeError(f"sqrtm: needs one matrix (2 axes; vmap maps it), got {x.shape}")
    return apply(Sqrtm(), [x])[0]


def funm(a: Any, func: Callable[[Any], Any], disp: bool = True) -> Any:
    """f(a) for a matrix function defined by `func` on its eigenvalues (Schur–Parlett).

    Parameters: `a` (n, n); `func`, applied elementwise to the diagonal of a's complex Schur
    form (a tf8 array); `disp` True returns f(a), False (f(a), an error estimate). Complex.
    Not differentiable (nor is JAX's). Close eigenvalues make it inaccurate.

    >>> import numpy as np, tf8.numpy as tnp
    >>> from tf8.scipy.linalg import funm
    >>> np.asarray(funm(np.diag([1.0, 2.0]), tnp.exp)).real.round(6).tolist()
    [[2.718282, 0.0], [0.0, 7.389056]]
    """
    x = as_matrix(a)
    if x.ndim != 2 or x.shape[0] != x.shape[1]:
        raise ShapeError(f"funm: needs one square matrix, got {shape_str(x.shape)}")
    t, z = rsf2csf(*schur(x))
    values = tnp.asarray(func(tnp.diagonal(t))).astype(t.dtype)
    f, minden = apply(Parlett(), [t, values])
    f = tnp.matmul(tnp.matmul(z, f), tnp.conj(z.T))
    if disp:
        return f
    tol = np.finfo(np.float32 if t.dtype == np.complex64 else np.float64).eps
    minden = tnp.where(minden == 0, tol, minden)
    norm = tnp.max(tnp.sum(tnp.abs(tnp.triu(t, 1)), axis=0))
    estimate = tnp.minimum(1, tnp.maximum(tol, tol / minden * norm))
    return f, tnp.where(tnp.any(tnp.isinf(f)), np.inf, estimate)


def solve_sylvester(
    a: Any, b: Any, c: Any, *, method: str = "schur", tol: float = 1e-8
) -> TracedTensor:
    """X with a X + X b = c (Bartels–Stewart, scipy's), batched.

    Parameters: `a` (..., m, m), `b` (..., n, n), `c` (..., m, n), batch axes broadcast;
    `method` 'schur' or 'eigen' (JAX's two; both are solved by the Schur method here);
    `tol`: where some eigenvalues satisfy |λ_a + λ_b| < tol the problem is (nearly)
    singular and the result is NaN, as JAX's. Real when every operand is.
    Not differentiable (nor is JAX's).

    >>> import numpy as np
    >>> from tf8.scipy.linalg import solve_sylvester
    >>> np.asarray(solve_sylvester(np.eye(2), np.eye(2), 4 * np.eye(2))).tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    if method not in ("schur", "eigen"):
        raise ParameterError(f"solve_sylvester: method must be 'schur' or 'eigen', got {method!r}")
    xs = [as_matrix(v) for v in (a, b, c)]
    dtype = dt.result_type(*(v.dtype for v in xs))
    x, y, z = (v.astype(dtype) for v in xs)
    if z.ndim < 2 or x.shape[-2:] != (z.shape[-2],) * 2 or y.shape[-2:] != (z.shape[-1],) * 2:
        raise ShapeError(
            f"solve_sylvester: incompatible shapes A {shape_str(x.shape)}, "
            f"B {shape_str(y.shape)}, C {shape_str(z.shape)}"
        )
    batch = tuple(np.broadcast_shapes(x.shape[:-2], y.shape[:-2], z.shape[:-2]))
    x, y, z = (broadcast_batch(v, batch) for v in (x, y, z))
    return apply(SolveSylvester(tol), [x, y, z])[0]


_TRIDIAGONAL_DTYPES = (np.float32, np.float64, np.complex64, np.complex128)


def eigh_tridiagonal(
    d: Any,
    e: Any,
    *,
    eigvals_only: bool = False,
    select: str = "a",
    select_range: tuple[float, float] | None = None,
    tol: float | None = None,
    key: Any = None,
) -> Any:
    """Eigenvalues (ascending), and eigenvectors, of the Hermitian tridiagonal matrix with
    diagonal Re(d) and superdiagonal e (subdiagonal conj(e)).

    Parameters: `d` (n,), `e` (n − 1,) of one float or complex dtype; `select` 'a' (all) or
    'i' (the eigenvalues of indices select_range = (lo, hi), inclusive); `eigvals_only`;
    `tol` and `key` (JAX's bisection tolerance and its random start for inverse iteration)
    are accepted and ignored: LAPACK's stemr/stebz (scipy's) compute them. Returns w, or
    (w, v) with v (n, k) the eigenvectors as columns.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import eigh_tridiagonal
    >>> eigh_tridiagonal(np.array([2.0, 2.0]), np.array([1.0]), eigvals_only=True).tolist()
    [1.0, 3.0]

    Differs from JAX: differentiable to any order (first-order perturbation theory: JAX's
    forward mode differentiates its bisection bounds instead, and its reverse mode raises);
    eigenvectors' signs are LAPACK's (JAX's come from a random start); select='v' is
    refused, as JAX's."""
    alpha, beta = tensor(d), tensor(e)
    if alpha.dtype != beta.dtype:
        raise DTypeError(
            f"eigh_tridiagonal: d and e must have one dtype, got {alpha.dtype} and {beta.dtype}"
        )
    if alpha.dtype not in _TRIDIAGONAL_DTYPES:
        raise DTypeError(
            f"eigh_tridiagonal: d and e must be float32, float64, complex64 or complex128, got"
            f" {alpha.dtype}"
        )
    if alpha.ndim != 1:
        raise ShapeError(f"eigh_tridiagonal: d must be a vector, got {shape_str(alpha.shape)}")
    n = alpha.shape[0]
    if select == "a":
        selected = None
    elif select == "i":
        if select_range is None:
            raise ParameterError("eigh_tridiagonal: select='i' needs select_range")
        lo, hi = (int(i) for i in select_range)
        if lo > hi:
            raise ParameterError("eigh_tridiagonal: select_range is an empty index range")
        if lo < 0 or hi >= n:
            raise ParameterError(
                f"eigh_tridiagonal: select_range {select_range} is outside 0..{n - 1}"
            )
        selected = (lo, hi)
    elif select == "v":
        raise ParameterError("eigh_tridiagonal: select='v' is not implemented (nor in JAX)")
    else:
        raise ParameterError(f"eigh_tridiagonal: select must be 'a', 'i' or 'v', got {select!r}")
    w, v = apply(EighTridiagonal(selected), [alpha, beta])
    return w if eigvals_only else (w, v)


__all__ = ["eigh_tridiagonal", "funm", "solve_sylvester", "sqrtm"]
