"""AD rules of LU, the LU and Cholesky solves, and the triangle-restricted products.

Notation: A = Pᵀ L U with P A = A[perm]; tri(·) a triangle; TP(A, B) = op(tri(A)) B and
TO(C, B) = tri(C Bᵀ) (`tf8.ops.extension.linalg.triangular`).

- lu (JAX's lu_jvp_rule): with X = P dA, dL and dU are the strict lower and upper parts of
  L⁻¹ X U⁻¹, mapped back as dLU = L tril(·, −1) + triu(·) U.
- lu_solve, x = A⁻¹ b: dx = A⁻¹ (db − Pᵀ dM(dLU) x) with M = L U, dM(t) x one op
  (`LuFactorProduct`); reverse mode is one transposed solve w = A⁻ᵀ x̄ (= b̄) and that op's
  transpose at −P w, L̄U = −(tril(P w yᵀ, −1) + triu(Lᵀ P w xᵀ)), y = U x: one n × n array.
  trans=1 (Aᵀ x = b): with v = P x and z = Lᵀ v, dx = Pᵀ L⁻ᵀ (U⁻ᵀ (db − dUᵀ z) − dLᵀ v);
  trans=2 is its conjugate.
- cho_solve, x = A⁻¹ b: dx = A⁻¹ (db − dA(dc) x), dA(t) x one op (`CholeskyFactorProduct`),
  its transpose the cotangent of c (rules in `linalg_factors`).
- Transposes (bilinear convention, no conjugation): TP in B to TP with op transposed, in A to
  TO; TO in C or B to TP; PermuteRows to its inverse; lu_solve in b to lu_solve of op(A)ᵀ;
  cho_solve in b to conj(cho_solve(conj(·))) (A is Hermitian).
"""

from __future__ import annotations

from tf8.lax.builders import add_any, conj, full, neg, sub
from tf8.lax.core import apply, apply1
from tf8.lax.matrix import columns, join, mT, rows, tril
from tf8.lax.matrix import eye as eye_like
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.extension.linalg import TriangularSolve
from tf8.ops.extension.linalg.factor_tangents import CholeskyFactorProduct, LuFactorProduct
from tf8.ops.extension.linalg.lu import (
    CholeskySolve,
    Lu,
    LuPruned,
    LuSolve,
    PivotsToPermutation,
)
from tf8.ops.extension.linalg.triangular import PermuteRows, TriangularOuter, TriangularProduct
from tf8.traced import TracedTensor

from ..jvp_rules import JvpRule
from ..transpose_rules import TransposeRule

UPPER, LOWER = False, True


def _one(op, *args: TracedTensor) -> TracedTensor:
    return apply(op, list(args))[0]


def product(a, b, lower: bool, trans: int = 0, strict: bool = False) -> TracedTensor:
    """op(tri(a)) b."""
    return _one(TriangularProduct(lower, trans, strict), a, b)


def solve(a, b, lower: bool, trans: int = 0, unit: bool = False) -> TracedTensor:
    """op(tri(a))⁻¹ b."""
    return _one(TriangularSolve(lower, trans, unit), a, b)


def permute(x, perm, inverse: bool = False) -> TracedTensor:
    return _one(PermuteRows(inverse), x, perm)


def triu(x: TracedTensor, k: int = 0) -> TracedTensor:
    return apply1("triu", [x], k=k)


def _conj_or_same(x: TracedTensor | None) -> TracedTensor | None:
    return x if x is None or not dt.is_complex(x.dtype) else conj(x)


def _minus(a: TracedTensor | None, b: TracedTensor) -> TracedTensor:
    return neg(b) if a is None else sub(a, b)


# --- the bilinear products ------------------------------------------------------------------
def bilinear_jvp(op, primals, outputs, tangents):
    """d f(a, b) = f(da, b) + f(a, db)."""
    (a, b), (ta, tb) = primals, tangents
    return [
        add_any(
            None if ta is None else _one(op, ta, b),
            None if tb is None else _one(op, a, tb),
        )
    ]


def triangular_product_transpose(op: TriangularProduct, operands, linear, ct):
    lower, trans, strict = op.payload
    a, b = operands
    if linear[1]:
        return [None, product(a, ct, lower, 1 - trans, strict)]
    outer = TriangularOuter(lower, strict)
    return [_one(outer, ct, b) if trans == 0 else _one(outer, b, ct), None]


def triangular_outer_transpose(op: TriangularOuter, operands, linear, ct):
    lower, strict = op.payload
    c, b = operands
    if linear[0]:
        return [product(ct, b, lower, 0, strict), None]
    return [None, product(ct, c, lower, 1, strict)]


def permute_rows_jvp(op: PermuteRows, primals, outputs, tangents):
    return [None if tangents[0] is None else _one(op, tangents[0], primals[1])]


def permute_rows_transpose(op: PermuteRows, operands, linear, ct):
    return [_one(PermuteRows(not op.payload[0]), ct, operands[1]), None]


