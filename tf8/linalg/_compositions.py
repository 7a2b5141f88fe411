"""numpy.linalg's functions that compose tf8.linalg's others and tf8.numpy's: matrix_rank,
cond, multi_dot, tensorsolve, tensorinv."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ShapeError
from tf8.numpy._arithmetic import divide, multiply
from tf8.numpy._contract import matmul
from tf8.numpy._core import ArrayLike, asarray
from tf8.numpy._extremes import max, min
from tf8.numpy._logic import greater, not_equal
from tf8.numpy._reductions import any as any_
from tf8.numpy._reductions import count_nonzero
from tf8.numpy._shape import expand_dims, moveaxis, reshape, squeeze
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._core import inv, norm, solve, svdvals


def matrix_rank(
    A: ArrayLike,  # noqa: N803 - numpy's name
    tol: ArrayLike | None = None,
    hermitian: bool = False,
    *,
    rtol: ArrayLike | None = None,
) -> TracedTensor:
    """How many singular values exceed `tol` (default: largest · max(m, n) · eps, or
    largest · `rtol`), as numpy.linalg.matrix_rank; int64 (int32 for a scalar or vector,
    as JAX)."""
    a = asarray(A)
    if a.ndim < 2:
        return any_(not_equal(a, 0)).astype(dt.int32)
    s = svdvals(a)
    if tol is None:
        if rtol is None:
            rtol = builtin_max(a.shape[-2:]) * np.finfo(dt.real_dtype(la_dtype(a))).eps
        tol = multiply(max(s, axis=-1, keepdims=True), rtol)
    else:
        tol = expand_dims(asarray(tol), -1)
    return count_nonzero(greater(s, tol), axis=-1)


def builtin_max(values: Sequence[Any]) -> Any:
    """Python's max over sizes (the module's `max` is numpy's)."""
    best = values[0]
    for v in values[1:]:
        best = v if v > best else best
    return best


def la_dtype(a: TracedTensor) -> np.dtype:
    """The dtype tf8.linalg computes `a` in (integers and bools as JAX: `dt.float_dtype`)."""
    return dt.float_dtype(a.dtype)


def cond(x: ArrayLike, p: Any = None) -> TracedTensor:
    """The condition number of each matrix in the norm `p` (None/2/-2 from the singular
    values, else norm(x, p) · norm(inv(x), p)), as numpy.linalg.cond."""
    a = asarray(x)
    if p is None or p in (2, -2):
        s = svdvals(a)
        big, small = max(s, axis=-1), min(s, axis=-1)
        return divide(small, big) if p == -2 else divide(big, small)
    return multiply(norm(a, p, axis=(-2, -1)), norm(inv(a), p, axis=(-2, -1)))


def multi_dot(arrays: Sequence[ArrayLike], *, out: None = None) -> TracedTensor:
    """The product of a chain of matrices in the cheapest order (numpy's dynamic program);
    the first and last may be vectors."""
    xs = [asarray(a) for a in arrays]
    if len(xs) < 2:
        raise ShapeError(f"multi_dot: needs at least two arrays, got {len(xs)}")
    first_vector, last_vector = xs[0].ndim == 1, xs[-1].ndim == 1
    if first_vector:
        xs[0] = expand_dims(xs[0], 0)
    if last_vector:
        xs[-1] = expand_dims(xs[-1], -1)
    for i, x in enumerate(xs):
        if x.ndim != 2:
            raise ShapeError(f"multi_dot: array {i} must be 2-D, got shape {x.shape}")
    dims = [xs[0].shape[0]] + [x.shape[1] for x in xs]
    split = _chain_order([d if isinstance(d, int) else 1 for d in dims])
    result = _chain_product(xs, split, 0, len(xs) - 1)
    if first_vector:
        result = squeeze(result, 0)
    if last_vector:
        result = squeeze(result, -1)
    return result


def _chain_order(dims: list[int]) -> list[list[int]]:
    """split[i][j]: where the cheapest product of matrices i..j splits (matrix-chain DP)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain_product(xs: list[TracedTensor], split: list[list[int]], i: int, j: int) -> Any:
    if i == j:
        return xs[i]
    k = split[i][j]
    return matmul(_chain_product(xs, split, i, k), _chain_product(xs, split, k + 1, j))


def tensorsolve(a: ArrayLike, b: ArrayLike, axes: Sequence[int] | None = None) -> TracedTensor:
    """x with tensordot(a, x, x.ndim) = b, as numpy.linalg.tensorsolve."""
    a, b = asarray(a), asarray(b)
    if axes is not None:
        a = moveaxis(a, list(axes), list(range(a.ndim - len(axes), a.ndim)))
    x_shape = a.shape[b.ndim :]
    if tuple(a.shape[: b.ndim]) != tuple(b.shape):
        raise ShapeError(
            f"tensorsolve: a's leading axes {a.shape[: b.ndim]} (after moving `axes` to the "
            f"end) must match b's shape {b.shape}"
        )
    rows, cols = math.prod(a.shape[: b.ndim]), math.prod(x_shape)
    if rows != cols:
        raise ShapeError(
            f"tensorsolve: a's leading axes {a.shape[: b.ndim]} and trailing axes {x_shape} "
            "must hold as many elements"
        )
    solution = solve(reshape(a, (rows, cols)), reshape(b, (rows,)))
    return reshape(solution, x_shape)


def tensorinv(a: ArrayLike, ind: int = 2) -> TracedTensor:
    """The inverse of `a` for tensordot over its first `ind` axes, as numpy.linalg.tensorinv."""
    a = asarray(a)
    if ind <= 0:
        raise ValueError(f"tensorinv: ind must be a positive integer, got {ind}")
    rows, cols = math.prod(a.shape[:ind]), math.prod(a.shape[ind:])
    if rows != cols:
        raise ShapeError(f"tensorinv: a of shape {a.shape} is not square for ind={ind}")
    inverse = inv(reshape(a, (rows, cols)))
    return reshape(inverse, a.shape[ind:] + a.shape[:ind])
