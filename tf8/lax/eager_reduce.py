"""Eager fast paths for reductions and matrix products (see tf8/lax/eager.py): a float sum
over all axes, some axes, with or without keepdims, and 1-d/2-d `@`, op by op at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.ops.definition import PLANS
from tf8.ops.primitive import Aval, aval_of, make_primitive
from tf8.traced import TracedTensor, _symbolic, _tapes, _transform_depth

from .core import apply, write_down
from .eager import (
    FAST_DTYPES,
    cached,
    eager_array,
    eager_value,
    leaf,
    name_like,
    next_place,
    run_plan,
    ufunc_leaf,
)

__all__ = ["fast_matmul", "fast_reduction"]

_plan_of = PLANS.get
_depth, _symbolic_now, _tapes_now = _transform_depth.get, _symbolic.get, _tapes.get
_ndarray = np.ndarray


def fast_reduction(name: str, general: Callable[..., TracedTensor]) -> Callable:
    """`general(a, axis=None, dtype=None, keepdims=False)` (numpy's reduction signature) with
    the fast path for one concrete float tensor reduced over all axes, one axis or a tuple of
    them, with or without keepdims: the reduction's cached plan, then a reshape of the result
    where keepdims asks (numpy's keepdims inserts the same ones)."""
    place = next_place()  # the full reduction without keepdims: the cached plan on the aval
    ops: dict[Any, Any] = {}  # ndim -> full reduction; (ndim, axis) -> (primitive, axes)

    def fn(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> TracedTensor:
        if _depth():
            out = _reduce_on_tapes(ops, name, a, axis, dtype, keepdims)
            return general(a, axis, dtype, keepdims) if out is None else out
        found = eager_array(a) if dtype is None else None
        if found is not None:
            aval, value = found
            ndim = len(aval.shape)
            if axis is None and not keepdims and ndim:
                op = ops.get(ndim)
                if op is None:
                    op = ops.setdefault(ndim, make_primitive(name, 1, {"axes": (*range(ndim),)}))
                plan = cached(aval, place, (op, aval))
                if plan is not None:
                    return run_plan(plan, op, value)
            elif ndim and (type(axis) is int or type(axis) is tuple) and type(keepdims) is bool:
                op_axes = _reduction_op(ops, name, ndim, axis)
                if op_axes is not None:
                    op, axes = op_axes
                    plan = _plan_of((op, aval))
                    if plan:
                        out = run_plan(plan, op, value)
                        if not keepdims:
                            return out
                        kept = tuple([1 if i in axes else d for i, d in enumerate(aval.shape)])
                        return leaf(aval_of(kept, aval.dtype), out._value.reshape(kept))
        return general(a, axis, dtype, keepdims)

    name_like(fn, general)
    return fn


def _reduce_on_tapes(ops, name, a, axis, dtype, keepdims) -> TracedTensor | None:
    """On tapes: the reduction (and keepdims' reshape) the general path records, applied so
    the tapes write them down; None when the general path must run."""
    if (
        dtype is not None
        or type(a) is not TracedTensor
        or a._value is None
        or a._weak
        or a.aval.dtype not in FAST_DTYPES
        or type(keepdims) is not bool
        or _symbolic_now()
        or not _tapes_now()
    ):
        return None
    shape = a.aval.shape
    ndim = len(shape)
    if not ndim:
        return None
    op_axes = _reduction_op(ops, name, ndim, tuple(range(ndim)) if axis is None else axis)
    if op_axes is None:
        return None
    op, axes = op_axes
    out = apply(op, [a])[0]
    if not keepdims:
        return out
    kept = tuple([1 if i in axes else d for i, d in enumerate(shape)])
    return apply(make_primitive("reshape", 1, {"shape": kept}), [out])[0]


def _reduction_op(ops: dict, name: str, ndim: int, axis: Any) -> tuple | None:
    """The primitive reducing `axis` of an ndim-d value, with its axes normalised as the
    general path does (sorted, non-negative); None for an axis the general path must judge
    (out of range, repeated, empty, not ints)."""
    key = (ndim, axis)
    found = ops.get(key)
    if found is None:
        axes = (axis,) if type(axis) is int else axis
        if not axes or not all(type(i) is int and -ndim <= i < ndim for i in axes):
            return None
        axes = tuple(sorted(i % ndim for i in axes))
        if len(set(axes)) != len(axes):
            return None
        if len(ops) >= 256:  # bounded, as every cache is
            ops.clear()
        found = ops.setdefault(key, (make_primitive(name, 1, {"axes": axes}), axes))
    return found


def fast_matmul(general: Callable[[Any, Any], TracedTensor]) -> Callable:
    """`general(x, y)` (numpy's matmul) with the fast path for concrete float matrices and
    vectors of one dtype — a tensor and a tensor, or a tensor and a numpy array of its dtype:
    outside transforms `a @ b`, which is what the dot_general kernel computes for them; on
    tapes the dot_general the general path would record, from its cached plan."""
    shapes: dict[tuple, Aval | None] = {}  # the product's aval, by the operands' avals
    dots: dict[int, Any] = {}  # the dot_general matmul records, by the left operand's ndim

    def fn(x: Any, y: Any) -> TracedTensor:
        if _depth():
            out = _matmul_on_tapes(dots, x, y)
            return general(x, y) if out is None else out
        tx, ty = type(x), type(y)
        if tx is TracedTensor and eager_value(x):
            a, sa, dtype = x._value, x.aval, x.aval.dtype
            if ty is TracedTensor:
                b, sb = y._value, y.aval
                if not eager_value(y):
                    return general(x, y)
            elif ty is _ndarray:
                b, sb = y, (y.shape, y.dtype)
            else:
                return general(x, y)
        elif ty is TracedTensor and tx is _ndarray and eager_value(y):
            a, sa, b, sb, dtype = x, (x.shape, x.dtype), y._value, y.aval, y.aval.dtype
        else:
            return general(x, y)
        key = (sa, sb)
        out = shapes.get(key, False)
        if out is False:
            out = _product_aval(a, b, dtype)
            if len(shapes) >= 512:
                shapes.clear()
            shapes[key] = out
        if out is None:
            return general(x, y)
        return ufunc_leaf(np.matmul, out, a, b)

    name_like(fn, general)
    return fn


def _matmul_on_tapes(dots: dict, x: Any, y: Any) -> TracedTensor | None:
    """On tapes only: the dot_general the general path records for 1-d/2-d float operands of
    one dtype (one may be a numpy array), computed from its cached plan and written down by
    the tapes following an operand; None when the general path must run."""
    tapes = _tapes_now()
    if not tapes or _symbolic_now():
        return None
    xs, ys = _tape_operand(x), _tape_operand(y)
    if xs is None or ys is None or xs.aval.dtype != ys.aval.dtype or xs._weak or ys._weak:
        return None
    ndim = len(xs.aval.shape)
    if not (1 <= ndim <= 2 and 1 <= len(ys.aval.shape) <= 2):
        return None
    op = dots.get(ndim)
    if op is None:
        params = {"contracting": ((ndim - 1,), (0,)), "batch": ((), ())}
        op = dots.setdefault(ndim, make_primitive("dot_general", 2, params))
    plan = _plan_of((op, xs.aval, ys.aval))
    if not plan:
        return None
    out = run_plan(plan, op, xs._value, ys._value)
    if xs._node is not None or ys._node is not None:
        write_down(tapes, op, (xs, ys), [out])
    return out


def _tape_operand(v: Any) -> TracedTensor | None:
    """A concrete float operand as a TracedTensor: itself, or a numpy array copied (a tape
    keeps it for the backward pass: later writes to the caller's array must not reach it)."""
    if type(v) is TracedTensor:
        return v if v._value is not None and v.aval.dtype in FAST_DTYPES else None
    if type(v) is _ndarray and v.dtype in FAST_DTYPES:
        return leaf(aval_of(v.shape, v.dtype), v.copy())
    return None


def _product_aval(a: np.ndarray, b: np.ndarray, dtype: np.dtype) -> Aval | None:
    """The aval of `a @ b` for 1-d and 2-d operands of `dtype` whose inner sizes agree (None
    otherwise: the general path decides, and names any error)."""
    if a.dtype != dtype or b.dtype != dtype or not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        return None
    if a.shape[-1] != b.shape[0]:
        return None
    return aval_of(a.shape[:-1] + b.shape[1:], dtype)
