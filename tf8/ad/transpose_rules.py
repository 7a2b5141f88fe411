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
    div,
    mul,
    neg,
    normalize_axes,
    reduce_sum,
    zeros,
)
from tf8.lax.core import apply1
from tf8.ops import dtypes as dt
from tf8.ops.definition import OpDefinition
from tf8.ops.gather import gather_transpose_params, scatter_add_transpose_params
from tf8.ops.primitive import Primitive
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


TRANSPOSE_RULES["add"] = _each(lambda ct, x: ct)
TRANSPOSE_RULES["neg"] = _each(lambda ct, x: neg(ct))
TRANSPOSE_RULES["conj"] = _each(lambda ct, x: apply1("conj", [ct]))


def _sub(op, operands, linear, ct):
    return [ct if linear[0] else None, neg(ct) if linear[1] else None]


def _mul(op, operands, linear, ct):
    if linear[0] and linear[1]:
        raise TypeError("mul of two linear values is not linear")
    # Always ct first: x*x then transposes to two equal `mul(ct, x)` that CSE merges.
    return [
        mul(ct, operands[1]) if linear[0] else None,
        mul(ct, operands[0]) if linear[1] else None,
    ]


def _div(op, operands, linear, ct):
    if linear[1]:
        raise TypeError("div by a linear value is not linear")
    return [div(ct, operands[1]), None]


TRANSPOSE_RULES["sub"] = _sub
TRANSPOSE_RULES["mul"] = _mul
TRANSPOSE_RULES["div"] = _div


def _real(op, operands, linear, ct):
    return [convert(ct, operands[0].dtype)]


def _imag(op, operands, linear, ct):
    # imag(t) = Im(t): its transpose maps ct to complex(0, -ct); on a real operand it is 0.
    if not dt.is_complex(operands[0].dtype):
        return [None]
    return [mul(convert(ct, operands[0].dtype), -1j)]


def _complex(op, operands, linear, ct):
    re = apply1("real", [ct]) if linear[0] else None
    im = neg(apply1("imag", [ct])) if linear[1] else None
    return [re, im]


def _convert(op, operands, linear, ct):
    (x,) = operands
    if dt.is_complex(ct.dtype) and not dt.is_complex(x.dtype):
        ct = apply1("real", [ct])
    return [convert(ct, x.dtype)]


TRANSPOSE_RULES["real"] = _real
TRANSPOSE_RULES["imag"] = _imag
TRANSPOSE_RULES["complex"] = _complex
TRANSPOSE_RULES["convert"] = _convert


def _select(op, operands, linear, ct):
    pred = operands[0]
    if linear[0]:
        raise TypeError("select on a linear predicate is not linear")
    zero = zeros(ct.aval)
    on_true = apply1("select", [pred, ct, zero]) if linear[1] else None
    on_false = apply1("select", [pred, zero, ct]) if linear[2] else None
    return [None, on_true, on_false]


TRANSPOSE_RULES["select"] = _select


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
    from tf8.ops.primitive import Aval

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
