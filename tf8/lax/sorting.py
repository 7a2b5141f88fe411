"""Tracing-level sort: `lax.sort`, `lax.sort_key_val`, `lax.top_k`, and `take_along`, the
gather by a permutation that sort's JVP rule and tf8.numpy's sorting functions share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import DTypeError, ParameterError
from tf8.lax.builders import compare, full, neg, unary
from tf8.lax.core import apply, apply1
from tf8.ops import dtypes as dt
from tf8.ops.extension.sort import Sort
from tf8.ops.leaves import concrete_array
from tf8.ops.primitive import Aval, ConstantValue
from tf8.ops.shapes import shape_str
from tf8.traced import TracedTensor


def _operand(x: Any) -> TracedTensor:
    if isinstance(x, TracedTensor):
        return x
    return apply1("constant", [], value=ConstantValue(concrete_array(x)))


def _dimension(dimension: int, x: TracedTensor, name: str) -> int:
    if not isinstance(dimension, (int, np.integer)) or not -x.ndim <= dimension < x.ndim:
        raise ParameterError(
            f"{name}: dimension {dimension!r} out of range for operand {shape_str(x.shape)}"
        )
    return int(dimension) % x.ndim


def sort_all(
    operands: Sequence[TracedTensor], dimension: int, num_keys: int = 1, is_stable: bool = True
) -> list[TracedTensor]:
    """The operands (traced, one shape) sorted together along `dimension` by the first
    `num_keys` of them: one `sort` op."""
    axis = _dimension(dimension, operands[0], "sort")
    return apply(Sort(axis, is_stable, num_keys, len(operands)), list(operands))


def sort(
    operand: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1
) -> TracedTensor | tuple[TracedTensor, ...]:
    """lax.sort: one array sorted along `dimension`, or a sequence of arrays of one shape
    sorted together by the first `num_keys` of them (a tuple back). Stable; NaNs last."""
    if isinstance(operand, (list, tuple)):
        if not operand:
            raise ParameterError("sort: needs at least one operand")
        return tuple(sort_all([_operand(x) for x in operand], dimension, num_keys, is_stable))
    if num_keys != 1:
        raise ParameterError(f"sort: num_keys={num_keys} needs a sequence of operands")
    return sort_all([_operand(operand)], dimension, 1, is_stable)[0]


def sort_key_val(
    keys: Any, values: Any, dimension: int = -1, is_stable: bool = True
) -> tuple[TracedTensor, TracedTensor]:
    """lax.sort_key_val: `keys` sorted along `dimension`, `values` permuted alike."""
    k, v = sort_all([_operand(keys), _operand(values)], dimension, 1, is_stable)
    return k, v


def iota_like(x: TracedTensor, dimension: int) -> TracedTensor:
    """0, 1, 2, ... along `dimension`, in x's shape (int64): positions to sort along."""
    return apply1("iota", [], shape=x.shape, dtype=dt.int64, dimension=dimension)


def descending_keys(x: TracedTensor) -> list[TracedTensor]:
    """Keys whose ascending order is x's descending order (ties keep their order), NaN
    first: it counts as the largest, as in JAX's top_k."""
    if x.dtype.kind in "biu":  # ~x reverses the order of bools and two's-complement ints
        return [unary("not", x)]
    if x.dtype.kind == "f":  # not-NaN (False first), then -x
        return [compare(x, x, "eq"), neg(x)]
    raise DTypeError(f"top_k: operand must be real, got {x.aval}")


def top_k(operand: Any, k: int, *, axis: int = -1) -> tuple[TracedTensor, TracedTensor]:
    """lax.top_k: the `k` largest entries along `axis`, largest first (equal entries in
    index order, NaN the largest), and their indices (int32, as JAX's)."""
    x = _operand(operand)
    if x.ndim == 0:
        raise ParameterError("top_k: operand must have at least one dimension, got a scalar")
    axis = _dimension(axis, x, "top_k")
    n = x.shape[axis]
    if not isinstance(k, (int, np.integer)) or not 0 <= k or (isinstance(n, int) and k > n):
        raise ParameterError(f"top_k: k must be in [0, {n}] for operand {x.aval}, got {k!r}")
    keys = descending_keys(x)
    *_, values, indices = sort_all([*keys, x, iota_like(x, axis)], axis, len(keys))
    limit = tuple(int(k) if i == axis else d for i, d in enumerate(x.shape))
    cut = {"start": (0,) * x.ndim, "limit": limit, "strides": None}
    indices = apply1("convert", [apply1("slice", [indices], **cut)], dtype=dt.int32)
    return apply1("slice", [values], **cut), indices


def take_along(x: TracedTensor, indices: TracedTensor, dimension: int) -> TracedTensor:
    """x[..., indices[...], ...] along `dimension`, `indices` (int) of x's shape: one gather.
    Linear in x, so sort's JVP (a gather of the tangent) transposes to a scatter-add.
    An empty x reads nothing: the result is zeros of `indices`' shape, as JAX's
    take_along_axis (gather cannot take a size-1 slice of a size-0 axis)."""
    if any(type(d) is int and d == 0 for d in x.shape):
        return full(Aval(tuple(indices.shape), x.dtype), 0)
    rank = x.ndim
    grid = [indices if d == dimension else iota_like(indices, d) for d in range(rank)]
    shape = (*indices.shape, 1)
    parts = [apply1("reshape", [convert_index(g)], shape=shape) for g in grid]
    vectors = parts[0] if rank == 1 else apply1("concatenate", parts, axis=rank)
    return apply1(
        "gather",
        [x, vectors],
        offset_dims=(),
        collapsed_slice_dims=tuple(range(rank)),
        start_index_map=tuple(range(rank)),
        slice_sizes=(1,) * rank,
    )


def convert_index(i: TracedTensor) -> TracedTensor:
    return i if i.dtype == dt.int64 else apply1("convert", [i], dtype=dt.int64)


__all__ = ["sort", "sort_all", "sort_key_val", "take_along", "top_k"]
