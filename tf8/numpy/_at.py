"""`x.at[index].set(v)` / `.add(v)` / `.multiply(v)` / ... / `.get()`: JAX's functional updates.

Every update works on the flattened array: the index selects *positions* (the flat offsets
numpy's `x[index]` would read), computed in numpy at trace time when the shape is static and
the index constant, else traced (an iota indexed like `x`). `add` is one `scatter_add`
(repeated positions accumulate, as `np.add.at`); the others gather the old values, combine,
and write back through a scatter + select. With constant indices repeated positions follow
numpy (`set`: the last write wins; `multiply` etc.: applied once per occurrence, in rounds);
with traced indices `set`, `multiply`, `min` and `max` are one scatter row each (`scatter`:
the last write wins; the others combine every occurrence, as JAX's), and for `divide` and
`power` the result for repeated positions is unspecified.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import IndexingError, UnsupportedOperationError
from tf8.lax.core import apply1
from tf8.ops import dtypes as dt
from tf8.ops.gather import take_params, take_transpose_params
from tf8.traced import TracedTensor

from . import _arithmetic as arithmetic
from . import _at_modes as modes
from ._core import asarray, astype, broadcast_to, constant, full_of
from ._indexing import expand_ellipsis, getitem, is_int_index
from ._logic import where
from ._shape import ravel, reshape
from ._slicing import clamp_slice, index_slice

Combine = Callable[[TracedTensor, TracedTensor], TracedTensor]


def _is_constant_index(index: Any) -> bool:
    stack = [index]
    while stack:
        item = stack.pop()
        if isinstance(item, TracedTensor):
            return False
        if isinstance(item, (list, tuple)):
            stack.extend(item)
    return True


def _positions(x: TracedTensor, index: Any) -> np.ndarray | TracedTensor:
    """The flat offsets `x[index]` reads: a numpy array when known at trace time."""
    static = all(isinstance(d, int) for d in x.shape)
    if static and _is_constant_index(index):
        grid = np.arange(int(np.prod(x.shape, dtype=np.int64)), dtype=np.int64).reshape(x.shape)
        try:
            return np.asarray(grid[index])
        except IndexError as exc:
            raise IndexingError(f"{exc} (in .at[] of {x.aval})") from None
    flat = apply1("iota", [], shape=(x.size,), dtype=dt.int64, dimension=0)
    return getitem(reshape(flat, x.shape), index)


def _column(pos: np.ndarray | TracedTensor) -> TracedTensor:
    """Positions as the (m, 1) int64 index array gather/scatter_add take."""
    if isinstance(pos, np.ndarray):
        return constant(pos.reshape(-1, 1).astype(np.int64))
    return reshape(ravel(pos), (pos.size, 1))


def _gather(flat: TracedTensor, column: TracedTensor) -> TracedTensor:
    return apply1("gather", [flat, column], **take_params(flat.shape, 0, 1))


def _scatter_add(flat: TracedTensor, column: TracedTensor, values: TracedTensor) -> TracedTensor:
    return apply1("scatter_add", [flat, column, values], **take_transpose_params(flat.shape, 0, 1))


def _scatter_set(flat: TracedTensor, column: TracedTensor, values: TracedTensor) -> TracedTensor:
    """`flat` with `values` written at `column` (distinct positions): scatter + select."""
    zeros = full_of(0, flat.shape, flat.dtype)
    hit = _scatter_add(
        full_of(False, flat.shape, dt.bool_), column, full_of(True, values.shape, dt.bool_)
    )
    return where(hit, _scatter_add(zeros, column, values), flat)


def set_flat(flat: TracedTensor, pos: np.ndarray | TracedTensor, values: TracedTensor) -> Any:
    """`flat` (1-D) with `values` (1-D, one per position) written at the int positions `pos`;
    positions outside [0, flat.size) are dropped (scatter_add drops them). Constant positions
    repeated: the last write wins, as numpy's; traced ones repeated: unspecified, as JAX's."""
    if isinstance(pos, np.ndarray):
        pos = pos.reshape(-1)
        keep = (pos >= 0) & (pos < flat.shape[0])
        last = _last_writes(np.where(keep, pos, -1 - np.arange(pos.size)))
        last = last[keep[last]]
        if last.size != pos.size:
            values = _gather(values, constant(last.reshape(-1, 1)))
        return _scatter_set(flat, _column(pos[last]), values)
    return _scatter_set(flat, _column(pos), values)


def _rounds(pos: np.ndarray) -> list[np.ndarray]:
    """Split update numbers into rounds of distinct positions, in order of occurrence."""
    flat = pos.reshape(-1)
    seen: dict[int, int] = {}
    occurrence = np.empty(flat.size, dtype=np.int64)
    for j, p in enumerate(flat.tolist()):
        occurrence[j] = seen.get(p, 0)
        seen[p] = occurrence[j] + 1
    return [np.nonzero(occurrence == r)[0] for r in range(int(occurrence.max(initial=-1)) + 1)]


def _last_writes(pos: np.ndarray) -> np.ndarray:
    """Update numbers that are the last write to their position (numpy's `x[i] = v`)."""
    flat = pos.reshape(-1)
    _, first_from_end = np.unique(flat[::-1], return_index=True)
    return np.sort(flat.size - 1 - first_from_end)


def _window(x: TracedTensor, index: Any) -> tuple[list[int], list[int]] | None:
    """Starts and sizes when `index` picks one contiguous block of a static array."""
    items = list(index) if isinstance(index, tuple) else [index]
    basic = all(i is Ellipsis or isinstance(i, slice) or is_int_index(i) for i in items)
    if not basic or not all(isinstance(d, int) for d in x.shape):
        return None
    starts, sizes = [], []
    for axis, item in enumerate(expand_ellipsis(items, x.ndim)):
        if isinstance(item, slice):
            s = clamp_slice(item, x.shape[axis])
            if s.step != 1 or s.flip:
                return None
        else:
            s = index_slice(int(item), x.shape[axis], axis)
        starts.append(int(s.start))
        sizes.append(int(s.limit) - int(s.start))
    return starts, sizes


def _update_window(
    x: TracedTensor, index: Any, v: TracedTensor, combine: Combine | None, name: str
) -> TracedTensor:
    """A block update as one dynamic_update_slice (no scatter over the whole array)."""
    starts, sizes = _window(x, index)  # type: ignore[misc]
    block = reshape(broadcast_to(v, getitem(x, index).shape), tuple(sizes))
    if name == "add":
        block = arithmetic.add(getitem(x, index).reshape(tuple(sizes)), block)
    elif combine is not None:
        block = combine(getitem(x, index).reshape(tuple(sizes)), block)
    offsets = [constant(np.int64(s)) for s in starts]
    return apply1("dynamic_update_slice", [x, block, *offsets])


def update(
    x: Any, index: Any, values: Any, combine: Combine | None, name: str, unique: bool = False
) -> TracedTensor:
    """`x` with `x[index]` replaced by `values` (combine None) or by `combine(old, values)`;
    `unique` is JAX's `unique_indices` promise."""
    x = asarray(x)
    if _window(x, index) is not None:
        v = astype(asarray(values), x.dtype)
        return _update_window(x, index, v, combine, name)
    pos = _positions(x, index)
    v = astype(asarray(values), x.dtype)  # JAX casts the updates to the array's dtype
    try:
        v = ravel(broadcast_to(v, pos.shape))
    except ValueError as exc:
        raise type(exc)(f".at[].{name}: {exc}") from None
    flat = ravel(x)
    if name == "add":
        out = _scatter_add(flat, _column(pos), v)
    elif isinstance(pos, np.ndarray):
        out = flat
        groups = [_last_writes(pos)] if combine is None else _rounds(pos)
        everything = pos.size
        for group in groups:
            picked = v if group.size == everything else _gather(v, constant(group.reshape(-1, 1)))
            column = _column(pos.reshape(-1)[group])
            new = picked if combine is None else combine(_gather(out, column), picked)
            out = _scatter_set(out, column, new)
    elif name in _ROWS:  # one scatter row: repeated traced positions combine as in JAX
        params = take_transpose_params(flat.shape, 0, 1)
        if _ROWS[name] in ("scatter", "scatter_mul"):
            params["unique_indices"] = unique
        out = apply1(_ROWS[name], [flat, _column(pos), v], **params)
    else:
        column = _column(pos)
        new = v if combine is None else combine(_gather(flat, column), v)
        out = _scatter_set(flat, column, new)
    return reshape(out, x.shape)


# The scatter rows of the updates, for traced positions
_ROWS = {"set": "scatter", "multiply": "scatter_mul", "min": "scatter_min", "max": "scatter_max"}


_KEYWORDS = ("indices_are_sorted", "unique_indices", "mode", "fill_value")


class AtRef:
    """`x.at[index]`: the pending location of a functional update."""

    __slots__ = ("_x", "_index")

    def __init__(self, x: TracedTensor, index: Any) -> None:
        self._x = x
        self._index = index

    def _apply(self, values: Any, combine: Combine | None, name: str, kw: dict) -> TracedTensor:
        unknown = set(kw) - set(_KEYWORDS)
        if unknown:
            raise UnsupportedOperationError(f".at[].{name}: unknown arguments {sorted(unknown)}")
        mode = modes.mode_name(kw.get("mode"), f".at[].{name}")
        x = asarray(self._x)
        # JAX drops out-of-bounds updates by default ('drop'/'fill'); 'clip' clamps the index
        clamp = mode in ("clip", "promise_in_bounds")
        padded_x, index, padded = modes.bounded(x, self._index, clamp, 0)
        out = update(padded_x, index, values, combine, name, bool(kw.get("unique_indices")))
        return modes.trim(out, padded, x.shape)

    def get(self, **kw: Any) -> TracedTensor:
        """x[index]: out of bounds, clamped by default, `fill_value` with mode='fill'."""
        unknown = set(kw) - set(_KEYWORDS)
        if unknown:
            raise UnsupportedOperationError(f".at[].get: unknown arguments {sorted(unknown)}")
        mode = modes.mode_name(kw.get("mode"), ".at[].get")
        if mode not in ("fill", "drop"):
            return getitem(self._x, self._index)
        x = asarray(self._x)
        fill = kw.get("fill_value")
        fill = modes.default_fill(x.dtype) if fill is None else fill
        padded_x, index, _ = modes.bounded(x, self._index, False, fill)
        return getitem(padded_x, index)

    def set(self, values: Any, **kw: Any) -> TracedTensor:
        """A copy with x[index] = values."""
        return self._apply(values, None, "set", kw)

    def add(self, values: Any, **kw: Any) -> TracedTensor:
        """A copy with x[index] += values (repeated indices accumulate)."""
        return self._apply(values, None, "add", kw)

    def subtract(self, values: Any, **kw: Any) -> TracedTensor:
        """A copy with x[index] -= values."""
        return self._apply(arithmetic.negative(asarray(values)), None, "add", kw)

    def multiply(self, values: Any, **kw: Any) -> TracedTensor:
        """A copy with x[index] *= values."""
        return self._apply(values, arithmetic.multiply, "multiply", kw)

    mul = multiply

    def divide(self, values: Any, **kw: Any) -> TracedTensor:
        """A copy with x[index] /= values (in x's dtype)."""
        return self._apply(values, _in_dtype(arithmetic.true_divide), "divide", kw)

    def power(self, values: Any, **kw: Any) -> TracedTensor:
        """A copy with x[index] **= values."""
        return self._apply(values, arithmetic.power, "power", kw)

    def min(self, values: Any, **kw: Any) -> TracedTensor:
        """A copy with x[index] = minimum(x[index], values)."""
        return self._apply(values, arithmetic.minimum, "min", kw)

    def max(self, values: Any, **kw: Any) -> TracedTensor:
        """A copy with x[index] = maximum(x[index], values)."""
        return self._apply(values, arithmetic.maximum, "max", kw)


def _in_dtype(fn: Combine) -> Combine:
    return lambda old, new: astype(fn(old, new), old.dtype)


class AtIndexer:
    """`x.at`: index it to get an `AtRef`."""

    __slots__ = ("_x",)

    def __init__(self, x: TracedTensor) -> None:
        self._x = x

    def __getitem__(self, index: Any) -> AtRef:
        return AtRef(self._x, index)
