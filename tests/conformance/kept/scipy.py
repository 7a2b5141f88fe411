"""Deliberate differences in the conformance corpus: scipy.special, scipy.stats,
lax.special functions.
See deliberate.py."""

from __future__ import annotations

from ..rows import Row, corpus  # noqa: F401

_INT_PRIMAL = (
    "JAX 0.10 raises TypeError differentiating `{name}` with an integer array closed over "
    "(its custom JVP is handed the integer primal), out of strictness: the derivative with "
    "respect to the float argument is well defined. tf8 promotes the integer to its inexact "
    "dtype as every scipy.special function does (DESIGN §2: JAX's promotion lattice) and "
    "differentiates with respect to the float argument only."
)

ROWS: list[Row] = [
    *(
        corpus(
            f"scipy.special.{name}",
            "int64[[]3], float64[[]3]",
            "[jv][jv]p*",
            f"`tf8.scipy.special.{name}` with an integer first argument is differentiable in "
            "its float second argument.",
            _INT_PRIMAL.format(name=name),
            differs="no error (JAX raised TypeError)",
        )
        for name in ("poch", "xlogy", "xlog1py")
    ),
    corpus(
        "scipy.stats.norm.isf",
        "float64[[]8]",
        "*",
        "`tf8.scipy.stats.norm.isf(q)` keeps the far tail: `isf(1e-300)` is 37.05 (scipy's "
        "value), not inf.",
        "JAX 0.10 computes isf(q) as ppf(1 - q), and 1 - 1e-300 rounds to 1, so it silently "
        "returns inf for a finite quantile. tf8 computes -ndtri(q) (the same function, without "
        "the rounding), following README's rule: never a silent wrong answer.",
        differs="values *, JAX [[]inf]",
    ),
    corpus(
        "scipy.special.poch",
        "float32[[]10], float32[[]10]",
        "*",
        "`poch` of float32 operands where Γ overflows float32 is the finite ratio: "
        "`poch(50, 0.5)` is 7.05, not NaN.",
        "tf8 computes poch of float16 and float32 in float64 and rounds once, as "
        "scipy.special.poch's float32 loop does (scipy gives 7.05 too), so its derivatives keep "
        "float32's digits where Γ(z + m)'s and Γ(z)'s cancel (DESIGN §2: scipy's kernels, "
        "README: never a silent wrong answer); JAX divides float32 Γ(50.5) = inf by "
        "Γ(50) = inf.",
        differs="values [[]7.05*], JAX [[]nan[]]",
    ),
    corpus(
        "lax.clamp",
        "complex128[[]1], complex128[[]1], complex128[[]1]",
        "[jv][vj]p*",
        "`tf8.lax.clamp` of complex operands differentiates.",
        "JAX 0.10 clamps complex values (in numpy's lexicographic order) but raises TypeError "
        "when asked for the derivative. tf8's clamp rule is one rule for every inexact dtype "
        "(DESIGN §4): the derivative flows to whichever operand is picked, as for real ones.",
        differs="no error (JAX raised TypeError)",
    ),
]
