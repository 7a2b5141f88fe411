"""Batching rules of the indexing, padding, host and dynamic rows.

`gather`/`scatter_add` follow JAX's rules: a batched operand gains a window (or slice) axis,
batched indices gain an index-batch axis, and when both are batched the indices get a counter
column (`iota`) that selects each example's own operand. `dynamic_slice` and
`dynamic_update_slice` with batched starts are rewritten as that gather / a scatter into
zeros plus a mask (loop-free). `dynamic_truncate` to a batched size would give ragged results
and is refused.
"""

from __future__ import annotations

import numpy as np

from tf8.errors import RaggedBatchError
from tf8.lax.builders import broadcast, compare, convert, full, reshape, select, zeros
from tf8.lax.core import apply, apply1
from tf8.ops import dtypes as dt
from tf8.ops.primitive import Aval, make_primitive

from .core import (
    BatchRule,
    at_front,
    batch_size,
    batched_axis,
    example_axis,
    moveaxis,
    with_params,
)

RULES: dict[str, BatchRule] = {}


def _plus(axes, k: int = 1) -> tuple[int, ...]:
    return tuple(a + k for a in axes)


def _with_counter(indices):
    """Batched indices (batch axis 0) with the example number prepended to each index vector."""
    shape = (*indices.shape[:-1], 1)
    counter = apply1("iota", [], shape=shape, dtype=indices.dtype, dimension=0)
    return apply1("concatenate", [counter, indices], axis=indices.ndim - 1)


def _gather(op, args, dims):
    (x, indices), (dx, di) = args, dims
    offset, collapsed = op["offset_dims"], op["collapsed_slice_dims"]
    starts, sizes = op["start_index_map"], op["slice_sizes"]
    if di is None:  # the batch axis is one more slice axis, read whole
        x = moveaxis(x, dx, 0)
        params = {
            "offset_dims": (0, *_plus(offset)),
            "collapsed_slice_dims": _plus(collapsed),
            "start_index_map": _plus(starts),
            "slice_sizes": (x.shape[0], *sizes),
        }
        return [apply(with_params(op, **params), [x, indices])[0]], [0]
    indices = moveaxis(indices, di, 0)
    if dx is None:  # one more index-batch axis, placed first in the output
        return [apply(with_params(op, offset_dims=_plus(offset)), [x, indices])[0]], [0]
    x = moveaxis(x, dx, 0)
    params = {
        "offset_dims": _plus(offset),
        "collapsed_slice_dims": (0, *_plus(collapsed)),
        "start_index_map": (0, *_plus(starts)),
        "slice_sizes": (1, *sizes),
    }
    return [apply(with_params(op, **params), [x, _with_counter(indices)])[0]], [0]


def _scatter_add(op, args, dims):
    (x, indices, updates), (dx, di, du) = args, dims
    size = batch_size(args, dims)
    x, updates = at_front(x, dx, size), at_front(updates, du, size)
    window, inserted = op["update_window_dims"], op["inserted_window_dims"]
    targets = op["scatter_dims_to_operand_dims"]
    if di is None:  # the batch axis is one more window axis
        params = {
            "update_window_dims": (0, *_plus(window)),
            "inserted_window_dims": _plus(inserted),
            "scatter_dims_to_operand_dims": _plus(targets),
        }
    else:
        indices = _with_counter(moveaxis(indices, di, 0))
        params = {
            "update_window_dims": _plus(window),
            "inserted_window_dims": (0, *_plus(inserted)),
            "scatter_dims_to_operand_dims": (0, *_plus(targets)),
        }
    return [apply(with_params(op, **params), [x, indices, updates])[0]], [0]


RULES["gather"] = _gather
RULES["scatter_add"] = _scatter_add


def _index_vectors(starts, dims, size):
    """The per-example start scalars as one (batch, rank) int64 index array."""
    columns = [
        reshape(at_front(convert(s, dt.int64), d, size), (size, 1)) for s, d in zip(starts, dims)
    ]
    return apply1("concatenate", columns, axis=1)


def _dynamic_slice(op, args, dims):
    (x, *starts), (dx, *ds) = args, dims
    sizes = op["slice_sizes"]
    if all(d is None for d in ds):  # slice the whole batch axis
        zero = full(Aval((), starts[0].dtype if starts else dt.int64), 0)
        starts.insert(dx, zero)
        sizes = (*sizes[:dx], x.shape[dx], *sizes[dx:])
        changed = with_params(op, op.input_count + 1, slice_sizes=sizes)
        return [apply(changed, [x, *starts])[0]], [dx]
    # Batched starts: a gather whose index vector is each example's starts (clamped alike).
    rank = len(starts)
    per_example = make_primitive(
        "gather",
        2,
        {
            "offset_dims": tuple(range(rank)),
            "collapsed_slice_dims": (),
            "start_index_map": tuple(range(rank)),
            "slice_sizes": sizes,
        },
    )
    indices = _index_vectors(starts, ds, batch_size(args, dims))
    return _gather(per_example, [x, indices], [dx, 0])


