"""`gather` and the scatters: jax.lax semantics, shape rules, numpy kernels, parameter builders
(rows: `tf8/ops/primitives/indexing.py`, `scatter.py`; the lax API: `tf8.lax.gather_api`,
`tf8.lax.scatter`).

Restricted to the index vector on the *last* axis of `indices` and no operand batching dims.
`gather` clamps every start so the whole slice lies inside the operand (JAX's "clip");
`scatter_add` drops every update window that does not fit whole (JAX's default FILL_OR_DROP).

Gather: for a batch position `b` (the output axes not in `offset_dims`, in order) the start is
`indices[b]` placed on the operand axes `start_index_map` (0 on the others), clamped to
`[0, operand.shape[d] - slice_sizes[d]]`; the output holds the slice of size `slice_sizes`
there, minus the `collapsed_slice_dims` (size-1 axes), on the output axes `offset_dims`.
The scatters (`scatter_add`, and `scatter`, `scatter_mul`, `scatter_min`, `scatter_max`) are
its mirror image: the `updates` axes not in `update_window_dims` run over `indices.shape[:-1]`,
the window axes over the operand axes not in `inserted_window_dims`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

import numpy as np

from tf8.errors import AxisError, DTypeError, ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops import shape_checks
from tf8.ops.avals import Aval
from tf8.ops.shape_checks import Guards, describe
from tf8.ops.shapes import Dim, dims_equal

Params = Mapping[str, Any] | Any  # anything answering params["offset_dims"], ...


# --- shape rules ------------------------------------------------------------------------------


def _fail(op: Any, avals: Sequence[Aval], message: str) -> NoReturn:
    raise ShapeError(f"{op.name}: {message}; operands {describe(avals)}")


def _dimension_numbers(
    op: Any, avals: Sequence[Aval], name: str, bound: int, *, ordered: bool
) -> tuple[int, ...]:
    """`op[name]` checked to be distinct ints in `[0, bound)`, ascending when `ordered`."""
    dims = op[name]
    if not isinstance(dims, tuple) or any(type(d) is not int for d in dims):
        raise ParameterError(f"{op.name}: {name} must be a tuple of ints, got {dims!r}")
    if any(not 0 <= d < bound for d in dims):
        _fail(op, avals, f"{name} {dims} out of range [0, {bound})")
    if len(set(dims)) != len(dims):
        _fail(op, avals, f"{name} {dims} repeats an axis")
    if ordered and list(dims) != sorted(dims):
        _fail(op, avals, f"{name} {dims} must be sorted")
    return dims


def _require_equal(
    op: Any, avals: Sequence[Aval], a: Dim, b: Dim, what: str, guards: Guards
) -> None:
    if dims_equal(a, b) is False:
        _fail(op, avals, f"{what}: {a} != {b}")
    shape_checks.require_equal(op, a, b, f"{what} ({describe(avals)})", guards)


def _index_batch(op: Any, avals: Sequence[Aval], index_map: str, guards: Guards) -> tuple[Dim, ...]:
    """Check `indices` (operand 1) against `op[index_map]`; return its batch shape."""
    indices = avals[1]
    if indices.dtype not in dt.INTEGERS:
        raise DTypeError(
            f"{op.name}: indices must be int32 or int64, got {indices.dtype}; "
            f"operands {describe(avals)}"
        )
    if indices.ndim == 0:
        _fail(op, avals, "indices need an index vector axis (their last), got a scalar")
    starts = _dimension_numbers(op, avals, index_map, avals[0].ndim, ordered=False)
    what = f"index vector length (last axis of indices) vs len({index_map}={starts})"
    _require_equal(op, avals, indices.shape[-1], len(starts), what, guards)
    return indices.shape[:-1]


def _interleave(
    positions: Sequence[int], placed: Sequence[Dim], rest: Sequence[Dim]
) -> tuple[Dim, ...]:
    """`placed` at the (ascending) `positions`, `rest` in order on the other axes."""
    placed_iter, rest_iter, slots = iter(placed), iter(rest), set(positions)
    return tuple(
        next(placed_iter) if i in slots else next(rest_iter) for i in range(len(placed) + len(rest))
    )


def gather_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    """Output shape of `gather(operand, indices)`: batch axes and slice axes interleaved."""
    operand = avals[0].shape
    rank = len(operand)
    batch = _index_batch(op, avals, "start_index_map", guards)
    sizes = op["slice_sizes"]
    if not isinstance(sizes, tuple) or len(sizes) != rank:
        _fail(op, avals, f"slice_sizes {sizes!r} must give one size per operand axis ({rank})")
    for axis, (size, bound) in enumerate(zip(sizes, operand)):
        if isinstance(size, int) and (size < 0 or isinstance(bound, int) and size > bound):
            _fail(op, avals, f"slice_sizes[{axis}] = {size} outside [0, {bound}]")
    collapsed = _dimension_numbers(op, avals, "collapsed_slice_dims", rank, ordered=True)
    if any(dims_equal(sizes[d], 1) is not True for d in collapsed):
        _fail(op, avals, f"collapsed_slice_dims {collapsed} need slice size 1, got {sizes}")
    window = tuple(size for axis, size in enumerate(sizes) if axis not in collapsed)
    offset = op["offset_dims"]
    if not isinstance(offset, tuple) or len(offset) != len(window):
        _fail(op, avals, f"offset_dims {offset!r} must name {len(window)} output axes")
    offset = _dimension_numbers(op, avals, "offset_dims", len(batch) + len(window), ordered=True)
    return _interleave(offset, window, batch)


def _scatter_window(params: Params, operand_rank: int, updates_shape: Sequence[Dim]) -> list[Dim]:
    """Window size per operand axis: 1 on inserted axes, the updates' window axes elsewhere."""
    window: list[Dim] = [1] * operand_rank
    framed = [d for d in range(operand_rank) if d not in params["inserted_window_dims"]]
    for d, axis in zip(framed, params["update_window_dims"]):
        window[d] = updates_shape[axis]
    return window


