"""scipy.linalg's special matrices built from arrays, with JAX's signatures and dtypes.

`toeplitz`, `hankel`, `circulant`, `leslie`, `companion`, `fiedler`, `fiedler_companion` and
`convolution_matrix` map over leading axes as JAX's do (`jnp.vectorize`), broadcasting the
operands' batch axes, and are differentiable: each is a gather or a few elementwise ops on
its inputs; `block_diag` joins its arguments. The matrices of a size are in `_sizes`.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from tf8 import numpy as tnp
from tf8.errors import ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.shapes import shape_str
from tf8.traced import TracedTensor, tensor


def _vectors(name: str, *arrays: Any) -> list[TracedTensor]:
    """The arrays as traced values of at least one axis, leading axes broadcast together."""
    xs = [tnp.atleast_1d(tensor(a)) for a in arrays]
    try:
        batch = np.broadcast_shapes(*(x.shape[:-1] for x in xs))
    except ValueError:
        shapes = ", ".join(shape_str(x.shape) for x in xs)
        raise ShapeError(f"{name}: the leading axes of {shapes} do not broadcast") from None
    return [tnp.broadcast_to(x, (*batch, x.shape[-1])) for x in xs]


def _inexact(x: TracedTensor) -> TracedTensor:
    return x if dt.is_inexact(x.dtype) else x.astype(dt.float_dtype(x.dtype))


def toeplitz(c: Any, r: Any = None) -> TracedTensor:
    """The Toeplitz matrix T[i, j] = c[i − j] (i ≥ j), r[j − i] (i < j).

    Parameters: `c` (..., m), the first column; `r` (..., n), the first row (its first entry
    is ignored), by default conj(c). Leading axes broadcast; the result is (..., m, n) in
    c's and r's promoted dtype.

    >>> from tf8.scipy.linalg import toeplitz
    >>> toeplitz([1, 2, 3], [1, 4]).tolist()
    [[1, 4], [2, 1], [3, 2]]

    As JAX's: leading axes are a batch (scipy flattens a multi-axis c)."""
    if r is None:
        r = tnp.conj(tnp.asarray(c))
    c_, r_ = _vectors("toeplitz", c, r)
    m, n = c_.shape[-1], r_.shape[-1]
    dtype = dt.result_type(c_.dtype, r_.dtype)
    if m == 0 or n == 0:
        return tnp.zeros((*c_.shape[:-1], m, n), dtype)
    elements = tnp.concatenate([tnp.flip(c_, -1), r_[..., 1:]], axis=-1, dtype=dtype)
    index = (m - 1) - np.arange(m)[:, None] + np.arange(n)[None, :]
    return tnp.take(elements, index, axis=-1)


def hankel(c: Any, r: Any = None) -> TracedTensor:
    """The Hankel matrix H[i, j] = c[i + j] (i + j < m), r[i + j − m + 1] after.

    Parameters: `c` (..., m), the first column; `r` (..., n), the last row (its first entry
    is ignored), by default zeros. Leading axes broadcast; (..., m, n).

    >>> from tf8.scipy.linalg import hankel
    >>> hankel([1, 2, 3]).tolist()
    [[1, 2, 3], [2, 3, 0], [3, 0, 0]]
    """
    c_ = tensor(c)
    r_ = tnp.zeros_like(c_) if r is None else tensor(r)
    if c_.ndim == 0 or r_.ndim == 0:
        raise ShapeError("hankel: c and r must have at least one axis, got a scalar")
    c_, r_ = _vectors("hankel", c_, r_)
    m, n = c_.shape[-1], r_.shape[-1]
    dtype = dt.result_type(c_.dtype, r_.dtype)
    if m == 0 or n == 0:
        return tnp.zeros((*c_.shape[:-1], m, n), dtype)
    elements = tnp.concatenate([c_, r_[..., 1:]], axis=-1, dtype=dtype)
    return tnp.take(elements, np.arange(m)[:, None] + np.arange(n)[None, :], axis=-1)


