"""The linalg family's base classes and the shape checks its ops share.

Every op acts on the last two axes and batches over the leading ones, as numpy does. A kernel
failure on the data (a singular matrix to `solve`/`inv`, a non-positive-definite one to
`cholesky`) raises `tf8.errors.LinAlgError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import DTypeError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.shapes import Dim, ShapeGuard, dims_equal, shape_str

from ..base import ExtensionOp


class LinalgOp(ExtensionOp):
    """A linalg op: subclasses set `name`, arities and `out_avals` (kernels in `kernels`)."""

    family = "tf8.linalg.v1"
    inputs = 1
    outputs = 1

    def __init__(self, *payload: Any) -> None:
        super().__init__(tuple(payload), self.inputs, self.outputs)

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        for a in avals:
            check_matrix(self.name, a)
        return self.out_avals(avals, guards)

    def out_avals(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        raise NotImplementedError


class Pruned(LinalgOp):
    """The live outputs of `full` (its JVP is the full op's, on recomputed full outputs)."""

    full: type[LinalgOp]
    live: tuple[bool, ...]

    def full_op(self) -> LinalgOp:
        return self.full(*self.payload)

    def out_avals(self, avals, guards):
        outs = self.full_op().out_avals(avals, guards)
        return tuple(o for o, alive in zip(outs, self.live) if alive)


def check_matrix(name: str, aval: Aval) -> None:
    if aval.ndim < 2:
        raise ShapeError(f"{name}: needs a matrix (at least 2 axes), got {shape_str(aval.shape)}")
    if aval.dtype not in dt.INEXACT:
        raise DTypeError(f"{name}: needs a float or complex matrix, got {aval.dtype}")
    if aval.dtype == dt.float16:
        raise DTypeError(
            f"{name}: LAPACK has no float16; convert the matrix to float32 first (got float16)"
        )


def square(name: str, aval: Aval, guards: list) -> Dim:
    """The size n of `aval`'s (n, n) matrices (a ShapeGuard when that is not provable)."""
    m, n = aval.shape[-2:]
    same = dims_equal(m, n)
    if same is False:
        raise ShapeError(f"{name}: needs square matrices, got shape {shape_str(aval.shape)}")
    if same is None:
        guards.append(ShapeGuard(m, n, f"{name}: square matrices"))
    return n


def same_dtype(name: str, a: Aval, b: Aval) -> None:
    if a.dtype != b.dtype:
        raise DTypeError(f"{name}: operands must share one dtype, got {a.dtype} and {b.dtype}")


def right_hand_side(name: str, a: Aval, b: Aval, n: Dim) -> None:
    """b must be (..., n, k) with a's batch axes."""
    same_dtype(name, a, b)
    if len(a.shape) != len(b.shape) or any(
        dims_equal(x, y) is False for x, y in zip((*a.shape[:-2], n), b.shape[:-1])
    ):
        raise ShapeError(
            f"{name}: matrix {shape_str(a.shape)} does not fit right-hand side {shape_str(b.shape)}"
        )


def concrete_min(name: str, m: Dim, n: Dim) -> Dim:
    """min(m, n) for concrete sizes, or the size itself when both are provably equal."""
    if isinstance(m, int) and isinstance(n, int):
        return min(m, n)
    if dims_equal(m, n):
        return m
    raise ShapeError(f"{name}: needs concrete or equal matrix sizes, got {m} x {n}")


def real_aval(shape: tuple, dtype: np.dtype) -> Aval:
    return Aval(tuple(shape), dt.real_dtype(dtype))
