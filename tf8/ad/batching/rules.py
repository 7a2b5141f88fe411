"""Batching rules of the elementwise, analytic, reduction, contraction and structural rows.

Rules move as little as they can: an elementwise op keeps a batch axis its batched operands
share, a reduction shifts its axis numbers around the batch axis, and `dot_general`
folds the batch axis into its batch or free axes, so an unbatched operand (a weight matrix)
is never broadcast. Rows defined in a family module carry their own (`home_batch`).
"""

from __future__ import annotations

import functools

from tf8.errors import ShapeError
from tf8.lax import rulekit
from tf8.lax.builders import reshape, transpose
from tf8.lax.core import apply, apply1
from tf8.ops.catalog import ROWS, Category
from tf8.ops.definition import OpDefinition
from tf8.ops.primitives import PRIMITIVES

from .core import (
    BatchRule,
    at_front,
    batch_size,
    batched_axis,
    example_axis,
    moveaxis,
    with_batch_at,
    with_params,
)

RULES: dict[str, BatchRule] = {}


def elementwise(op, args, dims):
    """Operands of one shape: keep the batch axis where every batched operand has it (else
    move it to 0), and broadcast the unbatched operands to the batched shape."""
    size = batch_size(args, dims)
    batched = {d for d in dims if d is not None}
    target = batched.pop() if len(batched) == 1 else 0
    operands = [with_batch_at(x, d, size, target) for x, d in zip(args, dims)]
    outs = apply(op, operands)
    return outs, [target] * len(outs)


for _row in ROWS:
    if _row.category in (Category.ELEMENTWISE, Category.ANALYTIC):
        RULES[_row.name] = elementwise


def home_batch(found: OpDefinition) -> BatchRule | None:
    """The batching rule of a primitive from its home (handed the rule kit as `lax`), or its
    category's: elementwise and analytic rows keep a shared batch axis."""
    if found.batch is not None:
        return functools.partial(found.batch, rulekit)
    if found.category in (Category.ELEMENTWISE, Category.ANALYTIC):
        return elementwise
    return None


_OLDER = {_row.name for _row in ROWS}
for _found in PRIMITIVES.values():
    if _found.row is not None and _found.name not in _OLDER:
        _rule = home_batch(_found)
        if _rule is not None:
            RULES[_found.name] = _rule


def _no_operands(op, args, dims):
    raise ShapeError(f"vmap: {op!r} has no operands, so nothing of it is batched")


RULES["iota"] = _no_operands


# --- reductions ------------------------------------------------------------------------------


def _reduce(op, args, dims):
    (x,), (d,) = args, dims
    axes = tuple(batched_axis(a, d) for a in _example_axes(op["axes"], x.ndim - 1))
    out_dim = d - sum(1 for a in axes if a < d)
    return [apply(with_params(op, axes=axes), [x])[0]], [out_dim]


def _example_axes(axes, ndim: int) -> tuple[int, ...]:
    return tuple(example_axis(a, ndim) for a in axes)


for _name in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min"):
    RULES[_name] = _reduce


def _arg_reduce(op, args, dims):
    (x,), (d,) = args, dims
    if x.ndim == 1:  # per-example scalars: one element along a new axis, as numpy reads them
        x = reshape(x, (*x.shape, 1))
        return [apply(with_params(op, axis=1), [x])[0]], [0]
    axis = batched_axis(example_axis(op["axis"], x.ndim - 1), d)
    return [apply(with_params(op, axis=axis), [x])[0]], [d if d < axis else d - 1]


RULES["argmax"] = RULES["argmin"] = _arg_reduce


def _cumsum(op, args, dims):
    (x,), (d,) = args, dims
    if x.ndim == 1:  # the running sum of one element is itself
        return [x], [d]
    axis = batched_axis(example_axis(op["axis"], x.ndim - 1), d)
    return [apply(with_params(op, axis=axis), [x])[0]], [d]


RULES["cumsum"] = _cumsum


# --- contraction -------------------------------------------------------------------------------


def _dot_general(op, args, dims):
    """The batch axis becomes a batch axis of the product when both operands have one, and a
    free axis of the batched operand otherwise (no transpose, no broadcast)."""
    (x, y), (dx, dy) = args, dims
    (lc, rc), (lb, rb) = op["contracting"], op["batch"]
    nx, ny = x.ndim - (dx is not None), y.ndim - (dy is not None)
    lc, lb = _example_axes(lc, nx), _example_axes(lb, nx)
    rc, rb = _example_axes(rc, ny), _example_axes(rb, ny)
    if dx is not None:
        lc, lb = tuple(batched_axis(a, dx) for a in lc), tuple(batched_axis(a, dx) for a in lb)
    if dy is not None:
        rc, rb = tuple(batched_axis(a, dy) for a in rc), tuple(batched_axis(a, dy) for a in rb)
    if dx is not None and dy is not None:
        lb, rb, out_dim = (dx, *lb), (dy, *rb), 0
    elif dx is not None:
        free = [i for i in range(x.ndim) if i not in lc and i not in lb]
        out_dim = len(lb) + free.index(dx)
    else:
        free = [i for i in range(y.ndim) if i not in rc and i not in rb]
        out_dim = len(lb) + (nx - len(lc) - len(lb)) + free.index(dy)
    out = apply1("dot_general", [x, y], contracting=(lc, rc), batch=(lb, rb))
    return [out], [out_dim]


RULES["dot_general"] = _dot_general


# --- structural ----------------------------------------------------------------------------------


def _transpose(op, args, dims):
    (x,), (d,) = args, dims
    perm = (d, *(batched_axis(p, d) for p in op["permutation"]))
    return [transpose(x, perm)], [0]


def _reshape(op, args, dims):
    (x,), (d,) = args, dims
    x = moveaxis(x, d, 0)
    return [reshape(x, (x.shape[0], *op["shape"]))], [0]


def _broadcast_in_dim(op, args, dims):
    (x,), (d,) = args, dims
    x = moveaxis(x, d, 0)
    shape = (x.shape[0], *op["shape"])
    kept = (0, *(b + 1 for b in op["broadcast_dimensions"]))
    return [apply1("broadcast_in_dim", [x], shape=shape, broadcast_dimensions=kept)], [0]


def _trailing(count: int):
    """Ops on the last `count` axes (matrices, diagonals) that keep the leading axes: the
    batch axis stays where it is unless it sits among those trailing axes."""

    def rule(op, args, dims):
        (x,), (d,) = args, dims
        if d > x.ndim - 1 - count:
            x, d = moveaxis(x, d, 0), 0
        return [apply(op, [x])[0]], [d]

    return rule


def _reverse(op, args, dims):
    (x,), (d,) = args, dims
    axes = tuple(batched_axis(a, d) for a in _example_axes(op["axes"], x.ndim - 1))
    return [apply(with_params(op, axes=axes), [x])[0]], [d]


def _concatenate(op, args, dims):
    size = batch_size(args, dims)
    axis = example_axis(op["axis"], args[0].ndim - (dims[0] is not None))
    operands = [at_front(x, d, size) for x, d in zip(args, dims)]
    return [apply(with_params(op, axis=axis + 1), operands)[0]], [0]


RULES.update(
    {
        "transpose": _transpose,
        "reshape": _reshape,
        "broadcast_in_dim": _broadcast_in_dim,
        "extract_diag": _trailing(2),
        "embed_diag": _trailing(1),
        "tril": _trailing(2),
        "triu": _trailing(2),
        "reverse": _reverse,
        "concatenate": _concatenate,
    }
)
