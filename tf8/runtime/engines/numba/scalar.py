"""The numba engine's scalar code: each elementwise primitive as one line of source.

`scalar_code(op)(op, args)` is the source of one element of the result, from the operands'
element expressions `args`; the code runs inside a compiled loop (numba, `error_model=
"numpy"`: IEEE results, no exceptions), with `np` and `math` in scope; the rows carry theirs
on their definition (`Fusion.scalar`, with `repeats`, `bool_operands` and `bool_result`). A
full reduction is an accumulator (`accumulation`: its initial value and the lanes.py
function folding a block into it). Only real floating dtypes are placed here (see
`NumbaEngine.supports`); everything else falls back to the numpy engine.
"""

from __future__ import annotations

from typing import Any

from tf8.ops.definition import definition
from tf8.ops.fusion import ScalarCode


def accumulation(op: Any) -> tuple[str, str] | None:
    """A reduction's accumulator (its definition's fusion facts), or None."""
    return definition(op).fusion.accumulate


def scalar_code(op: Any) -> ScalarCode | None:
    """The scalar code of `op` (from its definition's fusion facts), or None."""
    return definition(op).fusion.scalar


def repeats(op: Any) -> bool:
    """Whether `op`'s scalar code names an operand more than once."""
    return definition(op).fusion.repeats


def bool_operands(op: Any) -> tuple[int, ...]:
    """The operand positions of `op` that may be bool."""
    return definition(op).fusion.bool_operands


def bool_result(op: Any) -> bool:
    """Whether `op`'s result is bool (its scalar code is a comparison)."""
    return definition(op).fusion.bool_result
