"""Indexing rows: `gather` and `scatter_add`, with jax.lax's dimension numbers (their shape
rules, kernels and parameter builders are in `tf8.ops.gather`).

Both are linear in their array operands (`linear_in`): gather in the operand, scatter_add in
the operand and the updates jointly; the indices are held fixed. Batching follows JAX: a
batched operand gains a window (or slice) axis, batched indices gain an index-batch axis, and
when both are batched the indices get a counter column (`iota`) that selects each example's
own operand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define
from tf8.ops.gather import (
    gather_kernel,
    gather_shape,
    gather_transpose_params,
    scatter_add_kernel,
    scatter_add_shape,
    scatter_add_transpose_params,
)

_I, _P = Category.INDEXING, DTypePolicy


def _start_limits(
    lax: Any, indices: Any, shape: Sequence, index_map: Sequence[int], sizes: Sequence
) -> Any:
    """The largest start that keeps a window in bounds, per index component, shaped like
    `indices` (None when a size is symbolic)."""
    limits = [shape[d] - sizes[d] for d in index_map]
    if not all(isinstance(v, (int, np.integer)) for v in limits):
        return None
    vector = lax.apply1("constant", [], value=np.asarray(limits, dtype=indices.dtype))
    return lax.broadcast(vector, indices.shape, (indices.ndim - 1,))


def _plus(axes: Sequence[int], k: int = 1) -> tuple[int, ...]:
    return tuple(a + k for a in axes)


def with_counter(lax: Any, indices: Any) -> Any:
    """Batched indices (batch axis 0) with the example number prepended to each index vector."""
    shape = (*indices.shape[:-1], 1)
    counter = lax.apply1("iota", [], shape=shape, dtype=indices.dtype, dimension=0)
    return lax.apply1("concatenate", [counter, indices], axis=indices.ndim - 1)


# --- gather -----------------------------------------------------------------------------------


def _gather_transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
    operand, indices = operands
    params = gather_transpose_params(op)
    # gather clamps each start into range but scatter_add drops windows out of range: clamp
    # the indices first so every cotangent lands where gather read it.
    limits = _start_limits(lax, indices, operand.shape, op["start_index_map"], op["slice_sizes"])
    if limits is not None:
        indices = lax.apply1("clamp", [lax.zeros(indices.aval), indices, limits])
    return [lax.apply1("scatter_add", [lax.zeros(operand.aval), indices, ct], **params), None]


def gather_batch(lax: Any, op: Any, args: list, dims: list) -> tuple[list, list]:
    (x, indices), (dx, di) = args, dims
    offset, collapsed = op["offset_dims"], op["collapsed_slice_dims"]
    starts, sizes = op["start_index_map"], op["slice_sizes"]
    if di is None:  # the batch axis is one more slice axis, read whole
        x = lax.moveaxis(x, dx, 0)
        params = {
            "offset_dims": (0, *_plus(offset)),
            "collapsed_slice_dims": _plus(collapsed),
            "start_index_map": _plus(starts),
            "slice_sizes": (x.shape[0], *sizes),
        }
        return [lax.apply(lax.with_params(op, **params), [x, indices])[0]], [0]
    indices = lax.moveaxis(indices, di, 0)
    if dx is None:  # one more index-batch axis, placed first in the output
        return [lax.apply(lax.with_params(op, offset_dims=_plus(offset)), [x, indices])[0]], [0]
    x = lax.moveaxis(x, dx, 0)
    params = {
        "offset_dims": _plus(offset),
        "collapsed_slice_dims": (0, *_plus(collapsed)),
        "start_index_map": (0, *_plus(starts)),
        "slice_sizes": (1, *sizes),
    }
    return [lax.apply(lax.with_params(op, **params), [x, with_counter(lax, indices)])[0]], [0]


GATHER = define(
    Row(
        "gather",
        _I,
        _P.SAME_ANY,
        2,
        2,
        ("offset_dims", "collapsed_slice_dims", "start_index_map", "slice_sizes"),
        doc="lax.gather (index vector on the last axis, indices clamped)",
        linear_in=(0,),
        dtype_operands=(0,),
    ),
    kernel=gather_kernel,
    shape=gather_shape,
    transpose=_gather_transpose,
    batch=gather_batch,
)


# --- scatter_add ------------------------------------------------------------------------------


def updates_cotangent(lax: Any, op: Any, operand: Any, indices: Any, updates: Any, ct: Any) -> Any:
    """The cotangent of a scatter's `updates`: `ct` gathered at each update window, zero for
    the windows the scatter dropped (out of range; gather would clamp them back in)."""
    params = scatter_add_transpose_params(op, updates.shape)
    ct_updates = lax.apply1("gather", [ct, indices], **params)
    index_map = op["scatter_dims_to_operand_dims"]
    limits = _start_limits(lax, indices, operand.shape, index_map, params["slice_sizes"])
    if limits is None:
        return ct_updates
    fits = lax.apply1("and", [lax.compare(indices, 0, "ge"), lax.compare(indices, limits, "le")])
    count = lax.reduce_sum(lax.convert(fits, indices.dtype), [indices.ndim - 1])
    window_fits = lax.compare(count, len(index_map), "eq")
    batch_axes = [i for i in range(updates.ndim) if i not in op["update_window_dims"]]
    mask = lax.broadcast(window_fits, updates.shape, batch_axes)
    return lax.apply1("select", [mask, ct_updates, lax.zeros(updates.aval)])


def _scatter_add_transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
    operand, indices, updates = operands
    ct_updates = updates_cotangent(lax, op, operand, indices, updates, ct) if linear[2] else None
    return [ct if linear[0] else None, None, ct_updates]


def scatter_add_batch(lax: Any, op: Any, args: list, dims: list) -> tuple[list, list]:
    (x, indices, updates), (dx, di, du) = args, dims
    size = lax.batch_size(args, dims)
    x, updates = lax.at_front(x, dx, size), lax.at_front(updates, du, size)
    window, inserted = op["update_window_dims"], op["inserted_window_dims"]
    targets = op["scatter_dims_to_operand_dims"]
    if di is None:  # the batch axis is one more window axis
        params = {
            "update_window_dims": (0, *_plus(window)),
            "inserted_window_dims": _plus(inserted),
            "scatter_dims_to_operand_dims": _plus(targets),
        }
    else:
        indices = with_counter(lax, lax.moveaxis(indices, di, 0))
        params = {
            "update_window_dims": _plus(window),
            "inserted_window_dims": (0, *_plus(inserted)),
            "scatter_dims_to_operand_dims": (0, *_plus(targets)),
        }
    return [lax.apply(lax.with_params(op, **params), [x, indices, updates])[0]], [0]


SCATTER_ADD = define(
    Row(
        "scatter_add",
        _I,
        _P.SAME_ANY,
        3,
        3,
        ("update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims"),
        doc="lax.scatter_add (index vector on the last axis)",
        linear_in=(0, 2),
        dtype_operands=(0, 2),
    ),
    kernel=scatter_add_kernel,
    shape=scatter_add_shape,
    transpose=_scatter_add_transpose,
    batch=scatter_add_batch,
)


DEFINITIONS: tuple[OpDefinition, ...] = (GATHER, SCATTER_ADD)