def scatter_add_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    """Output shape of `scatter_add(operand, indices, updates)`: the operand's."""
    operand, updates = avals[0].shape, avals[2].shape
    rank = len(operand)
    batch = _index_batch(op, avals, "scatter_dims_to_operand_dims", guards)
    inserted = _dimension_numbers(op, avals, "inserted_window_dims", rank, ordered=True)
    window_axes = _dimension_numbers(op, avals, "update_window_dims", len(updates), ordered=True)
    if len(window_axes) + len(inserted) != rank:
        _fail(
            op,
            avals,
            f"update_window_dims {window_axes} and inserted_window_dims {inserted} "
            f"must cover the operand's {rank} axes",
        )
    if len(updates) != len(batch) + len(window_axes):
        _fail(
            op,
            avals,
            f"updates rank {len(updates)} != {len(batch)} batch axes of indices "
            f"+ {len(window_axes)} update_window_dims",
        )
    scatter_axes = [axis for axis in range(len(updates)) if axis not in window_axes]
    for axis, size in zip(scatter_axes, batch):
        what = f"updates axis {axis} vs its indices batch axis"
        _require_equal(op, avals, updates[axis], size, what, guards)
    for axis, (size, bound) in enumerate(zip(_scatter_window(op, rank, updates), operand)):
        if isinstance(size, int) and isinstance(bound, int) and size > bound:
            _fail(op, avals, f"update window {size} exceeds operand axis {axis} of size {bound}")
    return operand


# --- kernels ----------------------------------------------------------------------------------


def _full_starts(indices: np.ndarray, index_map: Sequence[int], rank: int) -> np.ndarray:
    """Start of every window, batch shape + (rank,): indices on `index_map`, 0 elsewhere."""
    starts = np.zeros(indices.shape[:-1] + (rank,), dtype=np.intp)
    starts[..., list(index_map)] = indices
    return starts


def _along(size: int, axis: int | None, rank: int) -> np.ndarray | int:
    """arange(size) laid along `axis` of a rank-`rank` array (0 when `axis` is None)."""
    if axis is None:
        return 0
    shape = [1] * rank
    shape[axis] = size
    return np.arange(size, dtype=np.intp).reshape(shape)


