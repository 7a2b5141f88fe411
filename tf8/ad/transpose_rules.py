"""Transpose rules for every primitive that can appear in a linear (tangent) graph.

`rule(op, operands, linear, ct) -> list of cotangents, one per operand` where `linear[i]`
says operand i is a linear input (its entry in `operands` is a TracedTensor carrying only the
right aval when linear, the residual value otherwise) and `ct` is the output cotangent.
Complex numbers follow JAX: the transpose is taken w.r.t. the bilinear pairing sum(a*b), so
`mul` transposes to `ct * a` (no conjugation) and `conj` to `conj`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np

from tf8.lax import rulekit
from tf8.lax.builders import (
    Tangent,
    broadcast,
    compare,
    convert,
    normalize_axes,
    reduce_sum,
    reshape,
    transpose,
    zeros,
)
from tf8.lax.core import apply1
from tf8.ops.definition import OpDefinition
from tf8.ops.gather import gather_transpose_params, scatter_add_transpose_params
from tf8.ops.primitive import Aval, Primitive
from tf8.ops.primitives import PRIMITIVES
from tf8.traced import TracedTensor

TransposeRule = Callable[
    [Primitive, Sequence[TracedTensor], Sequence[bool], TracedTensor], list[Tangent]
]
TRANSPOSE_RULES: dict[str, TransposeRule] = {}


def _each(fn: Callable[[TracedTensor, TracedTensor], Tangent]) -> TransposeRule:
    """A rule computing each linear operand's cotangent independently: fn(ct, operand)."""

    def rule(op, operands, linear, ct):
        return [fn(ct, x) if is_linear else None for x, is_linear in zip(operands, linear)]

    return rule


def _reduce_sum(op, operands, linear, ct):
    (x,) = operands
    axes = normalize_axes(op["axes"], x.ndim)
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    return [broadcast(ct, x.shape, kept)]


def _broadcast_in_dim(op, operands, linear, ct):
    (x,) = operands
    dims = op["broadcast_dimensions"]
    target = op["shape"]
    summed = [i for i in range(len(target)) if i not in dims]
    # Operand axes of size 1 that were stretched are summed too (then reshaped back).
    stretched = [dims[i] for i, d in enumerate(x.shape) if d == 1 and target[dims[i]] != 1]
    total = reduce_sum(ct, sorted(summed + stretched))
    return [reshape(total, x.shape)]


def _cumsum(op, operands, linear, ct):
    return [apply1("cumsum", [ct], axis=op["axis"], reverse=not op["reverse"])]


def _transpose(op, operands, linear, ct):
    inverse = tuple(int(i) for i in np.argsort(op["permutation"]))
    return [transpose(ct, inverse)]


TRANSPOSE_RULES["reduce_sum"] = _reduce_sum
TRANSPOSE_RULES["broadcast_in_dim"] = _broadcast_in_dim
TRANSPOSE_RULES["cumsum"] = _cumsum
TRANSPOSE_RULES["transpose"] = _transpose
TRANSPOSE_RULES["reshape"] = _each(lambda ct, x: reshape(ct, x.shape))
TRANSPOSE_RULES["reverse"] = lambda op, operands, linear, ct: [
    apply1("reverse", [ct], axes=op["axes"])
]
TRANSPOSE_RULES["extract_diag"] = _each(lambda ct, x: apply1("embed_diag", [ct]))
TRANSPOSE_RULES["embed_diag"] = _each(lambda ct, x: apply1("extract_diag", [ct]))
TRANSPOSE_RULES["tril"] = lambda op, operands, linear, ct: [apply1("tril", [ct], k=op["k"])]
TRANSPOSE_RULES["triu"] = lambda op, operands, linear, ct: [apply1("triu", [ct], k=op["k"])]


def _slice(op, operands, linear, ct):
    (x,) = operands
    strides = op["strides"] or (1,) * x.ndim
    config = []
    for start, n, stride, dim in zip(op["start"], ct.shape, strides, x.shape):
        end = start + (n - 1) * stride + 1 if n else start
        config.append((start, dim - end, stride - 1))
    zero = zeros(_scalar_aval(ct))
    return [apply1("pad", [ct, zero], config=tuple(config))]


