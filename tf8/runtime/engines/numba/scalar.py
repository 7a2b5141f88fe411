"""The numba engine's kernel table: each elementwise primitive as one line of scalar code.

`SCALAR[name](op, args)` is the source of one element of the result, from the operands'
element expressions `args`; the code runs inside a compiled loop (numba, `error_model=
"numpy"`: IEEE results, no exceptions), with `np` and `math` in scope; most rows carry
theirs on their definition (`Fusion.scalar`, with `repeats`, `bool_operands` and
`bool_result`). A reduction is an accumulator (`REDUCTIONS`: its initial value and the
lanes.py function folding a block into it). Only real floating dtypes are placed here (see
`NumbaEngine.supports`); everything else falls back to the numpy engine.
"""

from __future__ import annotations

from typing import Any

from tf8.ops.definition import definition
from tf8.ops.fusion import ScalarCode
from tf8.ops.fusion import call as _call
from tf8.ops.primitives import PRIMITIVES

SCALAR: dict[str, ScalarCode] = {
    "erf": _call("math.erf"),
    "broadcast_in_dim": lambda op, a: a[0],  # of a 0-d value (NumbaEngine.supports)
}

# ... and every primitive whose definition carries its scalar code (tf8/ops/primitives/).
SCALAR.update({d.name: d.fusion.scalar for d in PRIMITIVES.values() if d.fusion.scalar})

# reduction → (initial value, the lanes.py function folding a block into the accumulator)
REDUCTIONS: dict[str, tuple[str, str]] = {
    "reduce_sum": ("0.0", "sum_block"),
    "reduce_prod": ("1.0", "prod_block"),
    "reduce_max": ("-np.inf", "max_block"),
    "reduce_min": ("np.inf", "min_block"),
}


def scalar_code(op: Any) -> ScalarCode | None:
    """The scalar code of `op` (from its definition's fusion facts), or None."""
    found = definition(op)
    return found.fusion.scalar or SCALAR.get(found.rule_key)


def repeats(op: Any) -> bool:
    """Whether `op`'s scalar code names an operand more than once."""
    return definition(op).fusion.repeats


def bool_operands(op: Any) -> tuple[int, ...]:
    """The operand positions of `op` that may be bool."""
    return definition(op).fusion.bool_operands


def bool_result(op: Any) -> bool:
    """Whether `op`'s result is bool (its scalar code is a comparison)."""
    return definition(op).fusion.bool_result
