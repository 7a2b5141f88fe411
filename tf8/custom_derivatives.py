"""`tf8.custom_derivatives`: JAX's module of that name, gathering tf8's custom-rule API
(`custom_jvp`, `custom_vjp`, `custom_gradient`, `closure_convert`).

JAX's `SymbolicZero`, `zero_from_primal`, `CustomVJPPrimal`, `custom_vjp_primal_tree_values`
and `linear_call` serve options tf8's custom rules do not take (`symbolic_zeros=`,
`optimize_remat=`), so they are left out.
"""

from tf8.ad import closure_convert, custom_gradient, custom_jvp, custom_vjp

__all__ = ["closure_convert", "custom_gradient", "custom_jvp", "custom_vjp"]