def _scalar_aval(x: TracedTensor):
    return Aval((), x.dtype)


def _pad(op, operands, linear, ct):
    x, value = operands
    config = op["config"]
    # Undo negative padding (a crop) by padding the cotangent back with zeros first.
    regrow = tuple((max(-lo, 0), max(-hi, 0), 0) for lo, hi, _ in config)
    if any(lo or hi for lo, hi, _ in regrow):
        ct = apply1("pad", [ct, zeros(_scalar_aval(ct))], config=regrow)
    start = tuple(max(lo, 0) for lo, _, _ in config)
    limit = tuple(
        s + (d - 1) * (i + 1) + 1 if d else s for s, d, (_, _, i) in zip(start, x.shape, config)
    )
    strides = tuple(i + 1 for _, _, i in config)
    ct_x = apply1(
        "slice", [ct], start=start, limit=limit, strides=None if set(strides) <= {1} else strides
    )
    ct_value = None
    if linear[1]:
        everything = reduce_sum(ct, range(ct.ndim))
        ct_value = apply1("sub", [everything, reduce_sum(ct_x, range(ct_x.ndim))])
    return [ct_x if linear[0] else None, ct_value]


TRANSPOSE_RULES["slice"] = _slice
TRANSPOSE_RULES["pad"] = _pad


def _concatenate(op, operands, linear, ct):
    (axis,) = normalize_axes([op["axis"]], ct.ndim)
    result: list[Tangent] = []
    offset = 0
    for x, is_linear in zip(operands, linear):
        size = x.shape[axis]
        if is_linear:
            start = tuple(offset if i == axis else 0 for i in range(ct.ndim))
            limit = tuple(offset + size if i == axis else d for i, d in enumerate(ct.shape))
            result.append(apply1("slice", [ct], start=start, limit=limit, strides=None))
        else:
            result.append(None)
        offset = offset + size
    return result


TRANSPOSE_RULES["concatenate"] = _concatenate


def _ranges_like(*groups: Sequence[int]) -> list[tuple[int, ...]]:
    out, start = [], 0
    for g in groups:
        out.append(tuple(range(start, start + len(g))))
        start += len(g)
    return out


def _dot_transpose_lhs(ct, x, y, dimension_numbers, swap_ans=False):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_kept = [i for i in range(x.ndim) if i not in x_contract and i not in x_batch]
    y_kept = [i for i in range(y.ndim) if i not in y_contract and i not in y_batch]
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((ans_y, tuple(y_kept)), (ans_batch, tuple(y_batch)))
    x_contract_sorted_by_y = [x_contract[i] for i in np.argsort(y_contract)]
    out_axes = tuple(int(i) for i in np.argsort(list(x_batch) + x_kept + x_contract_sorted_by_y))
    product = apply1("dot_general", [ct, y], contracting=dims[0], batch=dims[1])
    return transpose(product, out_axes)


def _dot_general(op, operands, linear, ct):
    x, y = operands
    if linear[0] and linear[1]:
        raise TypeError("dot_general of two linear values is not linear")
    (xc, yc), (xb, yb) = op["contracting"], op["batch"]
    numbers = (
        (normalize_axes(xc, x.ndim), normalize_axes(yc, y.ndim)),
        (normalize_axes(xb, x.ndim), normalize_axes(yb, y.ndim)),
    )
    if linear[0]:
        return [_dot_transpose_lhs(ct, x, y, numbers), None]
    (xc, yc), (xb, yb) = numbers
    swapped = ((yc, xc), (yb, xb))
    return [None, _dot_transpose_lhs(ct, y, x, swapped, swap_ans=True)]


TRANSPOSE_RULES["dot_general"] = _dot_general


