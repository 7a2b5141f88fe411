"""JAX's public descriptions of a gather or a scatter: `GatherDimensionNumbers`,
`ScatterDimensionNumbers` and `GatherScatterMode`, with the checks and rewrites the `lax`
functions share (`tf8.lax.gather_api`, `tf8.lax.scatter`).

tf8's `gather` and scatter rows have no operand batching dimensions: a pair of batching
dimensions (operand axis `a`, indices axis `b`) is rewritten as one more index column, the
position along `b` (an `iota`), mapped to `a`, which is then collapsed (gather) or inserted
(scatter). That selects, for each index position, its own slice of `a`, as JAX's batching
dimensions do, and it is exact under every mode (the column is always in range).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.lax.core import apply1
from tf8.ops import dtypes as dt
from tf8.ops.shapes import shape_str
from tf8.traced import TracedTensor

__all__ = [
    "GatherDimensionNumbers",
    "GatherScatterMode",
    "ScatterDimensionNumbers",
    "fold_batching_dims",
    "gather_numbers",
    "scatter_numbers",
]


class GatherDimensionNumbers(NamedTuple):
    """How `lax.gather`'s operand, start indices and output axes relate (JAX's, field for
    field; the index vector is always the last axis of the start indices).

    Args:
      offset_dims: output axes (ascending) that hold the slice axes not collapsed.
      collapsed_slice_dims: operand axes (ascending) of slice size 1 left out of the output.
      start_index_map: for each entry of an index vector, the operand axis it starts.
      operand_batching_dims: operand axes (ascending, slice size 1) paired with
        `start_indices_batching_dims`: each index position reads its own slice of them.
      start_indices_batching_dims: the start indices' axes paired with those.

    >>> GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), \
operand_batching_dims=(), start_indices_batching_dims=())
    """

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How a scatter's operand, indices and updates axes relate (JAX's, field for field; the
    index vector is always the last axis of the indices).

    Args:
      update_window_dims: updates axes (ascending) that run over a window of the operand.
      inserted_window_dims: operand axes (ascending) of window size 1 the updates leave out.
      scatter_dims_to_operand_dims: for each entry of an index vector, the operand axis it
        starts.
      operand_batching_dims: operand axes (ascending) paired with
        `scatter_indices_batching_dims`: each index position writes its own slice of them.
      scatter_indices_batching_dims: the indices' axes paired with those.

    >>> ScatterDimensionNumbers((), (0,), (0,)).inserted_window_dims
    (0,)
    """

    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    operand_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


class GatherScatterMode(enum.Enum):
    """What a gather or scatter does with an index whose window leaves the operand (JAX's).

    - CLIP: the start is clamped so that the whole window lies inside.
    - FILL_OR_DROP: a gather returns `fill_value` for the whole window; a scatter drops it.
    - PROMISE_IN_BOUNDS: the caller promises indices in range; tf8 (as XLA on CPU) then
      clamps a gather and drops a scatter's window. Derivatives assume the promise.
    - ONE_HOT: accepted by `from_any`; `lax.gather` and the scatters refuse it, as JAX's
      cannot lower it either (jax.numpy indexing uses it).

    >>> GatherScatterMode.from_any("drop")
    <GatherScatterMode.FILL_OR_DROP: 2>
    >>> GatherScatterMode.from_any(None)  # a scatter's default; lax.gather's is PROMISE_IN_BOUNDS
    <GatherScatterMode.FILL_OR_DROP: 2>
    """

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()
    ONE_HOT = enum.auto()

    @staticmethod
    def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
        """The mode named by `s`: a mode, 'clip', 'fill' or 'drop' (or None: FILL_OR_DROP),
        'promise_in_bounds' or 'one_hot'; ParameterError otherwise."""
        if isinstance(s, GatherScatterMode):
            return s
        found = _MODE_NAMES.get(s) if isinstance(s, str) or s is None else None
        if found is None:
            raise ParameterError(
                f"unknown gather/scatter mode {s!r} (use a GatherScatterMode or one of "
                "'clip', 'fill', 'drop', 'promise_in_bounds', 'one_hot')"
            )
        return found


_MODE_NAMES = {
    None: GatherScatterMode.FILL_OR_DROP,
    "clip": GatherScatterMode.CLIP,
    "fill": GatherScatterMode.FILL_OR_DROP,
    "drop": GatherScatterMode.FILL_OR_DROP,
    "promise_in_bounds": GatherScatterMode.PROMISE_IN_BOUNDS,
    "one_hot": GatherScatterMode.ONE_HOT,
}


