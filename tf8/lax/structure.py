"""JAX's `lax` reductions, contractions and axis insertion on tf8's primitives, with JAX's
checks and edge cases: `reduce_max` of an empty axis is its identity (-inf, an integer's
lowest value), bool operands reduce and contract as in JAX (through uint8 and int64), a
negative `argmax` axis is refused, and `preferred_element_type` contracts in that dtype.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import AxisError, DTypeError, ParameterError
from tf8.lax.builders import compare, full
from tf8.lax.core import apply1
from tf8.lax.ops import (
    _array,
    _operands,
    bitwise_or,
    concatenate,
    convert_element_type,
    reshape,
    shift_left,
    shift_right_logical,
)
from tf8.lax.ops import slice as slice_
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.traced import TracedTensor


def dot_general(
    lhs: Any,
    rhs: Any,
    dimension_numbers: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> TracedTensor:
    """lax.dot_general; `dimension_numbers` = ((lhs_contract, rhs_contract), (lhs_batch,
    rhs_batch)). `precision` is accepted and ignored (numpy computes at full precision); with
    `preferred_element_type` the operands are converted first, so float32 operands contract
    in float64 as JAX's CPU backend does. Bool operands give a bool (any of the products)."""
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise ParameterError(
            f"dot_general: dimension_numbers must be ((lhs_contract, rhs_contract), "
            f"(lhs_batch, rhs_batch)), got {dimension_numbers!r}"
        ) from None
    x, y = _operands(lhs, rhs, broadcast=False)
    if preferred_element_type is not None:
        dtype = dt.as_dtype(preferred_element_type)
        x, y = convert_element_type(x, dtype), convert_element_type(y, dtype)
    boolean = x.dtype == dt.bool_ and y.dtype == dt.bool_
    if boolean:
        x, y = convert_element_type(x, dt.int64), convert_element_type(y, dt.int64)
    out = apply1(
        "dot_general", [x, y], contracting=(tuple(lc), tuple(rc)), batch=(tuple(lb), tuple(rb))
    )
    return compare(out, 0, "ne") if boolean else out


def dot(
    lhs: Any, rhs: Any, precision: Any = None, preferred_element_type: Any = None
) -> TracedTensor:
    """lax.dot: vector·vector, matrix·vector or matrix·matrix."""
    x, y = _operands(lhs, rhs, broadcast=False)
    if x.ndim not in (1, 2) or y.ndim not in (1, 2):
        raise ParameterError(f"dot: needs 1-d or 2-d operands, got {x.aval} and {y.aval}")
    return dot_general(
        x, y, (((x.ndim - 1,), (0,)), ((), ())), preferred_element_type=preferred_element_type
    )


def _identity(name: str, dtype: np.dtype) -> Any:
    """The value reduce_max (reduce_min) gives an empty axis: the dtype's lowest (highest)."""
    lowest = name == "reduce_max"
    if dtype == dt.bool_:
        return not lowest
    if dt.is_integer(dtype):
        info = np.iinfo(dtype)
        return info.min if lowest else info.max
    return -np.inf if lowest else np.inf


def _reduction(name: str):
    extremum = name in ("reduce_max", "reduce_min")

    def fn(operand: Any, axes: Sequence[int]) -> TracedTensor:
        x, axes = _array(operand), tuple(axes)
        reduced = {a % x.ndim for a in axes if isinstance(a, int) and -x.ndim <= a < x.ndim}
        if extremum and any(x.shape[a] == 0 for a in reduced):  # JAX: the identity
            kept = tuple(d for i, d in enumerate(x.shape) if i not in reduced)
            return full(Aval(kept, x.dtype), _identity(name, x.dtype))
        if extremum and x.dtype == dt.bool_:  # max is any, min is all
            out = apply1(name, [convert_element_type(x, dt.uint8)], axes=axes)
            return convert_element_type(out, dt.bool_)
        return apply1(name, [x], axes=axes)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"lax.{name}(operand, axes)."
    return fn


reduce_sum, reduce_prod, reduce_max, reduce_min = (
    _reduction(n) for n in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min")
)


