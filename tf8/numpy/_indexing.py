"""`x[index]`: numpy's basic indexing (ints, slices, None, ...) and advanced indexing.

Basic indexing lowers to reverse/slice/reshape; integer-array indices (lists, numpy arrays,
int TracedTensors) lower to one `gather` with numpy's placement rule for the broadcast index
axes (where the advanced indices were when they are adjacent, first otherwise). Constant
indices are bounds-checked at trace time as numpy does; traced ones wrap negatives and are
clamped into range at run time (JAX's rule). Boolean masks have a data-dependent shape: a
concrete one (a numpy array, a list, or a traced mask whose value is known) becomes integer
indices; one unknown under jit is a ConcretizationError.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tf8.errors import DTypeError, IndexingError, ParameterError, UnsupportedOperationError
from tf8.lax.core import apply1, concrete, eager_untaped
from tf8.ops import dtypes as dt
from tf8.ops import switches
from tf8.ops.gather import take_params
from tf8.ops.primitive import aval_of
from tf8.ops.shapes import Dim, shape_str
from tf8.traced import TracedTensor

from ._arithmetic import add, clip, remainder
from ._core import (
    _contains_traced,
    asarray,
    broadcast_shapes,
    broadcast_to,
    constant,
    normalize_axis,
    shape_of,
)
from ._logic import greater_equal, less, logical_and, where
from ._nonzero import mask_indices
from ._shape import concatenate, ravel, reshape
from ._slicing import AxisSlice, apply_slices, clamp_slice, index_slice


def is_int_index(item: Any) -> bool:
    return isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


def _is_basic(item: Any) -> bool:
    return item is None or item is Ellipsis or isinstance(item, slice) or is_int_index(item)


def _items(index: Any) -> list[Any]:
    items = list(index) if isinstance(index, tuple) else [index]
    expanded: list[Any] = []
    for item in items:
        if isinstance(item, (bool, np.bool_)):
            raise UnsupportedOperationError(
                f"indexing with the bool scalar {item!r} is not supported (numpy reads it as a "
                "0-d mask); use expand_dims / where instead"
            )
        if isinstance(item, TracedTensor) and item.dtype == dt.bool_:
            expanded.extend(mask_indices(item))  # concrete masks only: shape depends on data
            continue
        if isinstance(item, (list, tuple)) and _contains_traced(item):
            item = asarray(item)
        if not _is_basic(item) and not isinstance(item, TracedTensor):
            array = np.asarray(item)
            if array.size == 0 and array.dtype.kind == "f":
                array = array.astype(np.int64)  # numpy reads `x[[]]` as an empty int index
            if array.dtype == np.bool_:
                expanded.extend(np.nonzero(array))  # a constant mask: numpy's integer indices
                continue
            if array.dtype.kind not in "iu":
                raise IndexingError(
                    "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean "
                    f"arrays are valid indices, got {type(item).__name__} of dtype {array.dtype}"
                )
            item = array
        expanded.append(item)
    return expanded


def expand_ellipsis(items: list[Any], ndim: int) -> list[Any]:
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexingError("an index can only have a single ellipsis ('...')")
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    if used > ndim:
        raise IndexingError(
            f"too many indices for array: array is {ndim}-dimensional, but {used} were indexed"
        )
    out = list(items)
    at = next((k for k, i in enumerate(out) if i is Ellipsis), None)
    if at is not None:
        out[at : at + 1] = [slice(None)] * (ndim - used)
    else:
        out += [slice(None)] * (ndim - used)
    return out


def getitem(x: Any, index: Any) -> TracedTensor:
    """numpy's `x[index]` on a traced value."""
    if (
        type(x) is TracedTensor
        and x._value is not None
        and _numpy_basic(index, x.aval.shape)
        and eager_untaped(x)
    ):  # op by op, ints and slices index as numpy's (a view; read-only when it leaves tf8)
        value = np.asarray(x._value[index])
        out = concrete(value, aval_of(value.shape, value.dtype))
        out._weak = x._weak
        return out
    x = asarray(x)
    items = _items(index)
    if all(_is_basic(i) for i in items):
        return _basic(x, expand_ellipsis(items, x.ndim))
    return _advanced(x, items)


def _numpy_basic(index: Any, shape: tuple) -> bool:
    """An index of in-range ints and slices of ints (as many as the axes at most): numpy's
    basic indexing then gives what `_basic` computes (clamped slices, negative steps)."""
    items = index if type(index) is tuple else (index,)
    if len(items) > len(shape):
        return False
    for item, size in zip(items, shape):
        if type(size) is not int:
            return False
        if type(item) is int:
            if not -size <= item < size:
                return False
        elif type(item) is slice:
            step = item.step
            if not (
                (item.start is None or type(item.start) is int)
                and (item.stop is None or type(item.stop) is int)
                and (step is None or (type(step) is int and step != 0))
            ):
                return False
        else:
            return False
    return True


