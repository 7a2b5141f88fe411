"""The primitives' batching rules, derived from their homes (`tf8/ops/primitives/`).

A row's own rule (`batch`) is handed the rule kit as `lax`; an elementwise or analytic row
without one gets its category's: it keeps a batch axis its batched operands share.
"""

from __future__ import annotations

import functools

from tf8.lax import rulekit
from tf8.lax.core import apply
from tf8.ops.catalog import Category
from tf8.ops.definition import OpDefinition
from tf8.ops.primitives import PRIMITIVES

from .core import (
    BatchRule,
    batch_size,
    with_batch_at,
)

RULES: dict[str, BatchRule] = {}


def elementwise(op, args, dims):
    """Operands of one shape: keep the batch axis where every batched operand has it (else
    move it to 0), and broadcast the unbatched operands to the batched shape."""
    size = batch_size(args, dims)
    batched = {d for d in dims if d is not None}
    target = batched.pop() if len(batched) == 1 else 0
    operands = [with_batch_at(x, d, size, target) for x, d in zip(args, dims)]
    outs = apply(op, operands)
    return outs, [target] * len(outs)


def home_batch(found: OpDefinition) -> BatchRule | None:
    """The batching rule of a primitive from its home (handed the rule kit as `lax`), or its
    category's: elementwise and analytic rows keep a shared batch axis."""
    if found.batch is not None:
        return functools.partial(found.batch, rulekit)
    if found.category in (Category.ELEMENTWISE, Category.ANALYTIC):
        return elementwise
    return None


for _found in PRIMITIVES.values():
    _rule = home_batch(_found)
    if _rule is not None:
        RULES[_found.name] = _rule
