"""What the family modules' batching rules share: where the batch axis is, and moving it.

A batching rule is `batch(lax, op, args, dims) -> (outputs, out_dims)`: `args[i]` is operand
i with the batch axis at `dims[i]`, or the unbatched operand itself when `dims[i]` is None;
axis numbers in an op's parameters are per-example axes. The helpers that build ops take the
rule kit `lax` the transforms hand in (this layer cannot import the builders).
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


def moveaxis(lax: Any, x: Any, source: int, destination: int) -> Any:
    """x with axis `source` moved to `destination` (one transpose, none if already there)."""
    if source == destination:
        return x
    perm = [i for i in range(x.ndim) if i != source]
    perm.insert(destination, source)
    return lax.transpose(x, perm)


def at_front(lax: Any, x: Any, d: int | None, size: Any) -> Any:
    """x with its batch axis first: moved there, or broadcast in when x is unbatched."""
    if d is not None:
        return moveaxis(lax, x, d, 0)
    return lax.broadcast(x, (size, *x.shape), [i + 1 for i in range(x.ndim)])


def apply_with(lax: Any, op: Any, inputs: Sequence[Any], **changes: Any) -> Any:
    """The single output of primitive `op`, some of its parameters replaced, on `inputs`."""
    return lax.apply1(op.name, list(inputs), **{**dict(op.params), **changes})
