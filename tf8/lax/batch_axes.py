"""Where a batch axis is, and moving it: what batching rules are written in.

A batching rule is `rule(op, args, dims) -> (outputs, out_dims)`: `args[i]` is operand i with
the batch axis at `dims[i]`, or the unbatched operand itself when `dims[i]` is None (at least
one operand is batched); `out_dims[k]` is where output k carries the batch axis (None: it
does not depend on the batch). Axis numbers in an op's parameters are per-example axes.

These helpers sit in the tracing layer so that a primitive's home (`tf8/ops/primitives/`)
receives them through the rule kit (`tf8.lax.rulekit`) and the transforms import them too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tf8.ops.primitive import make_primitive
from tf8.ops.primitives.batch_axes import batch_size, batched_axis, example_axis
from tf8.ops.shapes import Dim
from tf8.traced import TracedTensor

from .builders import broadcast, transpose

__all__ = [
    "at_front",
    "batch_size",
    "batched_axis",
    "example_axis",
    "moveaxis",
    "with_batch_at",
    "with_params",
]

Dims = Sequence[int | None]


def moveaxis(x: TracedTensor, source: int, destination: int) -> TracedTensor:
    """x with axis `source` moved to `destination` (one transpose, none if already there)."""
    if source == destination:
        return x
    perm = [i for i in range(x.ndim) if i != source]
    perm.insert(destination, source)
    return transpose(x, perm)


def with_batch_at(x: TracedTensor, d: int | None, size: Dim, target: int) -> TracedTensor:
    """x with its batch axis at `target`: moved there, or broadcast in when x is unbatched."""
    if d is not None:
        return moveaxis(x, d, target)
    shape = list(x.shape)
    shape.insert(target, size)
    return broadcast(x, shape, [i if i < target else i + 1 for i in range(x.ndim)])


def at_front(x: TracedTensor, d: int | None, size: Dim) -> TracedTensor:
    return with_batch_at(x, d, size, 0)


def with_params(op: Any, input_count: int | None = None, **changes: Any) -> Any:
    """The primitive `op` with some parameters replaced (and its input count, if given)."""
    count = op.input_count if input_count is None else input_count
    return make_primitive(op.name, count, {**dict(op.params), **changes})
