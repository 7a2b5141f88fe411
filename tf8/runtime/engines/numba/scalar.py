"""The numba engine's kernel table: each elementwise primitive as one line of scalar code.

`SCALAR[name](op, args)` is the source of one element of the result, from the operands'
element expressions `args`; the code runs inside a compiled loop (numba, `error_model=
"numpy"`: IEEE results, no exceptions), with `np` and `math` in scope. maximum/minimum
propagate NaN as numpy's do (operands are plain names or array reads, so repeating them
costs nothing). A reduction is an accumulator (`REDUCTIONS`: its initial value and the
lanes.py function folding a block into it). Only real floating dtypes are placed here (see
`NumbaEngine.supports`); everything else falls back to the numpy engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.ops.definition import definition
from tf8.ops.fusion import ScalarCode
from tf8.ops.fusion import call as _call
from tf8.ops.fusion import infix as _infix
from tf8.ops.primitives import PRIMITIVES


def _max(a: str, b: str) -> str:
    return f"({a} if ({a} > {b} or {a} != {a}) else {b})"


def _min(a: str, b: str) -> str:
    return f"({a} if ({a} < {b} or {a} != {a}) else {b})"


def _clamp(op: Any, a: Sequence[str]) -> str:  # min(max(x, lo), hi), through a temporary
    return _min(f"max_{a[1]}", a[2]).replace(f"max_{a[1]}", _max(a[1], a[0]))


_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}

SCALAR: dict[str, ScalarCode] = {
    "add": _infix("+"),
    "sub": _infix("-"),
    "mul": _infix("*"),
    "div": _infix("/"),
    "pow": _call("np.power"),
    "neg": lambda op, a: f"(-{a[0]})",
    "abs": _call("abs"),
    "sign": _call("np.sign"),
    "maximum": lambda op, a: _max(a[0], a[1]),
    "minimum": lambda op, a: _min(a[0], a[1]),
    "clamp": _clamp,
    "compare": lambda op, a: f"({a[0]} {_COMPARE[op['direction']]} {a[1]})",
    "select": lambda op, a: f"({a[1]} if {a[0]} else {a[2]})",
    "floor": _call("np.floor"),
    "ceil": _call("np.ceil"),
    "round": _call("np.rint"),
    "convert": lambda op, a: f"np.{np.dtype(op['dtype']).name}({a[0]})",
    "broadcast_in_dim": lambda op, a: a[0],  # of a 0-d value (NumbaEngine.supports)
}

# ... and every primitive whose definition carries its scalar code (tf8/ops/primitives/).
SCALAR.update({d.name: d.fusion.scalar for d in PRIMITIVES.values() if d.fusion.scalar})

# Ops whose scalar code repeats an operand: an operand that is an expression (nests.py)
# is computed once into a name first, or the source would grow exponentially with nesting.
REPEATS = frozenset({"maximum", "minimum", "clamp"})

# Operand positions that may be bool (select's predicate); every other operand is a float.
BOOL_OPERANDS: dict[str, tuple[int, ...]] = {"select": (0,)}
BOOL_RESULT = frozenset({"compare"})

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
    found = definition(op)
    return found.fusion.repeats or found.rule_key in REPEATS


def bool_operands(op: Any) -> tuple[int, ...]:
    """The operand positions of `op` that may be bool."""
    found = definition(op)
    return found.fusion.bool_operands or BOOL_OPERANDS.get(found.rule_key, ())