def parse_mode(mode: Any, default: GatherScatterMode, fn: str) -> GatherScatterMode:
    """`mode` (None: `default`) as a mode `fn` runs; ONE_HOT is refused, as JAX's lax does."""
    parsed = default if mode is None else GatherScatterMode.from_any(mode)
    if parsed is GatherScatterMode.ONE_HOT:
        raise ParameterError(
            f"{fn}: mode ONE_HOT is for jax.numpy indexing; lax.{fn} takes CLIP, FILL_OR_DROP "
            "or PROMISE_IN_BOUNDS (JAX's lax cannot lower ONE_HOT either)"
        )
    return parsed


def _axes(value: Any, field: str, fn: str) -> tuple[int, ...]:
    """A dimension-number field as a tuple of Python ints."""
    try:
        items = tuple(value)
    except TypeError:
        items = None
    if items is None or any(
        isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in items
    ):
        raise ParameterError(
            f"{fn}: dimension_numbers.{field} must be a sequence of ints, got {value!r}"
        )
    return tuple(int(v) for v in items)


def _numbers(dimension_numbers: Any, kind: type, fn: str) -> Any:
    if not isinstance(dimension_numbers, kind):
        if not isinstance(dimension_numbers, tuple) or not 3 <= len(dimension_numbers) <= 5:
            raise ParameterError(
                f"{fn}: dimension_numbers must be a {kind.__name__}, got {dimension_numbers!r}"
            )
        dimension_numbers = kind(*dimension_numbers)
    return kind(*(_axes(v, f, fn) for f, v in zip(kind._fields, dimension_numbers)))


def gather_numbers(dimension_numbers: Any, fn: str = "gather") -> GatherDimensionNumbers:
    """`dimension_numbers` (a GatherDimensionNumbers, or a tuple of its fields) with every
    field a tuple of ints."""
    return _numbers(dimension_numbers, GatherDimensionNumbers, fn)


def scatter_numbers(dimension_numbers: Any, fn: str) -> ScatterDimensionNumbers:
    """`dimension_numbers` (a ScatterDimensionNumbers, or a tuple of its fields) with every
    field a tuple of ints."""
    return _numbers(dimension_numbers, ScatterDimensionNumbers, fn)


def check_indices(indices: TracedTensor, fn: str, name: str) -> None:
    """Integer indices with an index vector axis (their last)."""
    if indices.dtype not in dt.INTEGERS:
        raise DTypeError(f"{fn}: {name} must have an integer dtype, got {indices.aval}")
    if indices.ndim == 0:
        raise ShapeError(
            f"{fn}: {name} need an index vector axis (their last), got a scalar; "
            "add a trailing axis of size 1"
        )


def fold_batching_dims(
    operand: TracedTensor,
    indices: TracedTensor,
    operand_dims: tuple[int, ...],
    index_dims: tuple[int, ...],
    excluded: dict[str, tuple[int, ...]],
    fn: str,
) -> TracedTensor:
    """`indices` with one more index column per batching pair: the position along each of
    `index_dims` (see the module's docstring). Checks the pairs as JAX does; `excluded`
    names the operand-axis fields the operand batching dims must not meet."""
    names = (
        "operand_batching_dims",
        f"{'start' if fn == 'gather' else 'scatter'}_indices_batching_dims",
    )
    where = f"operand {operand.aval}, indices {indices.aval}"
    if len(operand_dims) != len(index_dims):
        raise ShapeError(
            f"{fn}: {names[0]} {operand_dims} and {names[1]} {index_dims} must pair up "
            f"(equal lengths); {where}"
        )
    if list(operand_dims) != sorted(set(operand_dims)):
        raise ShapeError(f"{fn}: {names[0]} {operand_dims} must be ascending and distinct")
    if any(not 0 <= a < operand.ndim for a in operand_dims):
        raise ShapeError(f"{fn}: {names[0]} {operand_dims} out of range for {where}")
    if len(set(index_dims)) != len(index_dims) or any(
        not 0 <= b < indices.ndim - 1 for b in index_dims
    ):
        raise ShapeError(
            f"{fn}: {names[1]} {index_dims} must be distinct axes of the indices other than "
            f"the index vector (the last); {where}"
        )
    for field, axes in excluded.items():
        if set(axes) & set(operand_dims):
            raise ShapeError(f"{fn}: {field} {axes} and {names[0]} {operand_dims} overlap")
    for a, b in zip(operand_dims, index_dims):
        if operand.shape[a] != indices.shape[b]:
            raise ShapeError(
                f"{fn}: operand batching axis {a} and indices batching axis {b} differ in "
                f"size: operand {shape_str(operand.shape)}, indices {shape_str(indices.shape)}"
            )
    if not operand_dims:
        return indices
    column = (*indices.shape[:-1], 1)
    counters = [
        apply1("iota", [], shape=column, dtype=indices.dtype, dimension=b) for b in index_dims
    ]
    return apply1("concatenate", [indices, *counters], axis=indices.ndim - 1)
