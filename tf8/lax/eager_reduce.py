"""Eager fast paths for reductions and matrix products (see tf8/lax/eager.py): a float sum
over all axes, some axes, with or without keepdims, and 1-d/2-d `@`, op by op at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.ops.fpstate import quiet_numpy
from tf8.ops.frames import frame_var
from tf8.ops.primitive import Aval, aval_of, make_primitive
from tf8.ops.primitives import primitive_definition
from tf8.ops.primitives.contraction import plain_matmul
from tf8.traced import TracedTensor

from .core import apply, leaf
from .eager import (
    FAST_DTYPES,
    eager_array,
    eager_value,
    name_like,
    on_tapes,
    taped_value,
    ufunc_leaf,
)

__all__ = ["fast_matmul", "fast_reduction"]

_AXES = (int, tuple)  # the axis types the fast path reads (others: the general path judges)
_frame = frame_var.get  # None outside every transform
_ndarray = np.ndarray


def fast_reduction(name: str, general: Callable[..., TracedTensor]) -> Callable:
    """`general(a, axis=None, dtype=None, keepdims=False)` (numpy's reduction signature) with
    the fast path for one concrete float tensor (or numpy float array) reduced over all axes,
    one axis or a tuple of them, with or without keepdims: outside transforms numpy's
    reduction at once (on floats, what the kernel computes); on tapes the reduction and
    keepdims' reshape are applied, so the tapes write them down."""
    ops: dict[tuple, tuple] = {}  # (ndim, axis) -> (primitive, normalised axes)
    done: dict[tuple, tuple] = {}  # (aval, axis, keepdims) -> (axes, the result's aval)
    reduce = primitive_definition(name).fusion.reduce[0].reduce  # type: ignore[index]

    def fn(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> TracedTensor:
        if dtype is None and type(keepdims) is bool and (axis is None or type(axis) in _AXES):
            if _frame() is None:
                found = eager_array(a)
                if found is not None:
                    out = _reduce_now(done, ops, name, reduce, *found, axis, keepdims)
                    if out is not None:
                        return out
            elif type(a) is TracedTensor and taped_value(a):
                out = _reduce_on_tapes(ops, name, a, axis, keepdims)
                if out is not None:
                    return out
        return general(a, axis, dtype, keepdims)

    name_like(fn, general)
    return fn


def _reduce_now(done, ops, name, reduce, aval, value, axis, keepdims) -> TracedTensor | None:
    """Outside transforms: numpy's reduction of `value` (`reduce`, the `ufunc.reduce` of the
    primitive's fusion facts: on floats, what the kernel computes) as a leaf of the reduced
    aval, kept per (aval, axis, keepdims) in `done`; None when the axis is for the general
    path to judge."""
    key = (aval, axis, keepdims)
    found = done.get(key)
    if found is None:
        op_axes = _reduction_op(ops, name, aval.shape, axis)
        if op_axes is None:
            return None
        axes = op_axes[1]
        if keepdims:
            shape = _kept(aval.shape, axes)
        else:
            shape = tuple([d for i, d in enumerate(aval.shape) if i not in axes])
        found = (axes, aval_of(shape, aval.dtype))
        if len(done) >= 512:  # bounded, as every cache is
            done.clear()
        done[key] = found
    return leaf(found[1], quiet_numpy(reduce, value, found[0], None, None, keepdims))


def _reduce_on_tapes(ops, name, a, axis, keepdims) -> TracedTensor | None:
    """On tapes: the reduction (and keepdims' reshape) the general path records, applied so
    the tapes write them down; None when the general path must run."""
    op_axes = _reduction_op(ops, name, a.aval.shape, axis)
    if op_axes is None:
        return None
    op, axes = op_axes
    out = apply(op, [a])[0]
    if not keepdims:
        return out
    kept = _kept(a.aval.shape, axes)
    return apply(make_primitive("reshape", 1, {"shape": kept}), [out])[0]


def _kept(shape: tuple, axes: tuple[int, ...]) -> tuple:
    """`shape` with the reduced axes kept as ones (keepdims)."""
    return tuple([1 if i in axes else d for i, d in enumerate(shape)])


def _reduction_op(ops: dict, name: str, shape: tuple, axis: Any) -> tuple | None:
    """The primitive reducing `axis` (None: every axis) of a value of `shape`, with its axes
    normalised as the general path does (sorted, non-negative); None for what the general
    path must judge (a 0-d value, an axis out of range, repeated, empty or not an int)."""
    ndim = len(shape)
    key = (ndim, axis)
    found = ops.get(key)
    if found is None:
        axes = tuple(range(ndim)) if axis is None else (axis,) if type(axis) is int else axis
        if type(axes) is not tuple or not axes:
            return None
        if not all(type(i) is int and -ndim <= i < ndim for i in axes):
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
    tapes the dot_general the general path would record."""
    shapes: dict[tuple, Aval | None] = {}  # the product's aval, by the operands' avals

    def fn(x: Any, y: Any) -> TracedTensor:
        if _frame() is not None:
            out = _matmul_on_tapes(x, y)
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


def _matmul_on_tapes(x: Any, y: Any) -> TracedTensor | None:
    """On tapes: the dot_general the general path records for 1-d/2-d float operands of one
    dtype whose inner sizes agree (one may be a numpy array), applied so the tapes following
    an operand write it down; None when the general path must run."""
    xs, ys = _tape_operand(x), _tape_operand(y)
    if xs is None or ys is None or xs.aval.dtype != ys.aval.dtype:
        return None
    xshape, yshape = xs.aval.shape, ys.aval.shape
    ndim = len(xshape)
    if not (1 <= ndim <= 2 and 1 <= len(yshape) <= 2) or xshape[-1] != yshape[0]:
        return None
    return apply(_numpy_matmul(ndim), [xs, ys])[0]


_MATMULS: dict[int, Any] = {}


def _numpy_matmul(ndim: int) -> Any:
    """The dot_general tf8.numpy's `matmul` records for a left operand of rank 1 or 2 (its
    last axis against the right operand's first)."""
    op = _MATMULS.get(ndim)
    if op is None:
        params = {"contracting": ((ndim - 1,), (0,)), "batch": ((), ())}
        op = _MATMULS.setdefault(ndim, make_primitive("dot_general", 2, params))
    return op


def _tape_operand(v: Any) -> TracedTensor | None:
    """A `taped_value` operand: itself, or a numpy float array copied (a tape keeps it for
    the backward pass: later writes to the caller's array must not reach it)."""
    if type(v) is TracedTensor:
        return v if taped_value(v) else None
    if type(v) is _ndarray and v.dtype in FAST_DTYPES and on_tapes():
        return leaf(aval_of(v.shape, v.dtype), v.copy())
    return None


def _product_aval(a: np.ndarray, b: np.ndarray, dtype: np.dtype) -> Aval | None:
    """The aval of `a @ b` for operands of `dtype` whose inner sizes agree, where the
    dot_general the general path records for them is a plain matmul (its home says so: 1-d
    and 2-d operands); None otherwise: the general path decides, and names any error."""
    if a.dtype != dtype or b.dtype != dtype or not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        return None
    if plain_matmul(_numpy_matmul(a.ndim), (a.ndim, b.ndim)) != (False, False):
        return None
    if a.shape[-1] != b.shape[0]:
        return None
    return aval_of(a.shape[:-1] + b.shape[1:], dtype)
