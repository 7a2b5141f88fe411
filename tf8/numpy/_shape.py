"""numpy's shape manipulation (reshape, transpose, stack, ...) on traced values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tf8.errors import ShapeError
from tf8.ops.shapes import Dim, as_dim, dims_equal, shape_str
from tf8.traced import TracedTensor, apply1

from ._core import ArrayLike, asarray, normalize_axis, promote


def _size(shape: Sequence[Dim]) -> Dim:
    total: Dim = 1
    for d in shape:
        total = total * d
    return total


def reshape(a: ArrayLike, *shape: Any, order: str = "C") -> TracedTensor:
    """Row-major reshape; one dimension may be -1 (inferred)."""
    if order != "C":
        raise ShapeError(f"reshape: only order='C' is supported, got {order!r}")
    x = asarray(a)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    dims = [d if isinstance(d, int) and d == -1 else as_dim(d) for d in shape]
    if sum(1 for d in dims if isinstance(d, int) and d == -1) > 1:
        raise ShapeError(f"reshape: can only specify one unknown dimension, got {tuple(shape)}")
    if -1 in [d for d in dims if isinstance(d, int)]:
        known = _size([d for d in dims if not (isinstance(d, int) and d == -1)])
        total = _size(x.shape)
        inferred = total // known if known != 0 else 0
        if dims_equal(inferred * known, total) is False:
            raise ShapeError(
                f"cannot reshape array of shape {shape_str(x.shape)} into {tuple(shape)}"
            )
        dims = [inferred if isinstance(d, int) and d == -1 else d for d in dims]
    new = tuple(dims)
    if new == x.shape:
        return x
    return apply1("reshape", [x], shape=new)


def ravel(a: ArrayLike) -> TracedTensor:
    x = asarray(a)
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


def concatenate(arrays: Sequence[ArrayLike], axis: int | None = 0) -> TracedTensor:
    if isinstance(arrays, TracedTensor):
        arrays = list(arrays)
    if not arrays:
        raise ShapeError("need at least one array to concatenate")
    xs = promote(*arrays)
    if axis is None:
        xs, axis = [ravel(x) for x in xs], 0
    if xs[0].ndim == 0:
        raise ShapeError("zero-dimensional arrays cannot be concatenated")
    if len(xs) == 1:
        return xs[0]
    return apply1("concatenate", xs, axis=normalize_axis(axis, xs[0].ndim))


def stack(arrays: Sequence[ArrayLike], axis: int = 0) -> TracedTensor:
    if isinstance(arrays, TracedTensor):
        arrays = list(arrays)
    if not arrays:
        raise ShapeError("need at least one array to stack")
    xs = promote(*arrays)
    shapes = {x.shape for x in xs}
    if len(shapes) > 1:
        raise ShapeError(
            "all input arrays must have the same shape, got "
            + ", ".join(shape_str(s) for s in shapes)
        )
    ax = normalize_axis(axis, xs[0].ndim + 1)
    return concatenate([expand_dims(x, ax) for x in xs], axis=ax)


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
