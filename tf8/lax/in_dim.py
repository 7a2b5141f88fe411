"""JAX's one-axis slicing helpers (`slice_in_dim`, `index_in_dim`,
`dynamic_update_index_in_dim`), `index_take`, and `select_n`, on tf8's primitives.

Static indices are Python ints (negative ones count from the end); traced ones go through
`dynamic_update_slice`, clamped into range as in JAX.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import AxisError, DTypeError, ParameterError, ShapeError
from tf8.lax.builders import full
from tf8.lax.core import apply1
from tf8.lax.ops import (
    _array,
    _operands,
    concatenate,
    convert_element_type,
    dynamic_update_slice,
    lt,
    max,
    reshape,
    select,
)
from tf8.lax.ops import slice as slice_
from tf8.ops import dtypes as dt
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor


def _axis(name: str, axis: Any, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise AxisError(f"{name}: axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise AxisError(f"{name}: axis {axis} is out of range for rank {ndim}")
    return int(axis) % ndim


def slice_in_dim(
    operand: Any,
    start_index: int | None,
    limit_index: int | None,
    stride: int = 1,
    axis: int = 0,
) -> TracedTensor:
    """`operand[start_index:limit_index:stride]` along `axis` (None: the axis's ends;
    negative indices count from its end), the other axes whole.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.slice_in_dim(np.arange(6), 1, -1, stride=2)
    Array([1, 3], dtype=int64)
    """
    x = _array(operand)
    axis = _axis("slice_in_dim", axis, x.ndim)
    size = x.shape[axis]
    start = 0 if start_index is None else int(start_index)
    limit = size if limit_index is None else int(limit_index)
    start, limit = start + size if start < 0 else start, limit + size if limit < 0 else limit
    starts = [start if i == axis else 0 for i in range(x.ndim)]
    limits = [limit if i == axis else d for i, d in enumerate(x.shape)]
    strides = [int(stride) if i == axis else 1 for i in range(x.ndim)]
    return slice_(x, starts, limits, strides)


def index_in_dim(operand: Any, index: int, axis: int = 0, keepdims: bool = True) -> TracedTensor:
    """The entry `index` (a Python int, negative from the end) along `axis`, that axis kept
    with size 1 (`keepdims`) or dropped.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.index_in_dim(np.arange(12).reshape(3, 4), 1, axis=1, keepdims=False)
    Array([1, 5, 9], dtype=int64)
    """
    x = _array(operand)
    axis = _axis("index_in_dim", axis, x.ndim)
    size = x.shape[axis]
    wrapped = int(index) + size if int(index) < 0 else int(index)
    if not 0 <= wrapped < size:
        raise ShapeError(f"index_in_dim: index {index} is out of range for axis {axis} of {x.aval}")
    out = slice_in_dim(x, wrapped, wrapped + 1, 1, axis)
    return out if keepdims else reshape(out, [d for i, d in enumerate(x.shape) if i != axis])


def dynamic_update_index_in_dim(
    operand: Any, update: Any, index: Any, axis: int, *, allow_negative_indices: bool = True
) -> TracedTensor:
    """`operand` with the slice at (traced) `index` along `axis` replaced by `update` (of
    operand's rank, that axis 1, or of one rank less). The index is clamped into range; a
    negative one counts from the end, or with `allow_negative_indices=False` clamps to 0
    (what XLA does with it).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.dynamic_update_index_in_dim(np.zeros(4), 1.0, 2, axis=0)
    Array([0., 0., 1., 0.], dtype=float64)
    """
    x, u = _array(operand), _array(update)
    axis = _axis("dynamic_update_index_in_dim", axis, x.ndim)
    if u.ndim + 1 == x.ndim:
        u = reshape(u, [*u.shape[:axis], 1, *u.shape[axis:]])
    if u.ndim != x.ndim:
        raise ShapeError(
            f"dynamic_update_index_in_dim: update {u.aval} must have the rank of operand "
            f"{x.aval} or one less"
        )
    i = _array(index)
    if not allow_negative_indices and i.dtype.kind == "i":
        i = max(i, 0)
    return dynamic_update_slice(x, u, [i if k == axis else 0 for k in range(x.ndim)])


def index_take(src: Any, idxs: Sequence[Any], axes: Sequence[int]) -> TracedTensor:
    """`src` at the index vectors `idxs` (one 1-d integer array per axis of `axes`): result
    row n is `src` at `idxs[k][n]` along `axes[k]`, the other axes whole. Indices wrap
    (modulo the axis size, negative ones too), as JAX's.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.index_take(np.arange(12).reshape(3, 4), [np.array([2, -1])], (0,))
    Array([[ 8,  9, 10, 11],
           [ 8,  9, 10, 11]], dtype=int64)
    """
    x = _array(src)
    axes = tuple(int(a) for a in axes)
    columns = [_array(i) for i in idxs]
    if len(columns) != len(axes) or not columns:
        raise ParameterError(
            f"index_take: needs one index array per axis, got {len(columns)} arrays for axes {axes}"
        )
    if any(not 0 <= a < x.ndim for a in axes) or len(set(axes)) != len(axes):
        raise AxisError(f"index_take: axes {axes} must be distinct axes of {x.aval}")
    for i in columns:
        if i.ndim != 1 or i.shape != columns[0].shape or not dt.is_integer(i.dtype):
            raise DTypeError(
                "index_take: idxs must be 1-d integer arrays of one length, got "
                + ", ".join(str(c.aval) for c in columns)
            )
    vectors = [reshape(convert_element_type(i, dt.int64), (*i.shape, 1)) for i in columns]
    indices = vectors[0] if len(vectors) == 1 else concatenate(vectors, 1)
    sizes = np.array([x.shape[a] for a in axes], np.int64)
    indices = apply1("rem", [indices, _array(np.broadcast_to(sizes, indices.shape).copy())])
    slice_sizes = tuple(1 if a in axes else d for a, d in enumerate(x.shape))
    return apply1(
        "gather",
        [x, indices],
        offset_dims=tuple(range(1, x.ndim - len(axes) + 1)),
        collapsed_slice_dims=tuple(sorted(axes)),
        start_index_map=axes,
        slice_sizes=slice_sizes,
    )


def select_n(which: Any, *cases: Any) -> TracedTensor:
    """`cases[which]`, elementwise: a bool `which` picks `cases[1]` where True (two cases at
    most), an integer one the case of its value (out of range: the first or last, as XLA's
    binary tree of comparisons gives). `which` is a scalar or of the cases' shape; the cases
    share one shape and dtype. Linear in the cases.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.select_n(np.array([0, 2, 1], np.int32), np.zeros(3), np.ones(3), np.full(3, 2.0))
    Array([0., 2., 1.], dtype=float64)
    """
    if not cases:
        raise ParameterError("select_n: needs at least one case")
    picked = _array(which)
    arrays = [_array(c) for c in cases]
    if len({c.shape for c in arrays}) != 1:
        raise ShapeError(
            "select_n: the cases must share one shape, got "
            + ", ".join(str(c.aval) for c in arrays)
        )
    arrays = _operands(*arrays) if len(arrays) > 1 else arrays
    if len({c.dtype for c in arrays}) != 1:
        raise DTypeError(
            "select_n: the cases must share one dtype, got "
            + ", ".join(str(c.aval) for c in arrays)
        )
    if picked.ndim and picked.shape != arrays[0].shape:
        raise ShapeError(
            f"select_n: which {picked.aval} must be a scalar or of the cases' shape "
            f"{arrays[0].aval}"
        )
    if picked.dtype == dt.bool_:
        if len(arrays) > 2:
            raise DTypeError(f"select_n: a bool which picks among 2 cases, got {len(arrays)}")
    elif not dt.is_integer(picked.dtype):
        raise DTypeError(f"select_n: which must be bool or an integer, got {picked.aval}")
    if len(arrays) == 1:
        return arrays[0]
    if picked.dtype == dt.bool_:
        return select(picked, arrays[1], arrays[0])

    def tree(offset: int, group: list[TracedTensor]) -> TracedTensor:
        if len(group) == 1:
            return group[0]
        mid = len(group) // 2
        below = lt(picked, full(Aval((), picked.dtype), offset + mid))
        return select(below, tree(offset, group[:mid]), tree(offset + mid, group[mid:]))

    return tree(0, arrays)


__all__ = [
    "dynamic_update_index_in_dim",
    "index_in_dim",
    "index_take",
    "select_n",
    "slice_in_dim",
]