def gather_kernel(op: Any, operand: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """numpy `gather`: one advanced-indexing read, starts clamped into range."""
    rank, sizes, offset = operand.ndim, op["slice_sizes"], op["offset_dims"]
    framed = [d for d in range(rank) if d not in op["collapsed_slice_dims"]]
    offset_of = dict(zip(framed, offset))  # operand axis -> output axis
    starts = _full_starts(indices, op["start_index_map"], rank)
    starts = np.clip(starts, 0, np.array(operand.shape, np.intp) - np.array(sizes, np.intp))
    out_rank = starts.ndim - 1 + len(offset)
    index = tuple(
        np.expand_dims(starts[..., d], offset) + _along(sizes[d], offset_of.get(d), out_rank)
        for d in range(rank)
    )
    out_shape = _interleave(offset, [sizes[d] for d in framed], indices.shape[:-1])
    # A rank-0 operand reads one scalar for every batch position.
    return np.array(np.broadcast_to(operand[index], out_shape))


def _scatter_targets(
    op: Any, operand: np.ndarray, indices: np.ndarray, updates: np.ndarray
) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """Where each update element that lands goes (one index array per operand axis, after a
    leading length-1 axis so a rank-0 operand needs no special case), in the updates' C
    order, and which update elements land (a mask shaped like them): windows that do not fit
    whole are dropped."""
    rank, window_axes = operand.ndim, op["update_window_dims"]
    framed = [d for d in range(rank) if d not in op["inserted_window_dims"]]
    window_of = dict(zip(framed, window_axes))  # operand axis -> updates axis
    window = _scatter_window(op, rank, updates.shape)
    starts = _full_starts(indices, op["scatter_dims_to_operand_dims"], rank)
    limits = np.array(operand.shape, np.intp) - np.array(window, np.intp)
    fits = np.all((starts >= 0) & (starts <= limits), axis=-1)
    keep = np.broadcast_to(np.expand_dims(fits, window_axes), updates.shape)
    targets = tuple(
        np.broadcast_to(
            np.expand_dims(starts[..., d], window_axes)
            + _along(window[d], window_of.get(d), updates.ndim),
            updates.shape,
        )[keep]
        for d in range(rank)
    )
    leading = np.zeros(np.count_nonzero(keep), dtype=np.intp)
    return (leading, *targets), keep


def scatter_combine_kernel(ufunc: np.ufunc) -> Any:
    """numpy `scatter_<combiner>`: `ufunc.at` on a copy (repeated targets combine in turn),
    windows that do not fit whole dropped."""

    def kernel(op: Any, operand: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> Any:
        targets, keep = _scatter_targets(op, operand, indices, updates)
        out = np.array(operand, copy=True)
        ufunc.at(out[None], targets, updates[keep])
        return out

    return kernel


scatter_add_kernel = scatter_combine_kernel(np.add)


def scatter_kernel(op: Any, operand: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> Any:
    """numpy `scatter` (replace): where targets repeat, the last update wins, in the order of
    the index positions and then of the window positions (XLA's on CPU; JAX leaves it
    unspecified). Deterministic, so a scatter of update numbers tells which update each
    written element holds."""
    targets, keep = _scatter_targets(op, operand, indices, updates)
    out = np.array(operand, copy=True)
    if not keep.any():
        return out
    window_axes = list(op["update_window_dims"])
    order = [a for a in range(updates.ndim) if a not in window_axes] + window_axes
    ranks = np.arange(updates.size).reshape([updates.shape[a] for a in order])
    by_rank = np.argsort(np.transpose(ranks, np.argsort(order))[keep])
    flat = np.ravel_multi_index(targets, (1, *operand.shape))[by_rank]
    _, first_from_end = np.unique(flat[::-1], return_index=True)
    last = by_rank[flat.size - 1 - first_from_end]
    out[None][tuple(t[last] for t in targets)] = updates[keep][last]
    return out


# --- parameter builders -----------------------------------------------------------------------


def take_params(operand_shape: Sequence[Dim], axis: int, index_ndim: int) -> dict[str, Any]:
    """`gather` parameters for `np.take(x, idx, axis)`, `idx` of rank `index_ndim`.

    Pass `x` and `idx[..., None]` (shape `idx.shape + (1,)`, int32/int64) with `idx` already
    in `[0, x.shape[axis])`: gather clamps, it does not wrap negative indices. The result has
    shape `x.shape[:axis] + idx.shape + x.shape[axis + 1:]`.
    """
    rank = len(operand_shape)
    if not -rank <= axis < rank:
        raise AxisError(f"take: axis {axis} is out of range for rank {rank}")
    axis %= rank
    return {
        "offset_dims": tuple(range(axis)) + tuple(range(axis + index_ndim, rank - 1 + index_ndim)),
        "collapsed_slice_dims": (axis,),
        "start_index_map": (axis,),
        "slice_sizes": (*operand_shape[:axis], 1, *operand_shape[axis + 1 :]),
    }


def gather_transpose_params(params: Params) -> dict[str, Any]:
    """`scatter_add` parameters that transpose a `gather` with respect to its operand.

    Scatter `(zeros(operand.shape), indices, cotangent)`. Exact when every slice lies in
    bounds; gather clamps but scatter_add drops, so clamp or normalise indices first.
    """
    return {
        "update_window_dims": tuple(params["offset_dims"]),
        "inserted_window_dims": tuple(params["collapsed_slice_dims"]),
        "scatter_dims_to_operand_dims": tuple(params["start_index_map"]),
    }


def take_transpose_params(
    operand_shape: Sequence[Dim], axis: int, index_ndim: int
) -> dict[str, Any]:
    """`scatter_add` parameters transposing `take_params`: scatter the cotangent (shape
    `x.shape[:axis] + idx.shape + x.shape[axis + 1:]`) into zeros of `operand_shape` at
    `idx[..., None]`; repeated indices accumulate."""
    return gather_transpose_params(take_params(operand_shape, axis, index_ndim))


def scatter_add_transpose_params(params: Params, updates_shape: Sequence[Dim]) -> dict[str, Any]:
    """`gather` parameters that transpose a `scatter_add` with respect to its updates.

    Gather `(cotangent, indices)`; exact when every update window lies in bounds.
    """
    rank = len(params["update_window_dims"]) + len(params["inserted_window_dims"])
    return {
        "offset_dims": tuple(params["update_window_dims"]),
        "collapsed_slice_dims": tuple(params["inserted_window_dims"]),
        "start_index_map": tuple(params["scatter_dims_to_operand_dims"]),
        "slice_sizes": tuple(_scatter_window(params, rank, updates_shape)),
    }