def _dynamic_update_slice(op, args, dims):
    (x, update, *starts), (dx, du, *ds) = args, dims
    size = batch_size(args, dims)
    x, update = at_front(x, dx, size), at_front(update, du, size)
    if all(d is None for d in ds):
        zero = full(Aval((), starts[0].dtype if starts else dt.int64), 0)
        changed = with_params(op, op.input_count + 1)
        return [apply(changed, [x, update, zero, *starts])[0]], [0]
    # Batched starts: clamp them as the op does, scatter the update into zeros and select it
    # inside each example's window (exact: no arithmetic on the operand's values).
    shape, window = x.shape[1:], update.shape[1:]
    clamped = []
    for s, d, n, w in zip(starts, ds, shape, window):
        s = at_front(convert(s, dt.int64), d, size)
        lo, hi = full(s.aval, 0), full(s.aval, n - w)
        clamped.append(apply1("clamp", [lo, s, hi]))
    rank = len(shape)
    per_example = make_primitive(
        "scatter_add",
        3,
        {
            "update_window_dims": tuple(range(rank)),
            "inserted_window_dims": (),
            "scatter_dims_to_operand_dims": tuple(range(rank)),
        },
    )
    indices = _index_vectors(clamped, [0] * rank, size)
    (placed,), _ = _scatter_add(per_example, [zeros(x.aval), indices, update], [0, 0, 0])
    inside = None
    for axis, (s, w) in enumerate(zip(clamped, window)):
        position = apply1("iota", [], shape=x.shape, dtype=np.dtype(np.int64), dimension=axis + 1)
        start = broadcast(s, x.shape, (0,))
        after = compare(position, start, "ge")
        before = compare(position, apply1("add", [start, full(start.aval, w)]), "lt")
        both = apply1("and", [after, before])
        inside = both if inside is None else apply1("and", [inside, both])
    return [select(inside, placed, x)], [0]


RULES["dynamic_slice"] = _dynamic_slice
RULES["dynamic_update_slice"] = _dynamic_update_slice


def _pad(op, args, dims):
    (x, value), (dx, dv) = args, dims
    config = op["config"]
    if dv is None:  # the batch axis is not padded
        config = (*config[:dx], (0, 0, 0), *config[dx:])
        return [apply(with_params(op, config=config), [x, value])[0]], [dx]
    # A padding value per example: pad with zeros, then select each example's value outside
    # the (padded) operand, found by padding a mask the same way.
    size = batch_size(args, dims)
    x = at_front(x, dx, size)
    padded = apply(with_params(op, config=((0, 0, 0), *config)), [x, zeros(Aval((), x.dtype))])[0]
    ones = full(Aval(x.shape[1:], np.dtype(np.bool_)), True)
    mask = apply(op, [ones, full(Aval((), np.dtype(np.bool_)), False)])[0]
    mask = broadcast(mask, padded.shape, tuple(range(1, padded.ndim)))
    fill = broadcast(moveaxis(value, dv, 0), padded.shape, (0,))
    return [select(mask, padded, fill)], [0]


RULES["pad"] = _pad


# --- host and dynamic rows: the batch axis moves out of the way ------------------------------


def _shape_of(op, args, dims):
    (x,), (d,) = args, dims
    axis = batched_axis(example_axis(op["axis"], x.ndim - 1), d)
    return [apply(with_params(op, axis=axis), [x])[0]], [None]


def _dynamic_truncate(op, args, dims):
    (x, size), (dx, ds) = args, dims
    if ds is not None:
        raise RaggedBatchError(
            f"vmap: dynamic_truncate to a size that depends on the mapped axis (size {size.aval}"
            " batched) would give examples of different sizes (ragged); truncate to one size"
        )
    axis = batched_axis(example_axis(op["axis"], x.ndim - 1), dx)
    return [apply(with_params(op, axis=axis), [x, size])[0]], [dx]


def _pad_to_match(op, args, dims):
    """Both operands' batch axes move last, so the per-example axis number stays right."""
    (x, ref), (dx, dr) = args, dims
    if dx is not None:
        x = moveaxis(x, dx, x.ndim - 1)
    if dr is not None:
        ref = moveaxis(ref, dr, ref.ndim - 1)
    axis = example_axis(op["axis"], x.ndim - (dx is not None))
    out = apply(with_params(op, axis=axis), [x, ref])[0]
    return [out], [None if dx is None else x.ndim - 1]


RULES["shape_of"] = _shape_of
RULES["dynamic_truncate"] = _dynamic_truncate
RULES["pad_to_match"] = _pad_to_match
