"""Triangle-restricted products and row permutations: the ops the LU and Cholesky solves'
derivatives are written in.

- `TriangularProduct(lower, trans, strict)`: (A, B) ↦ op(tri(A)) B, where tri(A) is A's lower
  (else upper) triangle, without its diagonal when `strict`, and op is the identity or the
  transpose (trans 0 or 1). One BLAS trmm: the triangle is never formed.
- `TriangularOuter(lower, strict)`: (C, B) ↦ tri(C Bᵀ), the product kept on one triangle.
- `PermuteRows(inverse)`: (X, p) ↦ X[p] (rows of the last-but-one axis), or the X' with
  X'[p] = X when `inverse`.

All three are linear in each matrix operand, and the family is closed under transposition
(JAX's bilinear convention, no conjugation): TriangularProduct transposes to itself in B and
to TriangularOuter in A; TriangularOuter to TriangularProduct in either operand; PermuteRows
to its inverse. Rules in `tf8.ad.families.linalg_lu`.
"""

from __future__ import annotations

from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.shapes import dims_equal, shape_str

from .base import LinalgOp, check_matrix, right_hand_side, same_dtype, square


class TriangularProduct(LinalgOp):
    """op(tri(A)) B for A (..., n, n) and B (..., n, k); payload (lower, trans, strict)."""

    name = "triangular_product"
    inputs = 2

    def __init__(self, lower: bool, trans: int, strict: bool) -> None:
        if trans not in (0, 1):
            raise ParameterError(f"triangular_product: trans must be 0 or 1, got {trans!r}")
        super().__init__(bool(lower), trans, bool(strict))

    def out_avals(self, avals, guards):
        right_hand_side(self.name, avals[0], avals[1], square(self.name, avals[0], guards))
        return (avals[1],)


class TriangularOuter(LinalgOp):
    """tri(C Bᵀ) for C and B of one shape (..., n, k); payload (lower, strict)."""

    name = "triangular_outer"
    inputs = 2

    def __init__(self, lower: bool, strict: bool) -> None:
        super().__init__(bool(lower), bool(strict))

    def out_avals(self, avals, guards):
        c, b = avals
        same_dtype(self.name, c, b)
        if c.ndim != b.ndim or any(dims_equal(x, y) is False for x, y in zip(c.shape, b.shape)):
            raise ShapeError(
                f"{self.name}: operands must share one shape, got {shape_str(c.shape)} and "
                f"{shape_str(b.shape)}"
            )
        n = c.shape[-2]
        return (Aval((*c.shape[:-1], n), c.dtype),)


class PermuteRows(LinalgOp):
    """X[..., p, :] (or its inverse) for X (..., m, k) and an int32 permutation p (..., m)."""

    name = "permute_rows"
    inputs = 2

    def __init__(self, inverse: bool) -> None:
        super().__init__(bool(inverse))

    def infer(self, avals, guards):
        x, p = avals
        check_matrix(self.name, x)
        if p.dtype not in dt.INTEGERS:
            raise DTypeError(f"{self.name}: the permutation must be integers, got {p.dtype}")
        if p.shape != x.shape[:-1]:
            raise ShapeError(
                f"{self.name}: permutation {shape_str(p.shape)} does not fit rows of "
                f"{shape_str(x.shape)}"
            )
        return (x,)


__all__ = ["PermuteRows", "TriangularOuter", "TriangularProduct"]
