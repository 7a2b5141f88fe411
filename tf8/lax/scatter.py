"""JAX's scatters: `lax.scatter`, `scatter_add`, `scatter_sub`, `scatter_mul`, `scatter_min`,
`scatter_max` and `scatter_apply`, with JAX's signatures, dimension numbers and modes.

Each is one scatter row (`tf8/ops/primitives/indexing.py` and `scatter.py`), which drops
every update window that does not fit whole (JAX's default, FILL_OR_DROP, and what XLA does
under PROMISE_IN_BOUNDS); mode CLIP clamps the indices first, as JAX lowers it.
`scatter_sub` is `scatter_add` of the negated updates (the same values and derivatives as
JAX's own row); `scatter_apply` is a select on how many times each element is hit.
Operand batching dimensions become index columns (`tf8.lax.dimension_numbers`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.errors import DTypeError, ShapeError, UnsupportedOperationError
from tf8.lax.builders import broadcast, full, neg, select
from tf8.lax.control import fori_loop
from tf8.lax.core import apply1
from tf8.lax.dimension_numbers import (
    GatherScatterMode,
    check_indices,
    fold_batching_dims,
    parse_mode,
    scatter_numbers,
)
from tf8.lax.ops import _array, gt
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.traced import TracedTensor

__all__ = [
    "scatter",
    "scatter_add",
    "scatter_apply",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "scatter_sub",
]

_ARGS = """
    Args:
      operand: the array to update (a copy is returned).
      scatter_indices: integer array whose last axis is the index vector (one start per
        entry of `dimension_numbers.scatter_dims_to_operand_dims`).
      updates: the values, of the operand's dtype: the axes not in `update_window_dims` run
        over the index positions, the others over each window.
      dimension_numbers: a `ScatterDimensionNumbers` (or a tuple of its fields).
      indices_are_sorted: a hint, accepted and not needed here.
      unique_indices: a promise that no two updates write one element (not checked).
      mode: out-of-bounds windows: None, 'fill', 'drop' or 'promise_in_bounds' drop the
        whole window; 'clip' clamps its start so that it fits.
"""


def _window(
    operand_shape: Sequence[Any], inserted: Sequence[int], window_dims: Sequence[int], updates: Any
) -> list[Any] | None:
    """Window size per operand axis (None when the dimension numbers do not add up: the row's
    shape rule then says why)."""
    framed = [d for d in range(len(operand_shape)) if d not in inserted]
    if len(framed) != len(window_dims) or any(not 0 <= a < updates.ndim for a in window_dims):
        return None
    window: list[Any] = [1] * len(operand_shape)
    for d, axis in zip(framed, window_dims):
        window[d] = updates.shape[axis]
    return window


def _clamped(
    indices: TracedTensor, x: TracedTensor, index_map: Sequence[int], window: Any, fn: str
) -> Any:
    """Indices clamped so that every window fits (mode CLIP), in the indices' dtype."""
    if window is None or any(not 0 <= d < x.ndim for d in index_map):
        return indices  # the row's shape rule says what is wrong
    limits = [x.shape[d] - window[d] for d in index_map]
    if not all(isinstance(v, (int, np.integer)) for v in limits):
        raise UnsupportedOperationError(
            f"{fn}: mode CLIP needs the operand's and the window's sizes along "
            f"scatter_dims_to_operand_dims {tuple(index_map)} known when traced, got operand "
            f"{x.aval} and windows {window}"
        )
    top = np.minimum(np.maximum(np.asarray(limits, np.int64), 0), np.iinfo(indices.dtype).max)
    vector = apply1("constant", [], value=top.astype(indices.dtype))
    upper = broadcast(vector, indices.shape, (indices.ndim - 1,))
    return apply1("clamp", [full(indices.aval, 0), indices, upper])


