"""The products a factor's derivative makes, and their transposes: what the JVPs of the solves
on LU and Cholesky factors are written in.

With F the matrix a factor c stands for and dF_c(t) its derivative in direction t, the JVP of
x = F⁻¹ b is dx = F⁻¹ (db − dF_c(dc) x): one solve of one right-hand side, and reverse mode
is one transposed solve w = F⁻ᵀ x̄ and the transpose of t ↦ dF_c(t) x at w, written into one
n × n array:

- `CholeskyFactorProduct(lower)`: (c, x, t) ↦ dF_c(t) x for F = Uᴴ U (U the upper triangle of
  c), dF = Tᴴ U + Uᴴ T, or F = L Lᴴ (`lower`), dF = T Lᴴ + L Tᴴ. ℝ-linear in c, x and t, and
  symmetric in (c, t).
- `CholeskyFactorProductT(lower)`: (c, x, w) ↦ its transpose in t at w (JAX's bilinear
  convention: conj transposes to conj): triu([ȳ, Ū w] [w̄, x]ᵀ) with y = U x, or
  tril([w, x̄] [y, conj(Lᵀ w)]ᵀ) with y = Lᴴ x. ℝ-linear in c, x and w.
- `LuFactorProduct()`: (lu, x, t) ↦ dM(t) x = T_L (U x) + L (T_U x) for M = L U (L unit lower
  and U upper, both in lu), T_L = tril(t, −1), T_U = triu(t).
- `LuFactorProductT()`: (lu, x, w) ↦ tril(w yᵀ, −1) + triu((Lᵀ w) xᵀ), y = U x.

Rules in `tf8.ad.families.linalg_factors`.
"""

from __future__ import annotations

from .base import LinalgOp, right_hand_side, same_dtype, square


class _FactorOp(LinalgOp):
    """(factor (..., n, n), x (..., n, k), direction) ↦ a product (x's shape) or its transpose
    (the factor's shape)."""

    inputs = 3
    transposed = False

    def out_avals(self, avals, guards):
        factor, x, direction = avals
        n = square(self.name, factor, guards)
        right_hand_side(self.name, factor, x, n)
        same_dtype(self.name, factor, direction)
        if self.transposed:
            right_hand_side(self.name, factor, direction, n)
            return (factor,)
        square(self.name, direction, guards)
        return (x,)


class CholeskyFactorProduct(_FactorOp):
    name = "cho_factor_product"

    def __init__(self, lower: bool) -> None:
        super().__init__(bool(lower))


class CholeskyFactorProductT(_FactorOp):
    name = "cho_factor_product_t"
    transposed = True

    def __init__(self, lower: bool) -> None:
        super().__init__(bool(lower))


class LuFactorProduct(_FactorOp):
    name = "lu_factor_product"


class LuFactorProductT(_FactorOp):
    name = "lu_factor_product_t"
    transposed = True


__all__ = [
    "CholeskyFactorProduct",
    "CholeskyFactorProductT",
    "LuFactorProduct",
    "LuFactorProductT",
]
