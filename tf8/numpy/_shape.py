"""numpy's shape manipulation (reshape, transpose, concatenate, ...) on traced values.

`stack` lives in _core, which lifts lists of traced values with it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ShapeError, UnsupportedOperationError
from tf8.lax.core import apply1
from tf8.ops.shapes import Dim, DimExpr, as_dim, dims_equal, shape_str
from tf8.traced import TracedTensor

from ._core import ArrayLike, asarray, astype, normalize_axis, promote


def _size(shape: Sequence[Dim]) -> Dim:
    total: Dim = 1
    for d in shape:
        total = total * d
    return total


def reshape(
    a: ArrayLike,
    shape: Any = None,
    *more: Any,
    order: str = "C",
    newshape: Any = None,
    copy: Any = None,
) -> TracedTensor:
    """Row-major reshape (column-major with order='F'); one dimension may be -1 (inferred,
    symbolically when needed).

    Also accepts the dims spread out (`reshape(x, 2, 3)`) and numpy's `newshape=` spelling.
    """
    if order not in ("C", "F"):
        raise UnsupportedOperationError(
            f"reshape: order must be 'C' or 'F' (as jax.numpy), got {order!r}"
        )
    x = asarray(a)
    if shape is None:
        shape = newshape
    if shape is None:
        raise ShapeError("reshape: missing the new shape")
    if more:
        shape = (shape, *more)
    if isinstance(shape, (int, np.integer, DimExpr, str)):
        shape = (shape,)
    if order == "F":  # column-major: reverse the axes on both sides of a row-major reshape
        return transpose(reshape(transpose(x), tuple(shape)[::-1]))
    dims = [d if _is_minus_one(d) else as_dim(d) for d in shape]
    unknown = [i for i, d in enumerate(dims) if _is_minus_one(d)]
    if len(unknown) > 1:
        raise ShapeError(f"reshape: can only specify one unknown dimension, got {tuple(shape)}")
    total = _size(x.shape)
    if unknown:
        known = _size([d for d in dims if not _is_minus_one(d)])
        inferred = total // known if dims_equal(known, 0) is not True else 0
        if dims_equal(known, 0) is True or dims_equal(inferred * known, total) is False:
            raise ShapeError(
                f"cannot reshape array of shape {shape_str(x.shape)} (size {total}) into shape "
                f"{tuple(shape)}"
            )
        dims[unknown[0]] = inferred
    new = tuple(dims)
    if dims_equal(_size(new), total) is False:
        raise ShapeError(
            f"cannot reshape array of shape {shape_str(x.shape)} (size {total}) into shape "
            f"{shape_str(new)}"
        )
    if new == x.shape:
        return x
    return apply1("reshape", [x], shape=new)


def _is_minus_one(d: Any) -> bool:
    return isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d == -1


def ravel(a: ArrayLike, order: str = "C") -> TracedTensor:
    """The elements in row-major order (column-major with order='F'), as a 1-D array."""
    if order not in ("C", "F"):
        raise UnsupportedOperationError(
            f"ravel: order must be 'C' or 'F' (as jax.numpy), got {order!r}"
        )
    x = asarray(a)
    if order == "F":
        x = transpose(x)
    return reshape(x, (_size(x.shape),)) if x.ndim != 1 else x


def transpose(a: ArrayLike, axes: Sequence[int] | None = None) -> TracedTensor:
    x = asarray(a)
    if axes is None:
        perm = tuple(reversed(range(x.ndim)))
    else:
        perm = tuple(normalize_axis(ax, x.ndim) for ax in axes)
        if sorted(perm) != list(range(x.ndim)):
            raise ShapeError(f"transpose: axes {tuple(axes)} don't match array of rank {x.ndim}")
    if perm == tuple(range(x.ndim)):
        return x
    return apply1("transpose", [x], permutation=perm)


def expand_dims(a: ArrayLike, axis: int | Sequence[int]) -> TracedTensor:
    x = asarray(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = x.ndim + len(axes)
    norm = sorted(normalize_axis(ax, ndim) for ax in axes)
    if len(set(norm)) != len(norm):
        raise ShapeError(f"expand_dims: repeated axis in {axes}")
    dims = iter(x.shape)
    shape = tuple(1 if i in norm else next(dims) for i in range(ndim))
    return reshape(x, shape)


def squeeze(a: ArrayLike, axis: int | Sequence[int] | None = None) -> TracedTensor:
    x = asarray(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if dims_equal(d, 1) is True)
    else:
        axes = tuple(
            normalize_axis(ax, x.ndim) for ax in ((axis,) if isinstance(axis, int) else axis)
        )
        for ax in axes:
            if dims_equal(x.shape[ax], 1) is not True:
                raise ShapeError(
                    f"squeeze: cannot select an axis to squeeze out which has size not equal to "
                    f"one (axis {ax} of {shape_str(x.shape)})"
                )
    return reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def concatenate(
    arrays: Sequence[ArrayLike], axis: int | None = 0, *, dtype: Any = None, casting: Any = None
) -> TracedTensor:
    """Join arrays along an existing axis (`axis=None` flattens them first)."""
    if isinstance(arrays, TracedTensor):
        arrays = list(arrays)
    if not arrays:
        raise ShapeError("need at least one array to concatenate")
    xs = promote(*[asarray(a) for a in arrays])
    if dtype is not None:
        xs = [astype(x, dtype) for x in xs]
    if axis is None:
        xs, axis = [ravel(x) for x in xs], 0
    if any(x.ndim == 0 for x in xs):
        raise ShapeError("zero-dimensional arrays cannot be concatenated")
    if any(x.ndim != xs[0].ndim for x in xs):
        raise ShapeError(
            "concatenate: all the input arrays must have the same number of dimensions, got "
            + ", ".join(str(x.aval) for x in xs)
        )
    if len(xs) == 1:
        return xs[0]
    return apply1("concatenate", xs, axis=normalize_axis(axis, xs[0].ndim))


def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> TracedTensor:
    x = asarray(a)
    perm = list(range(x.ndim))
    i, j = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(x, perm)


def moveaxis(
    a: ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]
) -> TracedTensor:
    x = asarray(a)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ShapeError("moveaxis: `source` and `destination` must have the same length")
    src = [normalize_axis(s, x.ndim) for s in src]
    dst = [normalize_axis(d, x.ndim) for d in dst]
    order = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, order)


def atleast_1d(*arys: ArrayLike) -> Any:
    """Each input with at least one axis (a list when several are given)."""
    return _atleast(arys, lambda x: reshape(x, (1,)) if x.ndim == 0 else x)


def atleast_2d(*arys: ArrayLike) -> Any:
    """Each input with at least two axes (1-D rows become (1, n))."""
    return _atleast(arys, lambda x: reshape(x, (1,) * (2 - x.ndim) + x.shape) if x.ndim < 2 else x)


def _to_3d(x: TracedTensor) -> TracedTensor:
    if x.ndim == 0:
        return reshape(x, (1, 1, 1))
    if x.ndim == 1:
        return reshape(x, (1, x.shape[0], 1))
    if x.ndim == 2:
        return reshape(x, x.shape + (1,))
    return x


def atleast_3d(*arys: ArrayLike) -> Any:
    """Each input with at least three axes (numpy's placement of the new axes)."""
    return _atleast(arys, _to_3d)


def _atleast(arys: Sequence[ArrayLike], fn: Any) -> Any:
    out = [fn(asarray(a)) for a in arys]
    return out[0] if len(out) == 1 else out
