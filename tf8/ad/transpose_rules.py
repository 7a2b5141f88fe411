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
    normalize_axes,
    reduce_sum,
    reshape,
    transpose,
)
from tf8.lax.core import apply1
from tf8.ops.definition import OpDefinition
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


def home_transpose(found: OpDefinition) -> TransposeRule | None:
    """The transpose rule of a primitive from its home, handed the rule kit as `lax`."""
    return None if found.transpose is None else functools.partial(found.transpose, rulekit)


for _found in PRIMITIVES.values():
    _rule = home_transpose(_found)
    if _rule is not None:
        TRANSPOSE_RULES[_found.name] = _rule