def scatter_with(
    row: str,
    fn: str,
    operand: Any,
    scatter_indices: Any,
    updates: Any,
    dimension_numbers: Any,
    unique_indices: bool,
    mode: Any,
) -> TracedTensor:
    """The scatter row `row` applied as `lax.<fn>` is: arguments checked, mode and batching
    dimensions rewritten."""
    x, indices, u = _array(operand), _array(scatter_indices), _array(updates)
    numbers = scatter_numbers(dimension_numbers, fn)
    parsed = parse_mode(mode, GatherScatterMode.FILL_OR_DROP, fn)
    check_indices(indices, fn, "scatter_indices")
    if x.dtype != u.dtype:
        raise DTypeError(
            f"{fn}: operand and updates must have one dtype (lax does not promote), got "
            f"operand {x.aval} and updates {u.aval}"
        )
    index_map = numbers.scatter_dims_to_operand_dims
    if len(index_map) != indices.shape[-1]:
        raise ShapeError(
            f"{fn}: scatter_dims_to_operand_dims {index_map} has {len(index_map)} entries but "
            f"the index vectors (last axis of scatter_indices {indices.aval}) have "
            f"{indices.shape[-1]}"
        )
    batching = numbers.operand_batching_dims
    inserted = tuple(sorted(numbers.inserted_window_dims + batching))
    if parsed is GatherScatterMode.CLIP:
        window = _window(x.shape, inserted, numbers.update_window_dims, u)
        indices = _clamped(indices, x, index_map, window, fn)
    folded = fold_batching_dims(
        x,
        indices,
        batching,
        numbers.scatter_indices_batching_dims,
        {
            "inserted_window_dims": numbers.inserted_window_dims,
            "scatter_dims_to_operand_dims": index_map,
        },
        fn,
    )
    inserted_given = numbers.inserted_window_dims
    if list(inserted_given) != sorted(inserted_given):
        raise ShapeError(f"{fn}: inserted_window_dims {inserted_given} must be sorted")
    params: dict[str, Any] = {
        "update_window_dims": numbers.update_window_dims,
        "inserted_window_dims": inserted,
        "scatter_dims_to_operand_dims": index_map + batching,
    }
    if row in ("scatter", "scatter_mul"):
        params["unique_indices"] = bool(unique_indices)
    try:
        return apply1(row, [x, folded, u], **params)
    except (ShapeError, DTypeError) as exc:  # the row's checks, said of the function called
        if fn == row:
            raise
        raise type(exc)(f"{fn}: {str(exc).removeprefix(row + ': ')}") from None


def _no_bool(fn: str, operand: Any) -> None:
    if _array(operand).dtype == dt.bool_:
        raise DTypeError(
            f"{fn}: bool operands are not accepted (as in JAX's lax), got {_array(operand).aval}"
        )


def _public(row: str, fn: str, combine: str, example: str, negate: bool = False) -> Callable:
    def public(
        operand: Any,
        scatter_indices: Any,
        updates: Any,
        dimension_numbers: Any,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
    ) -> TracedTensor:
        if row in ("scatter_add", "scatter_mul"):
            _no_bool(fn, operand)
        values = neg(_array(updates)) if negate else updates
        return scatter_with(
            row, fn, operand, scatter_indices, values, dimension_numbers, unique_indices, mode
        )

    public.__name__ = public.__qualname__ = fn
    public.__doc__ = f"""lax.{fn}: a copy of `operand` with `updates` {combine} at the places
    `scatter_indices` name (where several updates meet, {_MEET[row]}).
{_ARGS}
    >>> import numpy as np, tf8
    >>> numbers = tf8.lax.ScatterDimensionNumbers((), (0,), (0,))
    >>> x, idx = np.array([1.0, 2.0, 3.0]), np.array([[0], [2], [2], [7]])
    >>> tf8.lax.{fn}(x, idx, np.array([10.0, 20.0, 30.0, 40.0]), numbers)
    {example}
"""
    return public


