"""LU factorisation with partial pivoting, and the solves on LU and Cholesky factors.

- `Lu`: A (..., m, n) ↦ (lu, pivots, permutation), LAPACK's getrf as `jax.lax.linalg.lu`:
  `lu` holds L (unit lower, below the diagonal) and U (upper), `pivots` (..., min(m, n))
  int32 the row swaps in order, `permutation` (..., m) int32 with A[permutation] = L U.
  With the permutation unused it prunes to `LuPruned` (no permutation computed).
- `PivotsToPermutation(m)`: pivots ↦ permutation (`jax.lax.linalg.lu_pivots_to_permutation`).
- `LuSolve(trans)`: (lu, pivots, B) ↦ op(A)⁻¹ B with A = Pᵀ L U, op = identity, transpose or
  conjugate transpose for trans 0, 1, 2 (LAPACK's getrs); linear in B.
- `CholeskySolve(lower)`: (C, B) ↦ A⁻¹ B with A = Cᴴ C from C's upper triangle, or
  A = C Cᴴ from its lower one when `lower` (LAPACK's potrs); linear in B.

A singular factor is not an error (JAX's getrf leaves a zero pivot): the solves give inf or
NaN. Rules in `tf8.ad.families.linalg_lu`.
"""

from __future__ import annotations

from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.shapes import shape_str

from ..base import ExtensionOp
from .base import LinalgOp, check_matrix, concrete_min, right_hand_side, square
from .solve import TRANS


class Lu(LinalgOp):
    """(lu, pivots, permutation) of P A = L U, partial pivoting (getrf)."""

    name = "lu"
    outputs = 3

    def out_avals(self, avals, guards):
        a = avals[0]
        *batch, m, n = a.shape
        k = concrete_min(self.name, m, n)
        return (a, Aval((*batch, k), dt.int32), Aval((*batch, m), dt.int32))

    def prune_outputs(self, live):
        return None if live[2] else LuPruned(live)


class LuPruned(LinalgOp):
    """The live outputs `live` of `Lu`, without its permutation (the kernel skips it)."""

    name = "lu_pruned"

    def __init__(self, live: tuple[bool, ...]) -> None:
        live = tuple(bool(x) for x in live)
        ExtensionOp.__init__(self, (live,), 1, sum(live))

    def out_avals(self, avals, guards):
        outs = Lu().out_avals(avals, guards)
        return tuple(o for o, alive in zip(outs, self.payload[0]) if alive)


class PivotsToPermutation(LinalgOp):
    """The permutation (..., m) that the row swaps `pivots` (..., k) make of 0, 1, ..., m−1."""

    name = "lu_pivots_to_permutation"

    def __init__(self, permutation_size: int) -> None:
        super().__init__(int(permutation_size))

    def infer(self, avals, guards):
        (pivots,) = avals
        if pivots.dtype not in dt.INTEGERS:
            raise DTypeError(f"lu_pivots_to_permutation: pivots must be integers, got {pivots}")
        if pivots.ndim < 1:
            raise ShapeError("lu_pivots_to_permutation: pivots must have at least one axis")
        (m,) = self.payload
        k = pivots.shape[-1]
        if isinstance(k, int) and k > m:
            raise ShapeError(
                f"lu_pivots_to_permutation: {k} pivots do not fit a permutation of size {m}"
            )
        return (Aval((*pivots.shape[:-1], m), dt.int32),)


class LuSolve(LinalgOp):
    """op(A)⁻¹ B from A's LU factors (lu, pivots); linear in B. Payload (trans,)."""

    name = "lu_solve"
    inputs = 3

    def __init__(self, trans: int) -> None:
        if trans not in TRANS:
            raise ParameterError(f"lu_solve: trans must be 0, 1 or 2, got {trans!r}")
        super().__init__(trans)

    def infer(self, avals, guards):
        lu, pivots, b = avals
        check_matrix(self.name, lu)
        check_matrix(self.name, b)
        n = square(self.name, lu, guards)
        right_hand_side(self.name, lu, b, n)
        if pivots.dtype not in dt.INTEGERS or pivots.shape != (*lu.shape[:-2], n):
            raise ShapeError(
                f"lu_solve: pivots must be integers of shape {shape_str((*lu.shape[:-2], n))},"
                f" got {pivots}"
            )
        return (b,)


class CholeskySolve(LinalgOp):
    """A⁻¹ B from A's Cholesky factor C (upper, or lower if `lower`); linear in B."""

    name = "cho_solve"
    inputs = 2

    def __init__(self, lower: bool) -> None:
        super().__init__(bool(lower))

    def out_avals(self, avals, guards):
        right_hand_side(self.name, avals[0], avals[1], square(self.name, avals[0], guards))
        return (avals[1],)


__all__ = ["CholeskySolve", "Lu", "LuPruned", "LuSolve", "PivotsToPermutation"]
