"""The primitives' transpose rules, derived from their homes (`tf8/ops/primitives/`).

`rule(op, operands, linear, ct) -> list of cotangents, one per operand` where `linear[i]`
says operand i is a linear input (its entry in `operands` is a TracedTensor carrying only the
right aval when linear, the residual value otherwise) and `ct` is the output cotangent.
Complex numbers follow JAX: the transpose is taken w.r.t. the bilinear pairing sum(a*b), so
`mul` transposes to `ct * a` (no conjugation) and `conj` to `conj`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from tf8.lax import rulekit
from tf8.lax.builders import Tangent
from tf8.ops.definition import OpDefinition
from tf8.ops.primitive import Primitive
from tf8.ops.primitives import PRIMITIVES
from tf8.traced import TracedTensor

TransposeRule = Callable[
    [Primitive, Sequence[TracedTensor], Sequence[bool], TracedTensor], list[Tangent]
]
TRANSPOSE_RULES: dict[str, TransposeRule] = {}


def home_transpose(found: OpDefinition) -> TransposeRule | None:
    """The transpose rule of a primitive from its home, handed the rule kit as `lax`."""
    return None if found.transpose is None else functools.partial(found.transpose, rulekit)


for _found in PRIMITIVES.values():
    _rule = home_transpose(_found)
    if _rule is not None:
        TRANSPOSE_RULES[_found.name] = _rule