def _start_limits(
    indices: TracedTensor, shape: Sequence, index_map: Sequence[int], sizes: Sequence
) -> TracedTensor | None:
    """The largest start that keeps a window in bounds, per index component, shaped like
    `indices` (None when a size is symbolic)."""
    limits = [shape[d] - sizes[d] for d in index_map]
    if not all(isinstance(v, (int, np.integer)) for v in limits):
        return None
    vector = apply1("constant", [], value=np.asarray(limits, dtype=indices.dtype))
    return broadcast(vector, indices.shape, (indices.ndim - 1,))


def _gather(op, operands, linear, ct):
    operand, indices = operands
    params = gather_transpose_params(op)
    # gather clamps each start into range but scatter_add drops windows out of range: clamp
    # the indices first so every cotangent lands where gather read it.
    limits = _start_limits(indices, operand.shape, op["start_index_map"], op["slice_sizes"])
    if limits is not None:
        indices = apply1("clamp", [zeros(indices.aval), indices, limits])
    return [apply1("scatter_add", [zeros(operand.aval), indices, ct], **params), None]


def _scatter_add(op, operands, linear, ct):
    operand, indices, updates = operands
    ct_updates = None
    if linear[2]:
        params = scatter_add_transpose_params(op, updates.shape)
        ct_updates = apply1("gather", [ct, indices], **params)
        # scatter_add drops windows out of range (their updates do not matter) but gather
        # clamps them back in: zero those cotangents.
        index_map = op["scatter_dims_to_operand_dims"]
        limits = _start_limits(indices, operand.shape, index_map, params["slice_sizes"])
        if limits is not None:
            fits = apply1("and", [compare(indices, 0, "ge"), compare(indices, limits, "le")])
            count = reduce_sum(convert(fits, indices.dtype), [indices.ndim - 1])
            window_fits = compare(count, len(index_map), "eq")
            batch_axes = [i for i in range(updates.ndim) if i not in op["update_window_dims"]]
            mask = broadcast(window_fits, updates.shape, batch_axes)
            ct_updates = apply1("select", [mask, ct_updates, zeros(updates.aval)])
    return [ct if linear[0] else None, None, ct_updates]


def _dynamic_slice(op, operands, linear, ct):
    x, *starts = operands
    return [apply1("dynamic_update_slice", [zeros(x.aval), ct, *starts])] + [None] * len(starts)


def _dynamic_update_slice(op, operands, linear, ct):
    x, update, *starts = operands
    ct_x = apply1("dynamic_update_slice", [ct, zeros(update.aval), *starts]) if linear[0] else None
    ct_update = None
    if linear[1]:
        ct_update = apply1("dynamic_slice", [ct, *starts], slice_sizes=tuple(update.shape))
    return [ct_x, ct_update] + [None] * len(starts)


def _dynamic_truncate(op, operands, linear, ct):
    # Pad back to the operand's size; a zeros reference carries that (possibly symbolic) size.
    x, size = operands
    return [apply1("pad_to_match", [ct, zeros(x.aval)], axis=op["axis"]), None]


def _pad_to_match(op, operands, linear, ct):
    x, ref = operands
    (axis,) = normalize_axes([op["axis"]], ct.ndim)
    limit = tuple(x.shape[axis] if i == axis else d for i, d in enumerate(ct.shape))
    return [apply1("slice", [ct], start=(0,) * ct.ndim, limit=limit, strides=None), None]


TRANSPOSE_RULES["gather"] = _gather
TRANSPOSE_RULES["scatter_add"] = _scatter_add
TRANSPOSE_RULES["dynamic_slice"] = _dynamic_slice
TRANSPOSE_RULES["dynamic_update_slice"] = _dynamic_update_slice
TRANSPOSE_RULES["dynamic_truncate"] = _dynamic_truncate
TRANSPOSE_RULES["pad_to_match"] = _pad_to_match


def home_transpose(found: OpDefinition) -> TransposeRule | None:
    """The transpose rule of a primitive from its home, handed the rule kit as `lax`."""
    return None if found.transpose is None else functools.partial(found.transpose, rulekit)


for _found in PRIMITIVES.values():
    _rule = home_transpose(_found)
    if _rule is not None:
        TRANSPOSE_RULES[_found.name] = _rule