def circulant(c: Any) -> TracedTensor:
    """The circulant matrix C[i, j] = c[(i − j) mod n] of `c` (..., n): (..., n, n).

    >>> from tf8.scipy.linalg import circulant
    >>> circulant([1, 2, 3]).tolist()
    [[1, 3, 2], [2, 1, 3], [3, 2, 1]]
    """
    (c_,) = _vectors("circulant", c)
    n = c_.shape[-1]
    return tnp.take(c_, (np.arange(n)[:, None] - np.arange(n)[None, :]) % n, axis=-1)


def leslie(f: Any, s: Any) -> TracedTensor:
    """The Leslie matrix: fecundities `f` (..., n) on the first row, survival rates `s`
    (..., n − 1) on the subdiagonal; (..., n, n) in their promoted dtype.

    >>> from tf8.scipy.linalg import leslie
    >>> leslie([0.5, 1.0], [0.25]).tolist()
    [[0.5, 1.0], [0.25, 0.0]]
    """
    f_, s_ = (tnp.atleast_1d(tensor(x)) for x in (f, s))
    if f_.shape[-1] < 2:
        raise ShapeError(f"leslie: f needs at least 2 entries on its last axis, got {f_.shape}")
    if s_.shape[-1] != f_.shape[-1] - 1:
        raise ShapeError(
            f"leslie: s must have one entry fewer than f on the last axis, got f {f_.shape}"
            f" and s {s_.shape}"
        )
    f_, s_ = _vectors("leslie", f_, s_)
    dtype = dt.result_type(f_.dtype, s_.dtype)
    n = f_.shape[-1]
    diagonal = tnp.eye(n - 1, dtype=bool)
    survival = tnp.where(diagonal, s_[..., :, None].astype(dtype), tnp.zeros((), dtype))
    survival = tnp.concatenate([survival, tnp.zeros((*s_.shape[:-1], n - 1, 1), dtype)], -1)
    return tnp.concatenate([f_[..., None, :].astype(dtype), survival], -2)


def companion(a: Any) -> TracedTensor:
    """The companion matrix of the polynomial with coefficients `a` (..., n), highest degree
    first: −a[1:]/a[0] on the first row, ones on the subdiagonal; (..., n − 1, n − 1),
    inexact.

    >>> from tf8.scipy.linalg import companion
    >>> companion([1, -3, 2]).tolist()
    [[3.0, -2.0], [1.0, 0.0]]
    """
    (a_,) = _vectors("companion", _inexact(tnp.asarray(a)))
    if a_.shape[-1] < 2:
        raise ShapeError(
            f"companion: a needs at least 2 entries on its last axis, got {shape_str(a_.shape)}"
        )
    m = a_.shape[-1] - 1
    first = -a_[..., 1:] / a_[..., :1]
    rest = tnp.broadcast_to(tnp.eye(m, dtype=a_.dtype)[:-1], (*a_.shape[:-1], m - 1, m))
    return tnp.concatenate([first[..., None, :], rest], axis=-2)


def fiedler(a: Any) -> TracedTensor:
    """The symmetric Fiedler matrix F[i, j] = |a[i] − a[j]| of `a` (..., n): (..., n, n).

    >>> from tf8.scipy.linalg import fiedler
    >>> fiedler([1, 4, 2]).tolist()
    [[0, 3, 1], [3, 0, 2], [1, 2, 0]]
    """
    (a_,) = _vectors("fiedler", a)
    return tnp.abs(a_[..., :, None] - a_[..., None, :])


