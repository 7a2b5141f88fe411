"""schur, rsf2csf, hessenberg, qr, qr_multiply and polar, with JAX's signatures."""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8 import linalg as _numpy_linalg
from tf8 import numpy as tnp
from tf8.errors import ParameterError, ShapeError
from tf8.lax.core import apply
from tf8.lax.linalg import as_matrix, broadcast_batch
from tf8.ops import dtypes as dt
from tf8.ops.extension import linalg as ops
from tf8.ops.extension.linalg.schur import (
    Hessenberg,
    HessenbergH,
    QrMultiply,
    QrPivoted,
    QrPivotedR,
    Schur,
)
from tf8.ops.shapes import shape_str
from tf8.traced import TracedTensor


def schur(a: Any, output: str = "real") -> tuple[TracedTensor, TracedTensor]:
    """The Schur decomposition a = Z T Zᴴ (LAPACK's gees, unsorted), batched.

    Parameters: `a` (..., n, n); `output` 'real' (for a real `a`, T quasi-upper triangular,
    with 2 × 2 blocks for complex eigenvalue pairs) or 'complex' (T upper triangular).
    Returns (T, Z), Z unitary. Not differentiable (nor is JAX's): DifferentiationError.
    When T alone is used, Z is not computed.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import schur
    >>> t, z = schur(np.array([[1.0, 2.0], [0.0, 3.0]]))
    >>> np.allclose(np.asarray(z) @ np.asarray(t) @ np.asarray(z).T, [[1, 2], [0, 3]])
    True
    """
    if output not in ("real", "complex"):
        raise ParameterError(f"schur: output must be 'real' or 'complex', got {output!r}")
    x = as_matrix(a)
    if output == "complex":
        x = x.astype(dt.complex_dtype(x.dtype))
    t, z = apply(Schur(), [x])
    return t, z


def rsf2csf(t: Any, z: Any, check_finite: bool = True) -> tuple[TracedTensor, TracedTensor]:
    """Real Schur form (T, Z) to complex Schur form: each 2 × 2 block of T is made upper
    triangular by a Givens rotation G (T ← G T Gᴴ, Z ← Z Gᴴ), from the last block up.

    Parameters: `t`, `z` (..., n, n), as `schur(a)` returns them. Returns complex (T, Z).
    Batched, and differentiable as JAX's (the rotations are built from the blocks'
    eigenvalues, whose derivatives exist where they are distinct).

    >>> import numpy as np
    >>> from tf8.scipy.linalg import rsf2csf
    >>> t, z = rsf2csf(np.array([[0.0, -1.0], [1.0, 0.0]]), np.eye(2))
    >>> np.round(np.diagonal(np.asarray(t)), 12).tolist()
    [1j, -1j]
    """
    tt, zz = as_matrix(t), as_matrix(z)
    for name, x in (("T", tt), ("Z", zz)):
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise ShapeError(f"rsf2csf: {name} must be square, got {shape_str(x.shape)}")
    if tt.shape[-1] != zz.shape[-1]:
        raise ShapeError(
            f"rsf2csf: T and Z must have one size, got {shape_str(tt.shape)} and "
            f"{shape_str(zz.shape)}"
        )
    dtype = dt.complex_dtype(dt.result_type(tt.dtype, zz.dtype))
    tt, zz = tt.astype(dtype), zz.astype(dtype)
    batch = tuple(np.broadcast_shapes(tt.shape[:-2], zz.shape[:-2]))
    tt, zz = broadcast_batch(tt, batch), broadcast_batch(zz, batch)
    n = tt.shape[-1]
    eps = np.finfo(dtype).eps
    for m in range(n - 1, 0, -1):
        tt, zz = _rotate_block(tt, zz, m, eps)
    return tt, zz


