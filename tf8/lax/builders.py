"""Same-shape op builders that libraries and AD rules are written in (rules read like math).

Operands of a rule already share shape and dtype, so these emit catalog primitives directly;
Python numbers become constants of the operand's dtype.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.lax.core import apply1
from tf8.lax.eager import fast_binary
from tf8.ops import dtypes as dt
from tf8.ops.primitive import Aval, ConstantValue, plain_primitive
from tf8.traced import TracedTensor

Tangent = TracedTensor | None  # None is the symbolic zero


def full(aval: Aval, value: Any) -> TracedTensor:
    """`value` broadcast to `aval` (a scalar constant + broadcast_in_dim)."""
    scalar = apply1("constant", [], value=ConstantValue(np.asarray(value, dtype=aval.dtype)))
    if aval.shape == ():
        return scalar
    return apply1("broadcast_in_dim", [scalar], shape=aval.shape, broadcast_dimensions=())


def zeros(aval: Aval) -> TracedTensor:
    return full(aval, 0)


def like(x: TracedTensor, value: Any) -> TracedTensor:
    return full(x.aval, value)


def _lift(x: Any, ref: TracedTensor) -> TracedTensor:
    return x if isinstance(x, TracedTensor) else like(ref, x)


def _binary(name: str):
    def fn(a: Any, b: Any) -> TracedTensor:
        ref = a if isinstance(a, TracedTensor) else b
        return apply1(name, [_lift(a, ref), _lift(b, ref)])

    return fn


# One-aval float operands (the rules of AD, mostly) take the eager fast path, on tapes too.
add, sub, mul, div = (
    fast_binary(plain_primitive(name, 2), None, _binary(name))
    for name in ("add", "sub", "mul", "div")
)
pow_ = _binary("pow")


def neg(x: TracedTensor) -> TracedTensor:
    return apply1("neg", [x])


def compare(a: Any, b: Any, direction: str) -> TracedTensor:
    ref = a if isinstance(a, TracedTensor) else b
    return apply1("compare", [_lift(a, ref), _lift(b, ref)], direction=direction)


def select(pred: TracedTensor, a: Any, b: Any) -> TracedTensor:
    ref = a if isinstance(a, TracedTensor) else b
    return apply1("select", [pred, _lift(a, ref), _lift(b, ref)])


def unary(name: str, x: TracedTensor) -> TracedTensor:
    return apply1(name, [x])


def convert(x: TracedTensor, dtype: np.dtype) -> TracedTensor:
    return x if x.dtype == dtype else apply1("convert", [x], dtype=dtype)


def conj(x: TracedTensor) -> TracedTensor:
    return apply1("conj", [x]) if dt.is_complex(x.dtype) else x


def real(x: TracedTensor) -> TracedTensor:
    return apply1("real", [x]) if dt.is_complex(x.dtype) else x


def reduce_sum(x: TracedTensor, axes: Sequence[int]) -> TracedTensor:
    return apply1("reduce_sum", [x], axes=tuple(axes)) if axes else x


def broadcast(x: TracedTensor, shape: Sequence[Any], dims: Sequence[int]) -> TracedTensor:
    if tuple(shape) == x.shape and tuple(dims) == tuple(range(x.ndim)):
        return x
    return apply1("broadcast_in_dim", [x], shape=tuple(shape), broadcast_dimensions=tuple(dims))


def reshape(x: TracedTensor, shape: Sequence[Any]) -> TracedTensor:
    return x if tuple(shape) == x.shape else apply1("reshape", [x], shape=tuple(shape))


def transpose(x: TracedTensor, perm: Sequence[int]) -> TracedTensor:
    if tuple(perm) == tuple(range(x.ndim)):
        return x
    return apply1("transpose", [x], permutation=tuple(perm))


def normalize_axes(axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    """Axis parameters (the catalog accepts negative ones) as indices in [0, ndim)."""
    return tuple(a % ndim if ndim else a for a in axes)


def add_any(a: Tangent, b: Tangent) -> Tangent:
    """Sum of two (co)tangents where None is a symbolic zero."""
    if a is None:
        return b
    if b is None:
        return a
    return apply1("add", [a, b])


def scale(t: Tangent, factor: Any) -> Tangent:
    """t * factor (factor a traced value or a number); zero stays symbolic."""
    return None if t is None else mul(t, factor)


def materialize(t: Tangent, aval: Aval) -> TracedTensor:
    return zeros(aval) if t is None else t
