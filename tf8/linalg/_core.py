"""tf8.linalg's functions on the ops of the tf8.linalg.v1 family (one op each, mostly), and
norm; see the package's docstring."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.lax.builders import compare, convert, mul, reduce_sum, reshape, transpose, unary
from tf8.lax.core import apply, apply1
from tf8.lax.linalg import as_matrix, as_system, unvector
from tf8.lax.matrix import eye, mH, mm
from tf8.ops import dtypes as dt
from tf8.ops.extension import linalg as ops
from tf8.ops.extension.linalg.base import square
from tf8.ops.shapes import dims_equal, shape_str
from tf8.traced import TracedTensor, tensor


class SlogdetResult(NamedTuple):
    """slogdet's result: det = sign · exp(logabsdet)."""

    sign: TracedTensor
    logabsdet: TracedTensor


class EighResult(NamedTuple):
    """eigh's result: eigenvalues ascending, eigenvectors as columns."""

    eigenvalues: TracedTensor
    eigenvectors: TracedTensor


class EigResult(NamedTuple):
    """eig's result: eigenvalues, right eigenvectors as columns."""

    eigenvalues: TracedTensor
    eigenvectors: TracedTensor


class SVDResult(NamedTuple):
    """svd's result: a = U @ (S[..., None] * Vh)."""

    U: TracedTensor
    S: TracedTensor
    Vh: TracedTensor


class QRResult(NamedTuple):
    """qr's result: a = Q @ R."""

    Q: TracedTensor
    R: TracedTensor


class LstsqResult(NamedTuple):
    """lstsq's result, numpy's order (numpy's own is a plain tuple)."""

    x: TracedTensor
    residuals: TracedTensor
    rank: TracedTensor
    s: TracedTensor


def _one(op: ops.LinalgOp, *args: TracedTensor) -> TracedTensor:
    return apply(op, list(args))[0]


def inv(a: Any) -> TracedTensor:
    """The inverse of each (square) matrix."""
    return _one(ops.Inv(), as_matrix(a))


def det(a: Any) -> TracedTensor:
    """The determinant of each (square) matrix."""
    return _one(ops.Det(), as_matrix(a))


def slogdet(a: Any) -> SlogdetResult:
    """(sign, log|det|) of each square matrix, as numpy.linalg.slogdet."""
    return SlogdetResult(*apply(ops.Slogdet(), [as_matrix(a)]))


def cholesky(a: Any, *, upper: bool = False, symmetrize_input: bool = True) -> TracedTensor:
    """Lower Cholesky factor L (A = L Lᴴ) of (A + Aᴴ)/2, as JAX's default, so the gradient
    with respect to A is symmetric; Lᴴ when `upper`. `symmetrize_input=False` reads A's lower
    triangle alone, as numpy does (the gradient is then lower-triangular)."""
    x = as_matrix(a)
    factor = _one(ops.Cholesky(), _symmetrized(x, "cholesky") if symmetrize_input else x)
    return mH(factor) if upper else factor


def _symmetrized(x: TracedTensor, name: str) -> TracedTensor:
    """(x + xᴴ) / 2 of each square matrix."""
    square(name, x.aval, [])
    return mul(x + mH(x), 0.5)


