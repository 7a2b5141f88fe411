"""What batching rules are written in: where the batch axis is, and moving it.

A batching rule is `rule(op, args, dims) -> (outputs, out_dims)` (see `tf8.lax.batch_axes`,
where the helpers below are defined, in the tracing layer, so that a primitive's home
receives them through the rule kit too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tf8.lax.batch_axes import (
    Dims,
    at_front,
    batch_size,
    batched_axis,
    example_axis,
    moveaxis,
    with_batch_at,
    with_params,
)
from tf8.lax.core import apply
from tf8.traced import TracedTensor

__all__ = [
    "BatchRule",
    "Dims",
    "apply_op",
    "at_front",
    "batch_size",
    "batched_axis",
    "example_axis",
    "moveaxis",
    "with_batch_at",
    "with_params",
]

BatchRule = Callable[[Any, list[TracedTensor], Dims], tuple[list[TracedTensor], list[int | None]]]


def apply_op(op: Any, args: Sequence[TracedTensor]) -> list[TracedTensor]:
    return apply(op, list(args))
