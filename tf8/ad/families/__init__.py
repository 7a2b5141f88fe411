"""AD rules of tf8's extension families (einsum, fft, linalg, sort, threefry), keyed by op class.

`linearize` looks an extension op up here by its exact type first; a user-defined family
(not listed) brings its rules as the `jvp` / `transpose` methods of its op class.
"""

from __future__ import annotations

from ..jvp_rules import JvpRule
from ..transpose_rules import TransposeRule
from . import (
    einsum,
    fft,
    linalg,
    linalg_decompositions,
    linalg_factors,
    linalg_lu,
    linalg_scipy,
    sort,
    threefry,
)

FAMILY_JVP_RULES: dict[type, JvpRule] = {
    **einsum.JVP_RULES,
    **fft.JVP_RULES,
    **linalg.JVP_RULES,
    **linalg_decompositions.JVP_RULES,
    **linalg_lu.JVP_RULES,
    **linalg_factors.JVP_RULES,
    **linalg_scipy.JVP_RULES,
    **sort.JVP_RULES,
    **threefry.JVP_RULES,
}
FAMILY_TRANSPOSE_RULES: dict[type, TransposeRule] = {
    **einsum.TRANSPOSE_RULES,
    **fft.TRANSPOSE_RULES,
    **linalg.TRANSPOSE_RULES,
    **linalg_lu.TRANSPOSE_RULES,
    **linalg_factors.TRANSPOSE_RULES,
}

__all__ = ["FAMILY_JVP_RULES", "FAMILY_TRANSPOSE_RULES"]
