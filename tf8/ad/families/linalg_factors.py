"""AD rules of the factor-derivative products (`tf8.ops.extension.linalg.factor_tangents`).

Cholesky: P(c, x, t) = dF_c(t) x is ℝ-linear in each argument and symmetric in (c, t), so
    dP = P(dc, x, t)·(= P(t, x, dc)) + P(c, dx, t) + P(c, x, dt),
and its transposes are Pᵀ(c, x, ·) in t, Pᵀ(t, x, ·) in c (the symmetry) and dF_c(t)ᵀ in x.
Pᵀ(c, x, w), P's transpose in t, is ℝ-linear in each argument too: its derivative is itself
in each slot, and it transposes to P(c, x, ·) in w, to Pᵀ(·, x, w) in c and to dF_c(·)ᵀ w in x
(⟨M, Pᵀ(c, x, w)⟩ = ⟨P(c, x, M), w⟩ = ⟨P(M, x, c), w⟩).

LU: P(lu, x, t) = dM(t) x = B(lu, t) x + T_U x with B(lu, t) = T_L U + L_s T_U (L_s the strict
lower triangle of lu) bilinear and symmetric: the same, with the cross term B(dlu, t) x in
place of P(dlu, x, t), written as triangle-restricted products.
"""

from __future__ import annotations

from tf8.lax.builders import add_any, conj
from tf8.lax.core import apply
from tf8.ops import dtypes as dt
from tf8.ops.extension.linalg.factor_tangents import (
    CholeskyFactorProduct,
    CholeskyFactorProductT,
    LuFactorProduct,
    LuFactorProductT,
)
from tf8.ops.extension.linalg.triangular import TriangularOuter
from tf8.traced import TracedTensor

from ..jvp_rules import JvpRule
from ..transpose_rules import TransposeRule
from .linalg_lu import LOWER, UPPER, product


def _conj(x: TracedTensor) -> TracedTensor:
    return conj(x) if dt.is_complex(x.dtype) else x


def _one(op, *args: TracedTensor) -> TracedTensor:
    return apply(op, list(args))[0]


def _sum(*terms: TracedTensor | None) -> TracedTensor | None:
    total = None
    for term in terms:
        total = add_any(total, term)
    return total


def outer(a, b, lower: bool, strict: bool = False) -> TracedTensor:
    """tri(a bᵀ)."""
    return _one(TriangularOuter(lower, strict), a, b)


def trilinear_jvp(op, primals, outputs, tangents):
    """The JVP of an op linear in each of its three operands: the op with one operand
    replaced by its tangent, summed."""
    found = []
    for k, t in enumerate(tangents):
        if t is not None:
            args = list(primals)
            args[k] = t
            found.append(_one(op, *args))
    return [_sum(*found)]


# --- Cholesky ---------------------------------------------------------------------------
def cholesky_product_in_x_transposed(c, t, g, lower: bool) -> TracedTensor:
    """dF_c(t)ᵀ g: the transpose of x ↦ dF_c(t) x."""
    if lower:  # dF x = T (Lᴴ x) + L (Tᴴ x)
        return _sum(
            product(_conj(c), product(t, g, LOWER, 1), LOWER),
            product(_conj(t), product(c, g, LOWER, 1), LOWER),
        )
    # dF x = Tᴴ (U x) + Uᴴ (T x)
    return _sum(
        product(c, product(_conj(t), g, UPPER), UPPER, 1),
        product(t, product(_conj(c), g, UPPER), UPPER, 1),
    )


def cholesky_product_transpose(op: CholeskyFactorProduct, operands, linear, ct):
    c, x, t = operands
    (lower,) = op.payload
    if linear[2]:
        return [None, None, _one(CholeskyFactorProductT(lower), c, x, ct)]
    if linear[0]:
        return [_one(CholeskyFactorProductT(lower), t, x, ct), None, None]
    return [None, cholesky_product_in_x_transposed(c, t, ct, lower), None]


def cholesky_product_t_transpose(op: CholeskyFactorProductT, operands, linear, ct):
    c, x, w = operands
    (lower,) = op.payload
    if linear[2]:
        return [None, None, _one(CholeskyFactorProduct(lower), c, x, ct)]
    if linear[0]:
        return [_one(op, ct, x, w), None, None]
    return [None, cholesky_product_in_x_transposed(c, ct, w, lower), None]


# --- LU ---------------------------------------------------------------------------------
def lu_cross(lu, t, x) -> TracedTensor:
    """B(lu, t) x = T_L (U x) + L_s (T_U x), bilinear and symmetric in (lu, t)."""
    return _sum(
        product(t, product(lu, x, UPPER), LOWER, strict=True),
        product(lu, product(t, x, UPPER), LOWER, strict=True),
    )


def lu_cross_transposed(t, x, ct) -> TracedTensor:
    """The transpose of lu ↦ B(lu, t) x at ct."""
    return _sum(
        outer(product(t, ct, LOWER, 1, True), x, UPPER),
        outer(ct, product(t, x, UPPER), LOWER, True),
    )


def lu_product_in_x_transposed(lu, t, g) -> TracedTensor:
    """dM(t)ᵀ g = Uᵀ T_Lᵀ g + T_Uᵀ (g + L_sᵀ g)."""
    return _sum(
        product(lu, product(t, g, LOWER, 1, True), UPPER, 1),
        product(t, add_any(g, product(lu, g, LOWER, 1, True)), UPPER, 1),
    )


def lu_product_jvp(op: LuFactorProduct, primals, outputs, tangents):
    (lu, x, t), (d_lu, dx, d_t) = primals, tangents
    return [
        _sum(
            None if dx is None else _one(op, lu, dx, t),
            None if d_t is None else _one(op, lu, x, d_t),
            None if d_lu is None else lu_cross(d_lu, t, x),
        )
    ]


def lu_product_transpose(op: LuFactorProduct, operands, linear, ct):
    lu, x, t = operands
    if linear[2]:
        return [None, None, _one(LuFactorProductT(), lu, x, ct)]
    if linear[0]:
        return [lu_cross_transposed(t, x, ct), None, None]
    return [None, lu_product_in_x_transposed(lu, t, ct), None]


def lu_product_t_jvp(op: LuFactorProductT, primals, outputs, tangents):
    (lu, x, w), (d_lu, dx, dw) = primals, tangents
    return [
        _sum(
            None if dx is None else _one(op, lu, dx, w),
            None if dw is None else _one(op, lu, x, dw),
            None if d_lu is None else lu_cross_transposed(d_lu, x, w),
        )
    ]


def lu_product_t_transpose(op: LuFactorProductT, operands, linear, ct):
    lu, x, w = operands
    if linear[2]:
        return [None, None, _one(LuFactorProduct(), lu, x, ct)]
    if linear[0]:
        return [lu_cross_transposed(ct, x, w), None, None]
    return [None, lu_product_in_x_transposed(lu, ct, w), None]


JVP_RULES: dict[type, JvpRule] = {
    CholeskyFactorProduct: trilinear_jvp,
    CholeskyFactorProductT: trilinear_jvp,
    LuFactorProduct: lu_product_jvp,
    LuFactorProductT: lu_product_t_jvp,
}
TRANSPOSE_RULES: dict[type, TransposeRule] = {
    CholeskyFactorProduct: cholesky_product_transpose,
    CholeskyFactorProductT: cholesky_product_t_transpose,
    LuFactorProduct: lu_product_transpose,
    LuFactorProductT: lu_product_t_transpose,
}