def _rotate_block(t: TracedTensor, z: TracedTensor, m: int, eps: float) -> tuple:
    """One step of rsf2csf (JAX's `_update_T_Z`): the rotation that makes T[m, m−1] zero,
    applied where |T[m, m−1]| > eps (|T[m−1, m−1]| + |T[m, m]|)."""
    n = t.shape[-1]
    below = t[..., m, m - 1]
    split = tnp.abs(below) > eps * (tnp.abs(t[..., m - 1, m - 1]) + tnp.abs(t[..., m, m]))
    mu = _numpy_linalg.eigvals(t[..., m - 1 : m + 1, m - 1 : m + 1])[..., 0] - t[..., m, m]
    r = tnp.sqrt(tnp.abs(mu) ** 2 + tnp.abs(below) ** 2).astype(t.dtype)
    r = tnp.where(split, r, 1)  # no division by a zero norm in the branch not taken
    c, s = mu / r, below / r
    g = tnp.stack([tnp.stack([c.conj(), s], -1), tnp.stack([-s, c], -1)], -2)
    rows_new = tnp.matmul(g, t[..., m - 1 : m + 1, m - 1 :])
    rotated = tnp.concatenate([t[..., : m - 1, :], _rows(t, m, rows_new), t[..., m + 1 :, :]], -2)
    g_h = tnp.conj(tnp.swapaxes(g, -1, -2))
    cols_new = tnp.matmul(rotated[..., : m + 1, m - 1 : m + 1], g_h)
    cols = tnp.concatenate([cols_new, rotated[..., m + 1 :, m - 1 : m + 1]], -2)
    rotated = tnp.concatenate([rotated[..., : m - 1], cols, rotated[..., m + 1 :]], -1)
    z_cols = tnp.matmul(z[..., m - 1 : m + 1], g_h)
    z_new = tnp.concatenate([z[..., : m - 1], z_cols, z[..., m + 1 :]], -1)
    t = tnp.where(split[..., None, None], rotated, t)
    z = tnp.where(split[..., None, None], z_new, z)
    keep = np.ones((n, n), bool)
    keep[m, m - 1] = False
    return tnp.where(keep, t, 0), z


def _rows(t: TracedTensor, m: int, rows_new: TracedTensor) -> TracedTensor:
    """Rows m−1, m of t with their columns from m−1 on replaced by `rows_new`."""
    return tnp.concatenate([t[..., m - 1 : m + 1, : m - 1], rows_new], -1)