def fiedler_companion(a: Any) -> TracedTensor:
    """The Fiedler companion matrix of the polynomial with coefficients `a` (..., n), highest
    degree first: pentadiagonal, with the polynomial's roots as eigenvalues; (..., n − 1,
    n − 1), inexact.

    >>> from tf8.scipy.linalg import fiedler_companion
    >>> fiedler_companion([1, -3, 2]).tolist()
    [[3.0, -2.0], [1.0, 0.0]]
    """
    (a_,) = _vectors("fiedler_companion", _inexact(tnp.asarray(a)))
    if a_.shape[-1] == 0:
        raise ShapeError("fiedler_companion: a needs at least one entry on its last axis")
    n = a_.shape[-1] - 1
    batch = a_.shape[:-1]
    if n == 0:
        return tnp.zeros((*batch, 0, 0), a_.dtype)
    a_ = a_ / a_[..., :1]
    if n == 1:
        return -a_[..., 1:, None]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    even, odd = i % 2 == 0, i % 2 == 1
    first = (i == 0) & (j == 0)  # −a[1]
    above = (j == i + 1) & even  # −a[min(i + 2, n)]
    below = (j == i - 1) & even & (i >= 2)  # −a[min(i + 1, n)]
    ones = ((i == 1) & (j == 0)) | ((j == i + 2) & even) | ((j == i - 2) & odd & (i >= 3))
    index = np.where(first, 1, np.where(above, np.minimum(i + 2, n), np.minimum(i + 1, n)))
    coefficients = -tnp.take(a_, index, axis=-1)
    filler = tnp.asarray(np.where(ones, 1, 0), a_.dtype)
    return tnp.where(first | above | below, coefficients, filler)


def convolution_matrix(a: Any, n: int, mode: str = "full") -> TracedTensor:
    """The matrix A with A @ v = convolve(a, v, mode) for v of length `n`.

    Parameters: `a` (..., m), m ≥ 1; `n` > 0 (static); `mode` 'full' ((m + n − 1) × n),
    'valid' or 'same' (numpy's convolve modes). Leading axes of `a` are a batch.

    >>> from tf8.scipy.linalg import convolution_matrix
    >>> convolution_matrix([1, 2], 3).tolist()
    [[1, 0, 0], [2, 1, 0], [0, 2, 1], [0, 0, 2]]
    """
    n = operator.index(n)
    if n <= 0:
        raise ParameterError(f"convolution_matrix: n must be a positive integer, got {n}")
    a_ = tensor(a)
    if a_.ndim == 0:
        raise ShapeError("convolution_matrix: a must have at least one axis, got a scalar")
    m = a_.shape[-1]
    if m < 1:
        raise ShapeError(f"convolution_matrix: a must not be empty, got {shape_str(a_.shape)}")
    if mode not in ("full", "valid", "same"):
        raise ParameterError(
            f"convolution_matrix: mode must be 'full', 'valid' or 'same', got {mode!r}"
        )
    widths = [(0, 0)] * (a_.ndim - 1) + [(0, n - 1)]
    padded, reversed_ = tnp.pad(a_, widths), tnp.pad(tnp.flip(a_, -1), widths)
    length = m + n - 1
    trim = min(n, m) - 1
    trims = {"full": (0, 0), "valid": (trim, trim), "same": (trim // 2, trim - trim // 2)}
    begin, end = trims[mode]
    column = padded[..., begin : length - end]
    return toeplitz(column, reversed_[..., length - n - begin : length - begin])


def block_diag(*arrs: Any) -> TracedTensor:
    """The block-diagonal matrix of the arrays (each of at most 2 axes: a scalar is 1 × 1,
    a vector a row), in their promoted dtype; (1, 0) float64 with no arrays, as JAX's.

    >>> from tf8.scipy.linalg import block_diag
    >>> block_diag([[1, 2]], 3).tolist()
    [[1, 2, 0], [0, 0, 3]]
    """
    if not arrs:
        return tnp.zeros((1, 0))
    blocks = [tensor(a) for a in arrs]
    for k, b in enumerate(blocks):
        if b.ndim > 2:
            raise ShapeError(
                f"block_diag: arguments must have at most 2 axes, got {shape_str(b.shape)} at"
                f" argument {k}"
            )
    dtype = dt.result_type(*(b.dtype for b in blocks))
    blocks = [tnp.atleast_2d(b).astype(dtype) for b in blocks]
    total = sum(b.shape[1] for b in blocks)
    rows, start = [], 0
    for b in blocks:
        cols = b.shape[1]
        rows.append(tnp.pad(b, ((0, 0), (start, total - start - cols))))
        start += cols
    return tnp.concatenate(rows, axis=0)


__all__ = [
    "block_diag",
    "circulant",
    "companion",
    "convolution_matrix",
    "fiedler",
    "fiedler_companion",
    "hankel",
    "leslie",
    "toeplitz",
]
