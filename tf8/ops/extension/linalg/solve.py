"""Square-matrix ops: inv, solve, triangular_solve, det (and adjugate, its derivative), slogdet
(and logabsdet), cholesky."""

from __future__ import annotations

from tf8.errors import ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval

from .base import LinalgOp, Pruned, real_aval, right_hand_side, square


class Inv(LinalgOp):
    name = "inv"

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        return (avals[0],)


class Solve(LinalgOp):
    """x = A⁻¹ B for B of shape (..., n, k) with A's batch shape; linear in B."""

    name = "solve"
    inputs = 2

    def out_avals(self, avals, guards):
        right_hand_side(self.name, avals[0], avals[1], square(self.name, avals[0], guards))
        return (avals[1],)


TRANS = {0: "N", 1: "T", 2: "C"}


class TriangularSolve(LinalgOp):
    """x = op(T)⁻¹ B, T the lower/upper triangle of A (unit diagonal if asked), op(T) = T, Tᵀ
    or Tᴴ for trans 0, 1, 2 (scipy.linalg.solve_triangular); linear in B.

    Payload `(lower, trans, unit_diagonal)`; the other triangle of A is never read.
    """

    name = "triangular_solve"
    inputs = 2

    def __init__(self, lower: bool, trans: int, unit_diagonal: bool) -> None:
        if trans not in TRANS:
            raise ParameterError(f"solve_triangular: trans must be 0, 1 or 2, got {trans!r}")
        super().__init__(bool(lower), trans, bool(unit_diagonal))

    def out_avals(self, avals, guards):
        right_hand_side("solve_triangular", avals[0], avals[1], square(self.name, avals[0], guards))
        return (avals[1],)


class Det(LinalgOp):
    name = "det"

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        return (Aval(avals[0].shape[:-2], avals[0].dtype),)


class Adjugate(LinalgOp):
    """adj(A) = det(A) A⁻¹, also where A is singular (from the SVD): det's derivative."""

    name = "adjugate"

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        return (avals[0],)


class MinorProducts(LinalgOp):
    """H_ij = ∏_{k ∉ {i, j}} s_k of a vector s (..., n) of singular values, (..., n, n): the
    adjugate's derivative at a diagonal matrix. Not differentiated (det's third order)."""

    name = "minor_products"

    def infer(self, avals, guards):
        s = avals[0]
        if s.ndim < 1 or s.dtype not in dt.INEXACT:
            raise ShapeError(f"minor_products: needs a float vector, got {s}")
        return (Aval((*s.shape, s.shape[-1]), s.dtype),)


class Slogdet(LinalgOp):
    """(sign, log|det|); with the sign unused it prunes to `LogAbsDet`."""

    name = "slogdet"
    outputs = 2

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        batch = avals[0].shape[:-2]
        return (Aval(batch, avals[0].dtype), real_aval(batch, avals[0].dtype))

    def prune_outputs(self, live):
        return LogAbsDet() if live == (False, True) else None


class LogAbsDet(Pruned):
    name, full, live = "logabsdet", Slogdet, (False, True)


class Cholesky(LinalgOp):
    name = "cholesky"

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        return (avals[0],)


__all__ = [
    "Adjugate",
    "Cholesky",
    "Det",
    "Inv",
    "LogAbsDet",
    "MinorProducts",
    "Slogdet",
    "Solve",
    "TriangularSolve",
]