def eigh(a: Any, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:  # noqa: N803
    """(eigenvalues ascending, eigenvectors) of (A + Aᴴ)/2, as JAX's default; of the Hermitian
    matrix in A's UPLO triangle (default 'L') when `symmetrize_input=False`, as numpy."""
    return EighResult(*apply(ops.Eigh(), [_hermitian_from(as_matrix(a), UPLO, symmetrize_input)]))


def eigvalsh(a: Any, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> TracedTensor:  # noqa: N803
    """Eigenvalues (ascending) of (A + Aᴴ)/2, as JAX's default; of the Hermitian matrix in A's
    UPLO triangle when `symmetrize_input=False`, as numpy."""
    return _one(ops.Eigvalsh(), _hermitian_from(as_matrix(a), UPLO, symmetrize_input))


def _hermitian_from(x: TracedTensor, uplo: str, symmetrize: bool = False) -> TracedTensor:
    """A matrix whose lower triangle holds the Hermitian matrix of x's `uplo` triangle
    (the kernels read the lower one; Aᴴ's lower triangle is A's upper one, conjugated)."""
    side = "L" if uplo is None else uplo.upper() if isinstance(uplo, str) else uplo
    if symmetrize and side in ("L", "U"):
        return _symmetrized(x, "eigh")
    if side not in ("L", "U"):
        raise ParameterError(f"UPLO must be 'L' or 'U', got {uplo!r}")
    return x if side == "L" else mH(x)


def eig(a: Any) -> EigResult:
    """(eigenvalues, right eigenvectors) of a general square matrix, always complex.

    Eigenvectors have unit norm and their largest component real (LAPACK's convention),
    and their derivatives respect it; repeated eigenvalues make those infinite.
    """
    return EigResult(*apply(ops.Eig(), [as_matrix(a)]))


def eigvals(a: Any) -> TracedTensor:
    """Eigenvalues of a general square matrix, always complex."""
    return _one(ops.Eigvals(), as_matrix(a))


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """(U, S, Vh) as numpy.linalg.svd; S alone when compute_uv is False.

    With full_matrices (the default) a non-square A gets square U and Vh; the columns past
    min(m, n) are a basis LAPACK chooses, differentiated without rotating inside it.
    """
    x = as_matrix(a)
    if not compute_uv:
        return svdvals(x)
    if x.ndim < 2:
        raise ShapeError(f"svd: needs a matrix (at least 2 axes), got {shape_str(x.shape)}")
    square_input = dims_equal(*x.shape[-2:]) is True
    op = ops.SvdFull() if full_matrices and not square_input else ops.Svd()
    return SVDResult(*apply(op, [x]))


def svdvals(a: Any) -> TracedTensor:
    """Singular values, descending (numpy.linalg.svdvals)."""
    return _one(ops.Svdvals(), as_matrix(a))


def qr(a: Any, mode: str = "reduced") -> Any:
    """(Q, R) of the reduced QR decomposition, as numpy: mode='r' returns R alone,
    'complete' a square Q (m, m) and R (m, n), 'raw' LAPACK's (h, tau) (not differentiable)."""
    x = as_matrix(a)
    if mode == "r":
        return _one(ops.QrR(), x)
    ops_by_mode = {"reduced": ops.Qr, "complete": ops.QrFull, "raw": ops.QrRaw}
    if mode not in ops_by_mode:
        raise ParameterError(f"qr: mode must be 'reduced', 'complete', 'r' or 'raw', got {mode!r}")
    return QRResult(*apply(ops_by_mode[mode](), [x]))


def solve(a: Any, b: Any) -> TracedTensor:
    """x with a @ x = b; b is a vector only when 1-D (numpy ≥ 2), batch axes broadcast."""
    x, y, vector = as_system("solve", a, b)
    return unvector(_one(ops.Solve(), x, y), vector)


def pinv(
    a: Any, rcond: float | None = None, hermitian: bool = False, *, rtol: float | None = None
) -> TracedTensor:
    """Moore–Penrose pseudo-inverse (singular values ≤ rcond · largest count as zero,
    numpy's default 1e-15; `rtol` is numpy ≥ 2's and JAX's name for rcond). `hermitian` is
    accepted and changes nothing: the SVD route gives the same result."""
    if rtol is not None:
        if rcond is not None:
            raise ParameterError("pinv: give rcond or rtol, not both")
        rcond = rtol
    return _one(ops.Pinv(rcond), as_matrix(a))


def lstsq(a: Any, b: Any, rcond: float | None = None) -> tuple[TracedTensor, ...]:
    """(x, residuals, rank, s) as numpy.linalg.lstsq; x is differentiable.

    `residuals` holds the squared residual norms per column whatever the shape and rank, as
    JAX's (numpy's is empty when m <= n or A is rank deficient).
    Batched over leading axes (numpy takes one matrix).
    """
    x, y, vector = as_system("lstsq", a, b)
    *_, m, n = x.shape
    if not (isinstance(m, int) and isinstance(n, int)):
        raise ShapeError(f"lstsq: needs concrete matrix sizes, got {shape_str(x.shape)}")
    op = ops.Lstsq(rcond)
    solution = _one(op, x, y)
    s = svdvals(x)
    largest = apply1("reduce_max", [s], axes=(s.ndim - 1,))
    threshold = apply1(
        "broadcast_in_dim",
        [mul(largest, op.cutoff(x.aval))],
        shape=s.shape,
        broadcast_dimensions=tuple(range(s.ndim - 1)),
    )
    rank = reduce_sum(convert(compare(s, threshold, "gt"), dt.int64), [s.ndim - 1])
    residuals = reduce_sum(_squared_magnitude(mm(x, solution) - y), [y.ndim - 2])
    return LstsqResult(unvector(solution, vector), residuals, rank, s)


def matrix_power(a: Any, n: int) -> TracedTensor:
    """a raised to the integer power n by repeated squaring (n < 0: of inv(a)), as numpy."""
    try:
        n = operator.index(n)
    except TypeError:
        raise DTypeError(
            f"matrix_power: exponent must be an integer, got {type(n).__name__} {n!r}"
        ) from None
    x = tensor(a)
    if x.ndim < 2:
        raise ShapeError(f"matrix_power: needs a matrix, got {shape_str(x.shape)}")
    square("matrix_power", x.aval, [])
    if n == 0:
        return eye(x)
    if n < 0:
        x, n = inv(x), -n
    result = None
    while True:
        if n & 1:
            result = x if result is None else mm(result, x)
        n >>= 1
        if not n:
            return result
        x = mm(x, x)


# --- norms --------------------------------------------------------------------------------


def norm(
    x: Any, ord: Any = None, axis: int | Sequence[int] | None = None, keepdims: bool = False
) -> TracedTensor:
    """numpy.linalg.norm: vector norms of any order; matrix norms 'fro', 'nuc', ±1, ±2, ±inf
    (±2 and 'nuc' from the singular values)."""
    a = as_matrix(x)
    if axis is None:
        if ord is None:
            out = unary("sqrt", reduce_sum(_squared_magnitude(a), range(a.ndim)))
            return reshape(out, (1,) * a.ndim) if keepdims else out
        if a.ndim not in (1, 2):
            raise ShapeError(f"norm: ord={ord!r} needs a vector or matrix, got {a.aval}")
        axis = tuple(range(a.ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    for ax in axes:
        if not -a.ndim <= ax < a.ndim:
            raise ShapeError(f"norm: axis {ax} out of range for {shape_str(a.shape)}")
    axes = tuple(ax % a.ndim for ax in axes)
    if len(axes) == 1:
        out = _vector_norm(a, ord, axes[0])
    elif len(axes) == 2 and axes[0] != axes[1]:
        out = _matrix_norm(a, ord, axes)
    else:
        raise ShapeError(f"norm: axis must name one or two distinct axes, got {axis!r}")
    if keepdims:
        kept = [1 if i in axes else d for i, d in enumerate(a.shape)]
        out = reshape(out, kept)
    return out


def _squared_magnitude(x: TracedTensor) -> TracedTensor:
    """|x|², smooth at 0 (for complex: re² + im²)."""
    if not dt.is_complex(x.dtype):
        return mul(x, x)
    re, im = unary("real", x), unary("imag", x)
    return mul(re, re) + mul(im, im)


def _reduce(name: str, x: TracedTensor, axis: int) -> TracedTensor:
    return apply1(name, [x], axes=(axis,))


def _vector_norm(a: TracedTensor, ord: Any, axis: int) -> TracedTensor:
    if ord is None or ord == 2:
        return unary("sqrt", reduce_sum(_squared_magnitude(a), [axis]))
    if isinstance(ord, str) or not isinstance(ord, (int, float, np.number)):
        raise ParameterError(f"norm: invalid order {ord!r} for vectors")
    magnitude = unary("abs", a)
    if ord == math.inf:
        return _reduce("reduce_max", magnitude, axis)
    if ord == -math.inf:
        return _reduce("reduce_min", magnitude, axis)
    if ord == 0:
        return reduce_sum(convert(compare(a, 0, "ne"), magnitude.dtype), [axis])
    if ord == 1:
        return reduce_sum(magnitude, [axis])
    total = reduce_sum(magnitude ** float(ord), [axis])
    return total ** (1.0 / float(ord))


def _matrix_norm(a: TracedTensor, ord: Any, axes: tuple[int, ...]) -> TracedTensor:
    row, col = axes
    if ord is None or ord == "fro":
        return unary("sqrt", reduce_sum(_squared_magnitude(a), axes))
    if ord in ("nuc", 2, -2):
        rest = [i for i in range(a.ndim) if i not in axes]
        s = svdvals(transpose(a, (*rest, row, col)))
        last = s.ndim - 1
        if ord == "nuc":
            return reduce_sum(s, [last])
        return _reduce("reduce_max" if ord == 2 else "reduce_min", s, last)
    if ord in (1, -1, math.inf, -math.inf):
        summed, other = (row, col) if ord in (1, -1) else (col, row)
        sums = reduce_sum(unary("abs", a), [summed])
        other -= 1 if other > summed else 0
        return _reduce("reduce_max" if ord > 0 else "reduce_min", sums, other)
    raise ParameterError(f"norm: invalid order {ord!r} for matrices")