# --- LU ---------------------------------------------------------------------------------
def lu_jvp(op: Lu, primals, outputs, tangents):
    (a,), (lu, _, perm), (ta,) = primals, outputs, tangents
    m, n = a.shape[-2:]
    lower_factor, upper_factor = _square_factors(lu, m, n)
    la = solve(lower_factor, permute(ta, perm), LOWER, unit=True)  # L⁻¹ P dA
    lau = mT(solve(upper_factor, mT(la), UPPER, trans=1))  # L⁻¹ P dA U⁻¹
    strict = tril(lau, -1)
    l_dot = add_any(strict, product(lower_factor, strict, LOWER, strict=True))  # L tril(·, −1)
    u_dot = mT(product(upper_factor, mT(triu(lau)), UPPER, trans=1))  # triu(·) U
    return [add_any(l_dot, u_dot), None, None]


def _square_factors(lu: TracedTensor, m: int, n: int) -> tuple[TracedTensor, TracedTensor]:
    """m × m and n × n matrices whose strict lower and upper triangles are L's and U's, padded
    past min(m, n) as JAX's (L with an identity block, U with one on its diagonal)."""
    if m == n:
        return lu, lu
    batch = lu.shape[:-2]
    if m > n:
        zeros = full(Aval((*batch, m, m - n), lu.dtype), 0)
        return join([lu, zeros], -1), rows(lu, 0, n)
    corner = full(Aval((*batch, n - m, n - m), lu.dtype), 0)
    left = full(Aval((*batch, n - m, m), lu.dtype), 0)
    return columns(lu, 0, m), join([lu, join([left, eye_like(corner)], -1)], -2)


def lu_pruned_jvp(op: LuPruned, primals, outputs, tangents):
    (live,) = op.payload
    tangents_out = lu_jvp(Lu(), primals, apply(Lu(), list(primals)), tangents)
    return [t for t, alive in zip(tangents_out, live) if alive]


def no_tangent(op, primals, outputs, tangents):
    """Integer outputs carry no derivative."""
    return [None] * op.output_count


def lu_solve_jvp(op: LuSolve, primals, outputs, tangents):
    (lu, pivots, _), (x,), (t_lu, _, tb) = primals, outputs, tangents
    if t_lu is None:
        return [_one(op, lu, pivots, tb)]
    (trans,) = op.payload
    perm = _one(PivotsToPermutation(lu.shape[-1]), pivots)
    if trans == 0:  # dx = A⁻¹ (db − Pᵀ dM(dLU) x), M = L U = P A
        by_factor = permute(_one(LuFactorProduct(), lu, x, t_lu), perm, inverse=True)
        return [_one(op, lu, pivots, _minus(tb, by_factor))]
    if trans == 2 and dt.is_complex(x.dtype):  # op(A)⁻¹ b = conj(A⁻ᵀ conj(b))
        return [conj(_transposed_lu_solve_jvp(lu, perm, conj(x), t_lu, _conj_or_same(tb)))]
    return [_transposed_lu_solve_jvp(lu, perm, x, t_lu, tb)]


def _transposed_lu_solve_jvp(lu, perm, x, t_lu, tb) -> TracedTensor:
    """d(A⁻ᵀ b) = Pᵀ L⁻ᵀ (U⁻ᵀ (db − dUᵀ z) − dLᵀ v), v = P x, z = Lᵀ v (= U⁻ᵀ b)."""
    v = permute(x, perm)
    z = add_any(v, product(lu, v, LOWER, 1, True))
    inner = solve(lu, _minus(tb, product(t_lu, z, UPPER, 1)), UPPER, trans=1)
    outer = solve(lu, _minus(inner, product(t_lu, v, LOWER, 1, True)), LOWER, trans=1, unit=True)
    return permute(outer, perm, inverse=True)


def lu_solve_transpose(op: LuSolve, operands, linear, ct):
    if linear[0]:
        raise TypeError("lu_solve is linear in its right-hand side only")
    lu, pivots, _ = operands
    (trans,) = op.payload
    if trans == 0:
        return [None, None, _one(LuSolve(1), lu, pivots, ct)]
    return [None, None, _conj_or_same(_one(LuSolve(0), lu, pivots, _conj_or_same(ct)))]


# --- Cholesky ---------------------------------------------------------------------------
def cho_solve_jvp(op: CholeskySolve, primals, outputs, tangents):
    (c, _), (x,), (tc, tb) = primals, outputs, tangents
    if tc is None:
        return [_one(op, c, tb)]
    # dx = A⁻¹ (db − dA x), dA x one op (whose transpose writes c̄ once)
    by_factor = _one(CholeskyFactorProduct(op.payload[0]), c, x, tc)
    return [_one(op, c, _minus(tb, by_factor))]


def cho_solve_transpose(op: CholeskySolve, operands, linear, ct):
    if linear[0]:
        raise TypeError("cho_solve is linear in its right-hand side only")
    return [None, _conj_or_same(_one(op, operands[0], _conj_or_same(ct)))]


JVP_RULES: dict[type, JvpRule] = {
    TriangularProduct: bilinear_jvp,
    TriangularOuter: bilinear_jvp,
    PermuteRows: permute_rows_jvp,
    Lu: lu_jvp,
    LuPruned: lu_pruned_jvp,
    PivotsToPermutation: no_tangent,
    LuSolve: lu_solve_jvp,
    CholeskySolve: cho_solve_jvp,
}
TRANSPOSE_RULES: dict[type, TransposeRule] = {
    TriangularProduct: triangular_product_transpose,
    TriangularOuter: triangular_outer_transpose,
    PermuteRows: permute_rows_transpose,
    LuSolve: lu_solve_transpose,
    CholeskySolve: cho_solve_transpose,
}
