"""JAX's small `lax` helpers on tf8's primitives: filled arrays (`full`, `full_like`,
`empty`), shapes and ranks (`broadcast_shapes`, `broadcast_to_rank`, `broadcast_like`,
`collapse`), joining and splitting (`stack`, `unstack`, `split`, `tile`), `batch_matmul`, and
`dtype`. Each is a composition of catalog primitives, so derivatives, `vmap` and `jit` come
from theirs; bad arguments raise `tf8.errors` naming the function, argument and shapes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import AxisError, ParameterError, ShapeError
from tf8.lax.ops import (
    _array,
    _operands,
    broadcast,
    broadcast_in_dim,
    concatenate,
    convert_element_type,
    reshape,
)
from tf8.lax.ops import slice as slice_
from tf8.lax.structure import dot_general
from tf8.ops import dtypes as dt
from tf8.ops.shapes import Dim, as_dim, dims_equal, shape_str
from tf8.traced import TracedTensor


def _shape(name: str, shape: Any) -> tuple[Dim, ...]:
    try:
        return tuple(as_dim(d) for d in shape)
    except TypeError:
        raise ShapeError(
            f"{name}: shape must be a sequence of non-negative ints, got {shape!r}"
        ) from None


def _axis(name: str, axis: Any, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise AxisError(f"{name}: axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise AxisError(f"{name}: axis {axis} is out of range for rank {ndim}")
    return int(axis) % ndim


def full(shape: Sequence[Any], fill_value: Any, dtype: Any = None) -> TracedTensor:
    """An array of `shape` filled with the scalar `fill_value` (in `dtype`, else its own:
    a Python float gives a weakly typed float64, as in JAX with x64).

    >>> from tf8 import lax
    >>> lax.full((2, 3), 1.5)
    Array([[1.5, 1.5, 1.5],
           [1.5, 1.5, 1.5]], dtype=float64, weak_type=True)
    >>> lax.full((2,), 7, "int32")
    Array([7, 7], dtype=int32)

    Unlike JAX's, `sharding=` is not taken (tf8 runs on one host).
    """
    dims = _shape("full", shape)
    value = _array(fill_value)
    if value.ndim:
        raise ShapeError(f"full: fill_value must be a scalar, got {value.aval}")
    if dtype is not None:
        value = convert_element_type(value, dtype)
    return broadcast(value, dims)


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> TracedTensor:
    """An array like `x` (its shape and dtype, or `shape` and `dtype` where given) filled with
    `fill_value`; weakly typed where `x` is and no `dtype` is given, as in JAX.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.full_like(np.zeros((2,), np.float32), 2)
    Array([2., 2.], dtype=float32)
    """
    like = x if isinstance(x, TracedTensor) else _array(x)
    target = like.dtype if dtype is None else dt.as_dtype(dtype)
    dims = like.shape if shape is None else _shape("full_like", shape)
    out = full(dims, fill_value, target)
    out._weak = dtype is None and like._weak
    return out


def empty(shape: Sequence[Any], dtype: Any) -> TracedTensor:
    """An array of `shape` and `dtype` whose values the program must not read before writing
    them. JAX's are uninitialised memory; tf8's are zeros.

    >>> from tf8 import lax
    >>> lax.empty((2,), "float32").shape
    (2,)
    """
    return full(_shape("empty", shape), 0, dtype)


def dtype(x: Any) -> np.dtype:
    """The dtype of a value or type, as `jax.lax.dtype` (not numpy's `np.dtype`): a Python
    scalar or scalar type gives its default dtype (float64, int64 and complex128, as JAX's
    with x64), a tf8 or numpy array its dtype, a dtype name or type that dtype.

    >>> from tf8 import lax
    >>> lax.dtype(1.5), lax.dtype(int), lax.dtype("float32")
    (dtype('float64'), dtype('int64'), dtype('float32'))

    A numpy array of a dtype tf8 lacks (int8) gives the dtype tf8 computes it in (int64),
    where JAX returns int8.
    """
    if x is None:
        raise ParameterError("dtype: got None, which has no dtype")
    if isinstance(x, TracedTensor):
        return x.dtype
    if isinstance(x, type) and x in (bool, int, float, complex):
        return dt.weak_scalar_dtype(x(0))
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        return dt.weak_scalar_dtype(x)
    if isinstance(x, (str, type, np.dtype)):
        return dt.as_dtype(x)
    found = getattr(x, "dtype", None)
    if found is None:
        raise ParameterError(f"dtype: {type(x).__name__} {x!r} has no dtype")
    return dt.canonical_dtype(np.dtype(found))


def broadcast_shapes(*shapes: Sequence[Any]) -> tuple[Dim, ...]:
    """The shape numpy's broadcasting gives `shapes` (ShapeError naming them all if none).

    >>> from tf8 import lax
    >>> lax.broadcast_shapes((3, 1), (1, 4), (5, 1, 1))
    (5, 3, 4)
    """
    given = [_shape("broadcast_shapes", s) for s in shapes]
    ndim = max((len(s) for s in given), default=0)
    out: list[Dim] = []
    for axis in range(ndim):
        size: Dim = 1
        for s in given:
            d = s[axis - ndim + len(s)] if axis - ndim + len(s) >= 0 else 1
            if dims_equal(d, 1) is True or dims_equal(size, d) is True:
                continue
            if dims_equal(size, 1) is True:
                size = d
            else:
                raise ShapeError(
                    "broadcast_shapes: shapes "
                    + ", ".join(shape_str(s) for s in given)
                    + " do not broadcast together"
                )
        out.append(size)
    return tuple(out)


def broadcast_to_rank(x: Any, rank: int) -> TracedTensor:
    """`x` with leading axes of size 1 up to rank `rank`.

    >>> from tf8 import lax
    >>> lax.broadcast_to_rank(lax.full((3,), 1.0), 3).shape
    (1, 1, 3)
    """
    operand = _array(x)
    if rank < operand.ndim:
        raise ShapeError(f"broadcast_to_rank: rank {rank} is below that of {operand.aval}")
    return broadcast(operand, (1,) * (rank - operand.ndim))


def broadcast_like(arr: Any, like_arr: Any) -> TracedTensor:
    """`arr` broadcast (numpy's rules) to the shape of `like_arr`.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.broadcast_like(np.array([1, 2, 3]), np.zeros((2, 3)))
    Array([[1, 2, 3],
           [1, 2, 3]], dtype=int64)
    """
    x = _array(arr)
    target = like_arr.shape if isinstance(like_arr, TracedTensor) else np.shape(like_arr)
    try:
        fits = broadcast_shapes(x.shape, target) == tuple(target)
    except ShapeError:
        fits = False
    if not fits:
        raise ShapeError(f"broadcast_like: {x.aval} does not broadcast to {shape_str(target)}")
    lead = len(target) - x.ndim
    kept = [i + lead for i, d in enumerate(x.shape) if dims_equal(d, target[i + lead]) is True]
    squeezed = reshape(x, [x.shape[i - lead] for i in kept])
    return broadcast_in_dim(squeezed, target, kept)


def collapse(operand: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """`operand` with axes start_dimension:stop_dimension (a Python slice, negative from the
    end) merged into one.

    >>> from tf8 import lax
    >>> lax.collapse(lax.full((2, 3, 4), 0.0), 1).shape
    (2, 12)
    """
    x = _array(operand)
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(x.ndim)
    if hi < lo:
        raise AxisError(
            f"collapse: dimensions {start_dimension}:{stop_dimension} of {x.aval} are empty"
        )
    size = math.prod(x.shape[lo:hi])
    return reshape(x, (*x.shape[:lo], size, *x.shape[hi:]))


def stack(operands: Sequence[Any], axis: int = 0) -> TracedTensor:
    """The arrays (one shape, one dtype) joined along a new axis `axis`.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.stack([np.array([1, 2]), np.array([3, 4])], axis=1)
    Array([[1, 3],
           [2, 4]], dtype=int64)
    """
    xs = [_array(x) for x in operands]
    if not xs:
        raise ParameterError("stack: needs at least one operand")
    if len({x.shape for x in xs}) != 1:
        raise ShapeError(
            "stack: the operands must share one shape, got " + ", ".join(str(x.aval) for x in xs)
        )
    xs = _operands(*xs) if len(xs) > 1 else xs
    axis = _axis("stack", axis, xs[0].ndim + 1)
    shape = list(xs[0].shape)
    shape.insert(axis, 1)
    return concatenate([reshape(x, shape) for x in xs], axis)


def unstack(x: Any, axis: int = 0) -> tuple[TracedTensor, ...]:
    """The slices of `x` along `axis`, that axis dropped.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.unstack(np.array([[1, 2], [3, 4]]))
    (Array([1, 2], dtype=int64), Array([3, 4], dtype=int64))
    """
    operand = _array(x)
    if operand.ndim == 0:
        raise ShapeError(f"unstack: needs an operand of rank > 0, got {operand.aval}")
    axis = _axis("unstack", axis, operand.ndim)
    kept = [d for i, d in enumerate(operand.shape) if i != axis]
    return tuple(reshape(part, kept) for part in split(operand, [1] * operand.shape[axis], axis))


def split(operand: Any, sizes: Sequence[int], axis: int = 0) -> list[TracedTensor]:
    """`operand` cut along `axis` into pieces of `sizes` (which sum to that axis's size).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> [p.shape for p in lax.split(np.zeros((5, 2)), (2, 3))]
    [(2, 2), (3, 2)]
    """
    x = _array(operand)
    axis = _axis("split", axis, x.ndim)
    sizes = [int(s) for s in sizes]
    if any(s < 0 for s in sizes) or sum(sizes) != x.shape[axis]:
        raise ShapeError(
            f"split: sizes {tuple(sizes)} must be non-negative and sum to {x.shape[axis]}, the "
            f"size of axis {axis} of {x.aval}"
        )
    pieces, start = [], 0
    for size in sizes:
        begin = [start if i == axis else 0 for i in range(x.ndim)]
        end = [start + size if i == axis else d for i, d in enumerate(x.shape)]
        pieces.append(slice_(x, begin, end))
        start += size
    return pieces


def tile(operand: Any, reps: Sequence[int]) -> TracedTensor:
    """`operand` repeated `reps[i]` times along each axis i (one rep per axis).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.tile(np.array([[1], [2]]), (1, 3))
    Array([[1, 1, 1],
           [2, 2, 2]], dtype=int64)
    """
    x = _array(operand)
    reps = tuple(int(r) for r in reps)
    if len(reps) != x.ndim or any(r < 0 for r in reps):
        raise ShapeError(f"tile: reps {reps} must be one non-negative int per axis of {x.aval}")
    spread = [v for pair in zip(reps, x.shape) for v in pair]
    tiled = broadcast_in_dim(x, spread, tuple(range(1, 2 * x.ndim, 2)))
    return reshape(tiled, [r * d for r, d in zip(reps, x.shape)])


def batch_matmul(lhs: Any, rhs: Any, precision: Any = None) -> TracedTensor:
    """Matrix products over the leading (batch) axes: (..., m, k) @ (..., k, n).
    `precision` is accepted and ignored (see `tf8.lax.Precision`).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.batch_matmul(np.ones((2, 1, 3)), np.ones((2, 3, 4))).shape
    (2, 1, 4)
    """
    x, y = _array(lhs), _array(rhs)
    if min(x.ndim, y.ndim) < 2 or x.ndim != y.ndim:
        raise ShapeError(
            f"batch_matmul: needs operands of one rank >= 2, got {x.aval} and {y.aval}"
        )
    batch = tuple(range(x.ndim - 2))
    return dot_general(x, y, (((x.ndim - 1,), (y.ndim - 2,)), (batch, batch)), precision)


__all__ = [
    "batch_matmul",
    "broadcast_like",
    "broadcast_shapes",
    "broadcast_to_rank",
    "collapse",
    "dtype",
    "empty",
    "full",
    "full_like",
    "split",
    "stack",
    "tile",
    "unstack",
]
