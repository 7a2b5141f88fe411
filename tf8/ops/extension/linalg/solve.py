"""Square-matrix ops: inv, solve, triangular_solve, det, slogdet (and logabsdet), cholesky."""

from __future__ import annotations

from tf8.errors import ParameterError
from tf8.lax.builders import add, add_any, conj, convert, mul, neg, real, sub
from tf8.ops import dtypes as dt
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor, apply

from ..matrix import diag_embed, diagonal, lower_symmetric, mH, mm, mT, trace_of_product, tril
from .base import LinalgOp, Pruned, real_aval, right_hand_side, square


def inv_of(a: TracedTensor) -> TracedTensor:
    return apply(Inv(), [a])[0]


def solve_of(a: TracedTensor, b: TracedTensor) -> TracedTensor:
    """A⁻¹ B (B of shape (..., n, k)); linear in B."""
    return apply(Solve(), [a, b])[0]


def trace_inv_times(a: TracedTensor, t: TracedTensor) -> TracedTensor:
    """tr(A⁻¹ T) per batch entry."""
    return trace_of_product(inv_of(a), t)


class Inv(LinalgOp):
    name = "inv"

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        return (avals[0],)

    def jvp(self, op, primals, outputs, tangents):
        (ainv,) = outputs
        return [neg(mm(mm(ainv, tangents[0]), ainv))]  # d(A⁻¹) = −A⁻¹ dA A⁻¹


class Solve(LinalgOp):
    """x = A⁻¹ B for B of shape (..., n, k) with A's batch shape; linear in B."""

    name = "solve"
    inputs = 2

    def out_avals(self, avals, guards):
        right_hand_side(self.name, avals[0], avals[1], square(self.name, avals[0], guards))
        return (avals[1],)

    def jvp(self, op, primals, outputs, tangents):
        (a, _), (x,), (ta, tb) = primals, outputs, tangents
        rhs = add_any(tb, None if ta is None else neg(mm(ta, x)))
        return [solve_of(a, rhs)]  # dx = A⁻¹ (dB − dA x)

    def transpose(self, op, operands, linear, ct):
        if linear[0]:
            raise TypeError("solve is linear in its right-hand side only")
        return [None, solve_of(mT(operands[0]), ct)]  # bilinear convention: A⁻ᵀ, no conjugate


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

    def triangle(self, t: TracedTensor) -> TracedTensor:
        """The part of t this op reads: its triangle, without the diagonal if unit."""
        lower, _, unit = self.payload
        k = 1 if unit else 0
        return tril(t, -k) if lower else mT(tril(mT(t), -k))

    def jvp(self, op, primals, outputs, tangents):
        (a, _), (x,), (ta, tb) = primals, outputs, tangents
        if ta is not None:
            d_t = self.triangle(ta)
            d_op = {0: d_t, 1: mT(d_t), 2: mH(d_t)}[self.payload[1]]
            tb = add_any(tb, neg(mm(d_op, x)))
        return [apply(self, [a, tb])[0]]  # dx = op(T)⁻¹ (dB − op(dT) x)

    def transpose(self, op, operands, linear, ct):
        if linear[0]:
            raise TypeError("triangular_solve is linear in its right-hand side only")
        lower, trans, unit = self.payload
        a = operands[0]
        if trans == 2:  # (Tᴴ)⁻ᵀ c = conj(T⁻¹ conj(c))
            inner = TriangularSolve(lower, 0, unit)
            return [None, conj(apply(inner, [a, conj(ct)])[0])]
        return [None, apply(TriangularSolve(lower, 1 - trans, unit), [a, ct])[0]]


class Det(LinalgOp):
    name = "det"

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        return (Aval(avals[0].shape[:-2], avals[0].dtype),)

    def jvp(self, op, primals, outputs, tangents):
        # d det = det · tr(A⁻¹ dA); needs A invertible (a singular A raises LinAlgError).
        return [mul(outputs[0], trace_inv_times(primals[0], tangents[0]))]


class Slogdet(LinalgOp):
    """(sign, log|det|); with the sign unused it prunes to `LogAbsDet`."""

    name = "slogdet"
    outputs = 2

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        batch = avals[0].shape[:-2]
        return (Aval(batch, avals[0].dtype), real_aval(batch, avals[0].dtype))

    def jvp(self, op, primals, outputs, tangents):
        trace = trace_inv_times(primals[0], tangents[0])  # d log det = tr(A⁻¹ dA)
        if not dt.is_complex(trace.dtype):
            return [None, trace]
        imaginary = sub(trace, convert(real(trace), trace.dtype))
        return [mul(outputs[0], imaginary), real(trace)]

    def prune_outputs(self, live):
        return LogAbsDet() if live == (False, True) else None


class LogAbsDet(Pruned):
    name, full, live = "logabsdet", Slogdet, (False, True)

    def jvp(self, op, primals, outputs, tangents):
        return [real(trace_inv_times(primals[0], tangents[0]))]


class Cholesky(LinalgOp):
    name = "cholesky"

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        return (avals[0],)

    def jvp(self, op, primals, outputs, tangents):
        # dL = L Φ(L⁻¹ dA L⁻ᴴ), Φ = lower triangle with the diagonal halved.
        (chol,) = outputs
        lower_solve = TriangularSolve(True, 0, False)
        left = apply(lower_solve, [chol, lower_symmetric(tangents[0])])[0]
        middle = mH(apply(lower_solve, [chol, mH(left)])[0])
        phi = add(tril(middle, -1), mul(diag_embed(diagonal(middle)), 0.5))
        return [mm(chol, phi)]


__all__ = [
    "Cholesky",
    "Det",
    "Inv",
    "LogAbsDet",
    "Slogdet",
    "Solve",
    "TriangularSolve",
    "inv_of",
    "solve_of",
    "trace_inv_times",
]
