"""Batched-matrix helpers the linalg AD rules and functions are written in (rules read like math).

All act on the last two axes and emit only ops that are linear in each argument (einsum,
transpose, conj, tril, diagonals, broadcasts), so rules built from them transpose.
"""

from __future__ import annotations

import numpy as np

from tf8.lax.builders import add, conj, convert, div, like, real
from tf8.lax.core import apply1
from tf8.ops.primitive import ConstantValue
from tf8.traced import TracedTensor

from .einsum import einsum


def mm(a: TracedTensor, b: TracedTensor) -> TracedTensor:
    """a @ b over the last two axes (batch axes shared)."""
    return einsum("...ij,...jk->...ik", a, b)


def mT(x: TracedTensor) -> TracedTensor:  # noqa: N802 - numpy's name
    """Swap the last two axes."""
    n = x.ndim
    return apply1("transpose", [x], permutation=(*range(n - 2), n - 1, n - 2))


def mH(x: TracedTensor) -> TracedTensor:  # noqa: N802 - the conjugate transpose
    return conj(mT(x))


def tril(x: TracedTensor, k: int = 0) -> TracedTensor:
    return apply1("tril", [x], k=k)


def diagonal(x: TracedTensor) -> TracedTensor:
    return apply1("extract_diag", [x])


def diag_embed(v: TracedTensor) -> TracedTensor:
    return apply1("embed_diag", [v])


def trace_of_product(a: TracedTensor, b: TracedTensor) -> TracedTensor:
    """tr(a @ b) per batch entry, without forming the product."""
    return einsum("...ij,...ji->...", a, b)


def diagonal_of_product(a: TracedTensor, b: TracedTensor) -> TracedTensor:
    """diag(a @ b) per batch entry, without forming the product (O(n²), not O(n³))."""
    return einsum("...ij,...ji->...i", a, b)


def lower_symmetric(t: TracedTensor) -> TracedTensor:
    """The Hermitian matrix numpy's kernels read from t's lower triangle (UPLO='L').

    LAPACK takes the diagonal of a Hermitian matrix as real, so its imaginary part is dropped.
    """
    strict = tril(t, -1)
    return add(add(strict, mH(strict)), diag_embed(convert(real(diagonal(t)), t.dtype)))


def along_rows(v: TracedTensor, rows: int) -> TracedTensor:
    """v[..., None, :] broadcast to (..., rows, k): entry (i, j) is v_j."""
    b = v.ndim - 1
    shape = (*v.shape[:-1], rows, v.shape[-1])
    return apply1("broadcast_in_dim", [v], shape=shape, broadcast_dimensions=(*range(b), b + 1))


def along_columns(v: TracedTensor, cols: int) -> TracedTensor:
    """v[..., :, None] broadcast to (..., k, cols): entry (i, j) is v_i."""
    b = v.ndim - 1
    shape = (*v.shape, cols)
    return apply1("broadcast_in_dim", [v], shape=shape, broadcast_dimensions=tuple(range(b + 1)))


def eye(like: TracedTensor) -> TracedTensor:
    """The identity broadcast to `like`'s (square) shape and dtype."""
    n = like.shape[-1]
    identity = apply1("constant", [], value=ConstantValue(np.eye(int(n), dtype=like.dtype)))
    b = like.ndim - 2
    return apply1("broadcast_in_dim", [identity], shape=like.shape, broadcast_dimensions=(b, b + 1))


def reciprocal(x: TracedTensor) -> TracedTensor:
    return div(like(x, 1), x)


def columns(x: TracedTensor, start: int, stop: int) -> TracedTensor:
    """x[..., :, start:stop]."""
    return _last_two(x, (0, x.shape[-2]), (start, stop))


def rows(x: TracedTensor, start: int, stop: int) -> TracedTensor:
    """x[..., start:stop, :]."""
    return _last_two(x, (start, stop), (0, x.shape[-1]))


def _last_two(x: TracedTensor, row_range: tuple, column_range: tuple) -> TracedTensor:
    if row_range == (0, x.shape[-2]) and column_range == (0, x.shape[-1]):
        return x
    lead = x.shape[:-2]
    start = (*(0,) * len(lead), row_range[0], column_range[0])
    limit = (*lead, row_range[1], column_range[1])
    return apply1("slice", [x], start=start, limit=limit, strides=None)


def join(parts: list[TracedTensor], axis: int) -> TracedTensor:
    """Concatenate along `axis` (negative counts from the end)."""
    return apply1("concatenate", parts, axis=axis % parts[0].ndim)


def blocks(grid: list[list[TracedTensor]]) -> TracedTensor:
    """The block matrix [[A, B], [C, D]] over the last two axes."""
    return join([join(row, -1) for row in grid], -2)