def hessenberg(
    a: Any, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Any:
    """The Hessenberg form a = Q H Qᴴ (LAPACK's gehrd and orghr), batched.

    Parameters: `a` (..., n, n); `calc_q` also returns Q. Returns H (zero below the first
    subdiagonal), or (H, Q). Not differentiable (nor is JAX's); Q is computed only when it
    is used.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import hessenberg
    >>> h = hessenberg(np.arange(9.0).reshape(3, 3))
    >>> float(np.asarray(h)[2, 0])
    0.0
    """
    if not calc_q:
        return apply(HessenbergH(), [as_matrix(a)])[0]
    h, q = apply(Hessenberg(), [as_matrix(a)])
    return h, q


_QR_MODES = {"full": True, "r": True, "economic": False}


def qr(
    a: Any,
    overwrite_a: bool = False,
    lwork: Any = None,
    mode: str = "full",
    pivoting: bool = False,
    check_finite: bool = True,
) -> tuple[TracedTensor, ...]:
    """The QR decomposition a = Q R (a[:, P] = Q R with `pivoting`), batched.

    Parameters: `a` (..., m, n); `mode` 'full' (Q (m, m), R (m, n)), 'economic'
    (Q (m, k), R (k, n), k = min(m, n)) or 'r' (R alone, (m, n)); `pivoting` adds P, the
    column permutation (int32) that makes R's diagonal non-increasing in magnitude.
    Returns (Q, R), (Q, R, P), (R,) or (R, P). Differentiable (JAX's rules; P is
    constant); `lwork` and the flags are ignored.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import qr
    >>> q, r = qr(np.array([[3.0, 1.0], [4.0, 2.0]]))
    >>> np.allclose(np.asarray(q) @ np.asarray(r), [[3, 1], [4, 2]])
    True

    As JAX's, mode 'raw' is refused (ParameterError)."""
    if mode not in _QR_MODES:
        raise ParameterError(f"qr: mode must be 'full', 'r' or 'economic', got {mode!r}")
    x = as_matrix(a)
    if x.ndim < 2:
        raise ShapeError(f"qr: needs a matrix (at least 2 axes), got {shape_str(x.shape)}")
    full = _QR_MODES[mode]
    if pivoting:
        if mode == "r":  # eagerly too, no Q
            r, p = apply(QrPivotedR(full, True), [x])
            return r, p
        q, r, p = apply(QrPivoted(full), [x])
        return q, r, p
    if mode == "r":
        r = apply(ops.QrR(), [x])[0]
        m, k = x.shape[-2], r.shape[-2]
        if m > k:
            r = tnp.concatenate([r, tnp.zeros((*r.shape[:-2], m - k, r.shape[-1]), r.dtype)], -2)
        return (r,)
    q, r = apply(ops.QrFull() if full else ops.Qr(), [x])
    return q, r


def qr_multiply(
    a: Any,
    c: Any,
    mode: str = "right",
    pivoting: bool = False,
    conjugate: bool = False,
    overwrite_a: bool = False,
    overwrite_c: bool = False,
) -> tuple[TracedTensor, ...]:
    """The product of a's Q factor with c, without forming Q (LAPACK's ormqr).

    Parameters: `a` (..., m, n), k = min(m, n); `c`: (..., p, m) for mode 'right' (c @ Q,
    then its first k columns) or (..., k, p) for 'left' (Q @ c, (m, p)); a 1-D c is a row
    ('right') or a column ('left') and the product is 1-D. `conjugate` uses conj(Q);
    `pivoting` adds P as `qr`. Returns (product, R (k, n)[, P]). Not differentiable (nor
    is JAX's). Batch axes broadcast.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import qr_multiply
    >>> cq, r = qr_multiply(np.eye(2), np.array([1.0, 2.0]))
    >>> np.abs(np.asarray(cq)).tolist()
    [1.0, 2.0]
    """
    if mode not in ("right", "left"):
        raise ParameterError(f"qr_multiply: mode must be 'right' or 'left', got {mode!r}")
    x, y = as_matrix(a), as_matrix(c)
    dtype = dt.result_type(x.dtype, y.dtype)
    x, y = x.astype(dtype), y.astype(dtype)
    if x.ndim < 2:
        raise ShapeError(f"qr_multiply: a must be a matrix, got {shape_str(x.shape)}")
    onedim = y.ndim == 1
    if onedim:
        y = y[:, None] if mode == "left" else y[None, :]
    m, n = x.shape[-2:]
    k = min(m, n)
    if mode == "left" and y.shape[-2] != k:
        raise ShapeError(
            f"qr_multiply: Q @ c needs c with {k} rows (a is {shape_str(x.shape)}), got "
            f"{shape_str(y.shape)}"
        )
    if mode == "right" and y.shape[-1] != m:
        raise ShapeError(
            f"qr_multiply: c @ Q needs c with {m} columns (a is {shape_str(x.shape)}), got "
            f"{shape_str(y.shape)}"
        )
    batch = tuple(np.broadcast_shapes(x.shape[:-2], y.shape[:-2]))
    x, y = broadcast_batch(x, batch), broadcast_batch(y, batch)
    outs = apply(QrMultiply(mode, bool(pivoting), bool(conjugate)), [x, y])
    if onedim:
        outs[0] = tnp.ravel(outs[0])
    return tuple(outs)


def polar(
    a: Any,
    side: str = "right",
    *,
    method: str = "qdwh",
    eps: float | None = None,
    max_iterations: int | None = None,
) -> tuple[TracedTensor, TracedTensor]:
    """The polar decomposition: a = U P ('right', P (n, n)) or a = P U ('left', P (m, m)),
    U with orthonormal columns (or rows) and P Hermitian positive semi-definite; batched.

    Parameters: `a` (..., m, n); `side`; `method` 'qdwh' (JAX's default, which takes
    m ≥ n for side 'right' and m < n for 'left', as JAX's) or 'svd'. tf8 computes both from
    the SVD, so `eps` and `max_iterations` are accepted and ignored.

    >>> import numpy as np
    >>> from tf8.scipy.linalg import polar
    >>> u, p = polar(np.array([[2.0, 0.0], [0.0, -3.0]]))
    >>> np.asarray(u).round(12).tolist(), np.asarray(p).round(12).tolist()
    ([[1.0, 0.0], [0.0, -1.0]], [[2.0, 0.0], [0.0, 3.0]])

    Differs from JAX: differentiable in both modes with either method (JAX's 'qdwh' iterates
    in a while loop, so its reverse mode raises); the derivative needs distinct singular
    values."""
    if side not in ("right", "left"):
        raise ParameterError(f"polar: side must be 'right' or 'left', got {side!r}")
    if method not in ("qdwh", "svd"):
        raise ParameterError(f"polar: method must be 'qdwh' or 'svd', got {method!r}")
    x = as_matrix(a)
    if x.ndim < 2:
        raise ShapeError(f"polar: a must have at least 2 axes, got {shape_str(x.shape)}")
    m, n = x.shape[-2:]
    if method == "qdwh" and (m >= n) != (side == "right"):
        raise ParameterError(
            "polar: method='qdwh' takes m >= n with side='right' and m < n with side='left', "
            f"got {shape_str(x.shape)} with side={side!r} (method='svd' takes any)"
        )
    u, s, vh = _numpy_linalg.svd(x, full_matrices=False)
    s = s.astype(x.dtype)
    unitary = tnp.matmul(u, vh)
    if side == "right":
        return unitary, tnp.matmul(tnp.conj(tnp.swapaxes(vh, -1, -2)) * s[..., None, :], vh)
    return unitary, tnp.matmul(u * s[..., None, :], tnp.conj(tnp.swapaxes(u, -1, -2)))


__all__ = ["hessenberg", "polar", "qr", "qr_multiply", "rsf2csf", "schur"]