_MEET = {
    "scatter": "the last in the updates' C order wins, as XLA on CPU; JAX leaves the order "
    "unspecified",
    "scatter_add": "they all add up",
    "scatter_mul": "they all multiply in; derivatives with respect to `updates` need "
    "`unique_indices=True`, as in JAX",
    "scatter_min": "the least wins; tied values share the derivative",
    "scatter_max": "the greatest wins; tied values share the derivative",
}
_MEET["scatter_sub"] = _MEET["scatter_add"]

scatter = _public("scatter", "scatter", "written", "Array([10.,  2., 30.], dtype=float64)")
scatter_add = _public(
    "scatter_add", "scatter_add", "added", "Array([11.,  2., 53.], dtype=float64)"
)
scatter_sub = _public(
    "scatter_add",
    "scatter_sub",
    "subtracted",
    "Array([ -9.,   2., -47.], dtype=float64)",
    negate=True,
)
scatter_mul = _public(
    "scatter_mul", "scatter_mul", "multiplied in", "Array([  10.,    2., 1800.], dtype=float64)"
)
scatter_min = _public(
    "scatter_min", "scatter_min", "combined by minimum", "Array([1., 2., 3.], dtype=float64)"
)
scatter_max = _public(
    "scatter_max", "scatter_max", "combined by maximum", "Array([10.,  2., 30.], dtype=float64)"
)


def _applied(func: Callable, y: TracedTensor) -> TracedTensor:
    out = _array(func(y))
    if out.shape != y.shape or out.dtype != y.dtype:
        raise DTypeError(
            f"scatter_apply: func must map the operand elementwise to its own dtype: it gave "
            f"{out.aval} for {y.aval}"
        )
    return out


def scatter_apply(
    operand: Any,
    scatter_indices: Any,
    func: Callable[[Any], Any],
    dimension_numbers: Any,
    *,
    update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
) -> TracedTensor:
    """lax.scatter_apply: `operand` with `func` applied at the places `scatter_indices` name,
    once per update that names a place (so twice where two do).

    Args:
      operand, scatter_indices, dimension_numbers, indices_are_sorted, mode: as `scatter`.
      func: an elementwise function; JAX traces it on one scalar, tf8 applies it to the whole
        operand and keeps its values where they are wanted, so it must be elementwise and
        keep the dtype (JAX refuses another dtype too).
      update_shape: the shape the updates would have (`scatter`'s `updates`).
      unique_indices: a promise that no place is named twice: one application, no loop.

    Differences from JAX: tf8 differentiates it where the counts of applications are known
    when traced (eagerly, under `grad`; a loop of `func` and selects) or `unique_indices`
    is set; under `jit` with traced indices, forward mode only (a `while_loop`). JAX has no
    derivative for it.

    >>> import numpy as np, tf8
    >>> numbers = tf8.lax.ScatterDimensionNumbers((), (0,), (0,))
    >>> tf8.lax.scatter_apply(np.array([1.0, 2.0, 3.0]), np.array([[0], [2], [2]]),
    ...                       lambda v: v * 10.0, numbers, update_shape=(3,))
    Array([ 10.,   2., 300.], dtype=float64)
    """
    x = _array(operand)
    ones = full(Aval(tuple(update_shape), dt.int64), 1)
    zeros = full(Aval(x.shape, dt.int64), 0)
    counts = scatter_with(
        "scatter_add",
        "scatter_apply",
        zeros,
        scatter_indices,
        ones,
        dimension_numbers,
        unique_indices,
        mode,
    )
    if x.size == 0:
        return x
    if unique_indices:
        return select(gt(counts, 0), _applied(func, x), x)
    most = apply1("reduce_max", [counts], axes=tuple(range(counts.ndim)))
    known = most._value
    if known is not None and int(known) <= 1:
        return select(gt(counts, 0), _applied(func, x), x) if int(known) else x

    def once_more(round_: Any, y: TracedTensor) -> TracedTensor:
        return select(gt(counts, round_), _applied(func, y), y)

    return fori_loop(0, most, once_more, x)
