"""LU and Cholesky factorisations and the solves on them, and `solve` (JAX's signatures).

`lu_solve` and `cho_solve` are single ops (LAPACK's getrs and potrs) whose derivatives in the
factors and the right-hand side are written as triangular solves and triangle-restricted
outer products (`tf8.ad.families.linalg_lu`), so reverse mode does no O(n³) work.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8 import linalg as _numpy_linalg
from tf8 import numpy as tnp
from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.lax.builders import broadcast, convert
from tf8.lax.control.solves import custom_linear_solve
from tf8.lax.core import apply
from tf8.lax.linalg import as_matrix, unvector
from tf8.lax.stop import stop_gradient
from tf8.ops import dtypes as dt
from tf8.ops.extension.linalg.lu import CholeskySolve, Lu, LuPruned, LuSolve
from tf8.ops.shapes import shape_str
from tf8.traced import TracedTensor, tensor

from ._basic import cholesky, right_hand_side

_TRANS = (0, 1, 2)


def lu_factor(
    a: Any, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[TracedTensor, TracedTensor]:
    """LU factors with partial pivoting, for `lu_solve`: (lu, piv).

    Parameters: `a` (..., m, n), batched over leading axes. Returns `lu` (..., m, n), holding
    U on and above the diagonal and L (unit diagonal, not stored) below it, and `piv`
    (..., min(m, n)) int32: row i was swapped with row piv[i], in order (0-based).
    Differentiable in `a` (JAX's rule). The flags are ignored. A singular matrix is not an
    error: its U has a zero on the diagonal.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import lu_factor
    >>> lu, piv = lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> piv.tolist(), lu.tolist()
    ([1, 1], [[3.0, 4.0], [0.3333333333333333, 0.6666666666666667]])
    """
    lu_, pivots = apply(LuPruned((True, True, False)), [as_matrix(a)])  # no permutation
    return lu_, pivots


def lu_solve(
    lu_and_piv: tuple[Any, Any],
    b: Any,
    trans: int = 0,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> TracedTensor:
    """x with op(A) x = b, from `lu_factor(A)`.

    Parameters: `lu_and_piv`, the pair `lu_factor` returns (lu (..., n, n), piv (..., n));
    `b` (n,) or (..., n, k), batch axes broadcast with lu's; `trans` 0, 1 or 2 for
    op = identity, transpose, conjugate transpose. Differentiable in lu and b, to any order.
    The flags are ignored; pivots outside [0, n) raise LinAlgError when the kernel runs.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import lu_factor, lu_solve
    >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> np.round(np.asarray(lu_solve(lu_factor(a), np.array([5.0, 11.0]))), 12).tolist()
    [1.0, 2.0]

    As JAX's: `trans` must be an int (scipy also takes 'N', 'T', 'C'), and a batch of
    vectors (..., n) under a batch of factors (..., n, n) is solved as vectors, with JAX's
    FutureWarning."""
    if isinstance(trans, bool) or trans not in _TRANS:
        raise ParameterError(f"lu_solve: trans must be 0, 1 or 2, got {trans!r}")
    factors, pivots = _pair("lu_solve", lu_and_piv)
    x, y, vector = right_hand_side("lu_solve", factors, b)
    pivots = _pivots(pivots, x)
    return unvector(apply(LuSolve(trans), [x, pivots, y])[0], vector)


def _pair(name: str, pair: Any) -> tuple[Any, Any]:
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise ParameterError(f"{name}: the factors must be a pair, got {type(pair).__name__}")
    return pair[0], pair[1]


def _pivots(pivots: Any, lu: TracedTensor) -> TracedTensor:
    """The pivots as int32 with lu's (broadcast) batch axes."""
    p = tensor(pivots)
    if not dt.is_integer(p.dtype):
        raise DTypeError(f"lu_solve: pivots must be integers, got {p.dtype}")
    n = lu.shape[-1]
    if p.ndim < 1 or p.shape[-1] != n:
        raise ShapeError(
            f"lu_solve: pivots {shape_str(p.shape)} do not fit factors {shape_str(lu.shape)}"
        )
    shape = (*lu.shape[:-2], n)
    if p.shape != shape:
        try:
            np.broadcast_shapes(p.shape, shape)
        except ValueError:
            raise ShapeError(
                f"lu_solve: pivots {shape_str(p.shape)} do not broadcast to {shape_str(shape)}"
            ) from None
        p = broadcast(p, shape, range(len(shape) - p.ndim, len(shape)))
    return convert(p, dt.int32)


def lu(
    a: Any, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[TracedTensor, ...]:
    """LU decomposition with partial pivoting of one matrix: a = p @ l @ u.

    Parameters: `a` (m, n). Returns (p, l, u) with p (m, m) a permutation matrix, l (m, k)
    unit lower triangular, u (k, n) upper triangular, k = min(m, n); with `permute_l`,
    (p @ l, u). Differentiable in `a` (JAX's rule, through the factors); flags ignored.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import lu
    >>> p, l, u = lu(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> p.tolist(), u.tolist()
    ([[0.0, 1.0], [1.0, 0.0]], [[3.0, 4.0], [0.0, 0.6666666666666667]])

    As JAX's: one matrix only (ShapeError on a batch; `vmap` maps it), and p is real even
    for a complex `a`."""
    x = as_matrix(a)
    if x.ndim != 2:
        raise ShapeError(f"lu: needs one matrix (2 axes), got {shape_str(x.shape)}")
    factors, _, permutation = apply(Lu(), [x])
    m, n = x.shape
    k = min(m, n)
    rows = tnp.arange(m, dtype=dt.int32)[:, None]
    p = tnp.asarray(permutation[None, :] == rows, dtype=dt.real_dtype(x.dtype))
    lower = tnp.tril(factors, -1)[:, :k] + tnp.eye(m, k, dtype=x.dtype)
    upper = tnp.triu(factors)[:k, :]
    if permute_l:
        return tnp.matmul(p.astype(x.dtype), lower), upper
    return p, lower, upper


def cho_factor(
    a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[TracedTensor, bool]:
    """Cholesky factor for `cho_solve`: (c, lower), c = `cholesky(a, lower)`.

    Parameters: `a` (..., n, n) Hermitian positive definite, read from the triangle `lower`
    names; flags ignored. As JAX's (and unlike scipy's), the other triangle of c is zero.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import cho_factor
    >>> c, lower = cho_factor(np.array([[4.0, 2.0], [2.0, 5.0]]))
    >>> c.tolist(), lower
    ([[2.0, 1.0], [0.0, 2.0]], False)
    """
    return cholesky(a, lower=lower), lower


def cho_solve(
    c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False, check_finite: bool = True
) -> TracedTensor:
    """x with A x = b, from A's Cholesky factor `cho_factor(A)`.

    Parameters: `c_and_lower` = (c, lower): c (..., n, n) whose upper triangle is U with
    A = Uᴴ U, or whose lower one is L with A = L Lᴴ when `lower` (the other triangle is not
    read); `b` (n,) or (..., n, k), batch axes broadcast. Differentiable in c and b, to any
    order. The flags are ignored.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import cho_factor, cho_solve
    >>> a = np.array([[4.0, 2.0], [2.0, 5.0]])
    >>> np.asarray(cho_solve(cho_factor(a), np.array([8.0, 12.0]))).round(12).tolist()
    [1.0, 2.0]

    As JAX's: a batch of vectors (..., n) under a batch of factors is solved as vectors,
    with JAX's FutureWarning."""
    factor, lower = _pair("cho_solve", c_and_lower)
    x, y, vector = right_hand_side("cho_solve", factor, b)
    return unvector(apply(CholeskySolve(bool(lower)), [x, y])[0], vector)


_ASSUME = ("gen", "sym", "her", "pos")


def solve(
    a: Any,
    b: Any,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    debug: bool = False,
    check_finite: bool = True,
    assume_a: str = "gen",
) -> TracedTensor:
    """x with a @ x = b.

    Parameters: `a` (..., n, n); `b` (n,) or (..., n, k), as `tf8.numpy.linalg.solve`;
    `assume_a` one of JAX's 'gen', 'sym', 'her' (an LU solve) or 'pos' (a Cholesky solve
    of the triangle `lower` names, differentiated implicitly as JAX's, by
    `lax.custom_linear_solve` with the full matvec a @ x). The flags are ignored.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import solve
    >>> a = np.array([[4.0, 2.0], [2.0, 5.0]])
    >>> np.asarray(solve(a, np.array([8.0, 12.0]), assume_a="pos")).round(12).tolist()
    [1.0, 2.0]

    As JAX's, scipy's newer structures ('diagonal', 'banded', 'tridiagonal', ...) are
    refused (ParameterError)."""
    if assume_a not in _ASSUME:
        raise ParameterError(f"solve: assume_a must be one of {list(_ASSUME)}, got {assume_a!r}")
    if assume_a != "pos":
        return _numpy_linalg.solve(a, b)
    x, y, vector = right_hand_side("solve", a, b)
    factors = cho_factor(stop_gradient(x), lower=lower)

    def matvec(v: TracedTensor) -> TracedTensor:
        return tnp.matmul(x, v)

    def cho(_: Any, v: TracedTensor) -> TracedTensor:
        return cho_solve(factors, v)

    return unvector(custom_linear_solve(matvec, y, cho, symmetric=True), vector)


__all__ = ["cho_factor", "cho_solve", "lu", "lu_factor", "lu_solve", "solve"]