def _arg_reduction(name: str):
    def fn(operand: Any, axis: int, index_dtype: Any = "int64") -> TracedTensor:
        dtype = dt.as_dtype(index_dtype)
        if not dt.is_integer(dtype):
            raise DTypeError(f"{name}: index_dtype must be an integer dtype, got {dtype}")
        x = _array(operand)
        if not isinstance(axis, int) or not 0 <= axis < max(x.ndim, 1):  # JAX: no negatives
            raise AxisError(f"{name}: axis {axis} is out of range for {x.aval} (0 to ndim - 1)")
        if x.dtype == dt.bool_:
            x = convert_element_type(x, dt.uint8)
        return convert_element_type(apply1(name, [x], axis=axis), dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"lax.{name}(operand, axis, index_dtype): the index of the first extremum."
    return fn


argmax, argmin = _arg_reduction("argmax"), _arg_reduction("argmin")


def cumsum(operand: Any, axis: int = 0, reverse: bool = False) -> TracedTensor:
    """The running sum along `axis` (reversed with `reverse`); a 0-d operand has no axis."""
    x = _array(operand)
    if x.ndim == 0:
        raise AxisError(f"cumsum: a 0-d operand {x.aval} has no axis {axis}")
    return apply1("cumsum", [x], axis=axis, reverse=bool(reverse))


def expand_dims(operand: Any, dimensions: Sequence[int]) -> TracedTensor:
    """New axes of size 1 at `dimensions` (positions in the result, negative from its end)."""
    x = _array(operand)
    ndim = x.ndim + len(dimensions)
    if any(not -ndim <= d < ndim for d in dimensions):
        raise AxisError(f"expand_dims: dimensions {tuple(dimensions)} out of range for rank {ndim}")
    dims = sorted(d % ndim for d in dimensions)
    shape = list(x.shape)
    for d in dims:
        shape.insert(d, 1)
    return reshape(x, shape)


_UNSIGNED = {1: dt.uint8, 4: dt.uint32, 8: dt.int64}  # the words a bitcast splits into


def _bitcast(x: TracedTensor, dtype: np.dtype) -> TracedTensor:
    return apply1("bitcast_convert_type", [x], dtype=dtype)


def bitcast_convert_type(operand: Any, new_dtype: Any) -> TracedTensor:
    """Reinterpret the bits as `new_dtype` (integer or float). To a narrower dtype, each
    element becomes a new last axis of width-ratio words, low-order first (as JAX on a
    little-endian host); to a wider one, the last axis (of that ratio) joins into one."""
    x, dtype = _array(operand), dt.as_dtype(new_dtype)
    wide, narrow = x.dtype.itemsize, dtype.itemsize
    if wide == narrow or x.dtype == dt.bool_ or dtype == dt.bool_:
        return _bitcast(x, dtype)  # the primitive checks kinds and widths
    if wide > narrow and narrow in _UNSIGNED and wide in _UNSIGNED:
        bits, word = _bitcast(x, _UNSIGNED[wide]), _UNSIGNED[narrow]
        parts = [
            convert_element_type(shift_right_logical(bits, 8 * narrow * i), word)
            for i in range(wide // narrow)
        ]
        words = concatenate([reshape(p, (*x.shape, 1)) for p in parts], x.ndim)
        return _bitcast(words, dtype)
    if narrow > wide and narrow in _UNSIGNED and wide in _UNSIGNED:
        ratio = narrow // wide
        if not x.ndim or x.shape[-1] != ratio:
            raise DTypeError(
                f"bitcast_convert_type: {x.aval} to the wider {dtype} needs a last axis of "
                f"{ratio} (the width ratio)"
            )
        words, joined = _bitcast(x, _UNSIGNED[wide]), None
        lead = tuple(x.shape[:-1])
        for i in range(ratio):
            start, limit = (*(0,) * len(lead), i), (*lead, i + 1)
            word = convert_element_type(
                reshape(slice_(words, start, limit), lead), _UNSIGNED[narrow]
            )
            word = shift_left(word, 8 * wide * i) if i else word
            joined = word if joined is None else bitwise_or(joined, word)
        return _bitcast(joined, dtype)
    raise DTypeError(f"bitcast_convert_type: no bitcast from {x.dtype} to {dtype}")


__all__ = [
    "argmax",
    "bitcast_convert_type",
    "argmin",
    "cumsum",
    "dot",
    "dot_general",
    "expand_dims",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
]
