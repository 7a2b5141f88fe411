"""Where a batch axis is: the axis arithmetic batching rules share.

A batching rule is `batch(lax, op, args, dims) -> (outputs, out_dims)`: `args[i]` is operand
i with the batch axis at `dims[i]`, or the unbatched operand itself when `dims[i]` is None;
axis numbers in an op's parameters are per-example axes. The helpers that move a batch axis
build ops, so they sit in the tracing layer (`tf8.lax.batch_axes`) and reach a home through
the rule kit it is handed (`lax.moveaxis`, `lax.at_front`, `lax.with_params`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def batch_size(args: Sequence[Any], dims: Sequence[int | None]) -> Any:
    """The batch size: the size of the first batched operand's batch axis."""
    for x, d in zip(args, dims):
        if d is not None:
            return x.shape[d]
    raise ValueError("no batched operand")


def batched_axis(axis: int, d: int) -> int:
    """Per-example axis `axis` (>= 0) in the batched array whose batch axis is `d`."""
    return axis if axis < d else axis + 1


def example_axis(axis: int, ndim: int) -> int:
    """A per-example axis parameter (maybe negative) as an index in [0, ndim)."""
    return axis % ndim if ndim else axis


def example_axes(axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    return tuple(example_axis(a, ndim) for a in axes)