def _basic(x: TracedTensor, items: list[Any]) -> TracedTensor:
    """Ints, slices and None: one reverse + one slice + one reshape at most."""
    slices: list[AxisSlice] = []
    shape: list[Dim] = []
    for item in items:
        if item is None:
            shape.append(1)
            continue
        axis = len(slices)
        if isinstance(item, slice):
            s = clamp_slice(item, x.shape[axis])
            shape.append(s.size)
        else:
            s = index_slice(int(item), x.shape[axis], axis)
        slices.append(s)
    return reshape(apply_slices(x, slices), tuple(shape))


def basic_getitem(x: TracedTensor, index: Any) -> TracedTensor:
    """x[index] for ints, slices, None and Ellipsis (numpy's basic indexing)."""
    return _basic(x, expand_ellipsis(_items(index), x.ndim))


def is_basic_index(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(_is_basic(i) for i in items)


@dataclass(frozen=True, slots=True)
class _Plan:
    """The slice part and the advanced part of a mixed index."""

    sliced: TracedTensor  # x with every slice applied (advanced axes kept whole)
    advanced_axes: tuple[int, ...]  # axes of `sliced` the integer arrays index
    indices: list[Any]  # one integer index per advanced axis (int, ndarray or TracedTensor)
    adjacent: bool  # numpy's rule: the advanced indices sit next to each other
    layout: list[str]  # per result item: "new" (None), "rest" (a sliced axis) or "adv"


def _plan(x: TracedTensor, items: list[Any]) -> _Plan:
    positions = [
        k for k, i in enumerate(items) if not (i is None or i is Ellipsis or isinstance(i, slice))
    ]
    adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
    expanded = expand_ellipsis(items, x.ndim)
    slices, advanced_axes, indices, layout = [], [], [], []
    for item in expanded:
        if item is None:
            layout.append("new")
            continue
        axis = len(slices)
        if isinstance(item, slice):
            slices.append(clamp_slice(item, x.shape[axis]))
            layout.append("rest")
        else:
            slices.append(AxisSlice(0, x.shape[axis], 1))
            advanced_axes.append(axis)
            indices.append(item)
            layout.append("adv")
    sliced = apply_slices(x, slices)
    return _Plan(sliced, tuple(advanced_axes), indices, adjacent, layout)


def _constant_index(index: Any, dim: Dim, axis: int, strict: bool) -> np.ndarray | None:
    """A constant index checked and wrapped as numpy does; None when it needs run time."""
    array = np.asarray(index, dtype=np.int64)
    if not isinstance(dim, int):
        return array if array.size == 0 or array.min() >= 0 else None
    if array.size and (array.min() < -dim or array.max() >= dim):
        if strict or dim == 0:
            bad = array[(array < -dim) | (array >= dim)].flat[0]
            raise IndexingError(f"index {bad} is out of bounds for axis {axis} with size {dim}")
        return np.clip(np.where(array < 0, array + dim, array), 0, dim - 1)  # as JAX clamps
    return np.where(array < 0, array + dim, array)


def traced_index(index: Any, x: TracedTensor, axis: int, strict: bool = False) -> TracedTensor:
    """An integer index for `axis` of `x` as int64, negatives wrapped (out of range: clamped)."""
    dim = x.shape[axis]
    if not isinstance(index, TracedTensor):
        fixed = _constant_index(index, dim, axis, strict or switches.strict_indexing)
        if fixed is not None:
            return constant(fixed)
    i = asarray(index)
    if i.dtype not in dt.INTEGERS:
        raise DTypeError(f"array indices must be integers, got {i.aval} for axis {axis}")
    i = i if i.dtype == dt.int64 else apply1("convert", [i], dtype=dt.int64)
    return where(less(i, 0), add(i, shape_of(x, axis)), i)


def _advanced(x: TracedTensor, items: list[Any]) -> TracedTensor:
    plan = _plan(x, items)
    y = _nonempty_along(plan.sliced, plan.advanced_axes)
    idx = [traced_index(i, y, a) for i, a in zip(plan.indices, plan.advanced_axes)]
    batch = broadcast_shapes(*[i.shape for i in idx])
    if len(idx) == 1 and plan.adjacent:
        (axis,) = plan.advanced_axes
        params = take_params(y.shape, axis, len(batch))
        out = apply1("gather", [y, reshape(idx[0], idx[0].shape + (1,))], **params)
    else:
        out = _gather_many(y, plan, idx, batch)
    final = []
    rest = iter(d for a, d in enumerate(y.shape) if a not in plan.advanced_axes)
    placed = False
    if not plan.adjacent:
        final.extend(batch)
        placed = True
    for kind in plan.layout:
        if kind == "new":
            final.append(1)
        elif kind == "rest":
            final.append(next(rest))
        elif not placed:
            final.extend(batch)
            placed = True
    return reshape(out, tuple(final))


def _nonempty_along(y: TracedTensor, axes: tuple[int, ...]) -> TracedTensor:
    """y with each empty indexed axis padded to one zero: gather cannot take a size-1 slice
    of a size-0 axis. Indices into an empty axis can only be empty (numpy checks constant
    ones), so the zero is never read; the pad is linear in y, so AD still works."""
    if not any(type(y.shape[a]) is int and y.shape[a] == 0 for a in axes):
        return y
    config = tuple((0, int(a in axes and y.shape[a] == 0), 0) for a in range(y.ndim))
    return apply1("pad", [y, constant(0, y.dtype)], config=config)


def _gather_many(
    y: TracedTensor, plan: _Plan, idx: list[TracedTensor], batch: tuple[Dim, ...]
) -> TracedTensor:
    """One gather for several integer arrays; the batch axes go where numpy puts them."""
    stacked = concatenate([reshape(broadcast_to(i, batch), batch + (1,)) for i in idx], axis=-1)
    axes = plan.advanced_axes
    rest = [a for a in range(y.ndim) if a not in axes]
    first = axes[0] if plan.adjacent else 0
    before = sum(1 for a in rest if a < first) if plan.adjacent else 0
    offset = tuple(range(before)) + tuple(range(before + len(batch), len(rest) + len(batch)))
    sizes = tuple(1 if a in axes else d for a, d in enumerate(y.shape))
    if len(set(axes)) != len(axes):
        raise IndexingError(f"internal: repeated advanced axes {axes} for {shape_str(y.shape)}")
    return apply1(
        "gather",
        [y, stacked],
        offset_dims=offset,
        collapsed_slice_dims=tuple(axes),
        start_index_map=tuple(axes),
        slice_sizes=sizes,
    )


def fill_default(dtype: Any) -> Any:
    """JAX's fill for out-of-bounds `take`: NaN (inexact), the most negative signed int, the
    largest unsigned int, True (bool)."""
    np_dtype = np.dtype(dtype)
    if np_dtype.kind in "fc":
        return np.nan
    if np_dtype.kind == "i":
        return np.iinfo(np_dtype).min
    if np_dtype.kind == "u":
        return np.iinfo(np_dtype).max
    return True


def _in_bounds(indices: Any, dim: Dim) -> bool:
    """Constant integer indices all inside [-dim, dim): nothing to fill."""
    if isinstance(indices, TracedTensor) or not isinstance(dim, int):
        return False
    array = np.asarray(indices)
    return array.dtype.kind in "iu" and (
        array.size == 0 or -dim <= array.min() <= array.max() < dim
    )


def take(
    a: Any,
    indices: Any,
    axis: int | None = None,
    out: Any = None,
    mode: str | None = None,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    fill_value: Any = None,
) -> TracedTensor:
    """numpy.take with jax.numpy's modes: None/'fill' (negatives wrapped once, out-of-bounds
    positions read `fill_value`: NaN, the extreme int or True by default), 'wrap' (modulo the
    size), 'clip' (into [0, n - 1]) or 'raise' (constant indices checked at trace time; JAX
    refuses 'raise'). `unique_indices` and `indices_are_sorted` are hints, ignored."""
    del unique_indices, indices_are_sorted
    if out is not None:
        raise UnsupportedOperationError("take: out= is not supported (traced values are immutable)")
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis(axis, x.ndim)
    if mode not in (None, "fill", "raise", "wrap", "clip"):
        raise ParameterError(f"take: invalid mode {mode!r} (use 'fill', 'clip', 'wrap' or 'raise')")
    if mode == "raise" or (mode is None and _in_bounds(indices, x.shape[axis])):
        i = traced_index(indices, x, axis, strict=mode == "raise")
        y = _nonempty_along(x, (axis,))
        out = apply1(
            "gather", [y, reshape(i, i.shape + (1,))], **take_params(y.shape, axis, i.ndim)
        )
        out._weak = x._weak
        return out
    i = asarray(indices)
    if i.dtype not in dt.INTEGERS:
        raise DTypeError(f"take: indices must be integers, got {i.aval}")
    n = x.shape[axis]
    if isinstance(n, int) and n == 0 and i.size != 0:
        raise IndexingError(f"take: indices {i.aval} read from the empty axis {axis} of {x.aval}")
    size = shape_of(x, axis)
    valid = None
    if mode == "wrap":
        i = remainder(i, size)
    elif mode == "clip":
        i = clip(i, 0, size - 1)
    else:
        i = where(less(i, 0), add(i, size), i)
        valid = logical_and(greater_equal(i, 0), less(i, size))
        i = clip(i, 0, size - 1)
    i = i if i.dtype == dt.int64 else apply1("convert", [i], dtype=dt.int64)
    y = _nonempty_along(x, (axis,))
    params = take_params(y.shape, axis, i.ndim)
    taken = apply1("gather", [y, reshape(i, i.shape + (1,))], **params)
    if valid is None:
        return taken
    fill = fill_default(x.dtype) if fill_value is None else fill_value
    mask = reshape(valid, (1,) * axis + valid.shape + (1,) * (x.ndim - axis - 1))
    filled = where(mask, taken, constant(np.asarray(fill).astype(x.dtype)))
    filled._weak = x._weak
    return filled
