"""tf8.numpy.linalg: the parts of numpy.linalg the catalog expresses (norm for now).

Matrix norms that need a decomposition (ord 2, -2, 'nuc') wait for the linalg extension
family and raise UnsupportedOperationError until then.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tf8.errors import ShapeError, UnsupportedOperationError
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from . import _reductions as r
from . import _ufuncs as u
from ._core import ArrayLike, asarray, astype, normalize_axis
from ._shape import expand_dims, ravel, reshape

__all__ = ["norm"]


def _sum_of_squares(x: TracedTensor, axes: tuple[int, ...], keepdims: bool) -> TracedTensor:
    if dt.is_complex(x.dtype):
        re, im = u.real(x), u.imag(x)
        return u.add(
            r.sum(u.multiply(re, re), axes, keepdims=keepdims),
            r.sum(u.multiply(im, im), axes, keepdims=keepdims),
        )
    return r.sum(u.multiply(x, x), axes, keepdims=keepdims)


def _vector_norm(x: TracedTensor, ord: Any, axis: int, keepdims: bool) -> TracedTensor:
    axes = (axis,)
    if ord is None or ord == 2:
        return u.sqrt(_sum_of_squares(x, axes, keepdims))
    if isinstance(ord, str):
        raise ShapeError(f"norm: invalid norm order {ord!r} for vectors")
    magnitude = u.absolute(x)
    if ord == math.inf:
        return r.max(magnitude, axes, keepdims)
    if ord == -math.inf:
        return r.min(magnitude, axes, keepdims)
    if ord == 0:
        return astype(r.sum(u.not_equal(x, 0), axes, keepdims=keepdims), magnitude.dtype)
    if ord == 1:
        return r.sum(magnitude, axes, keepdims=keepdims)
    powered = r.sum(u.power(magnitude, float(ord)), axes, keepdims=keepdims)
    return u.power(powered, 1.0 / float(ord))


def _matrix_norm(x: TracedTensor, ord: Any, axes: tuple[int, int], keepdims: bool) -> TracedTensor:
    row, col = axes
    if ord is None or ord == "fro":
        out = u.sqrt(_sum_of_squares(x, (row, col), keepdims=False))
    elif ord in (1, -1, math.inf, -math.inf):
        summed, other = (row, col) if ord in (1, -1) else (col, row)
        sums = r.sum(u.absolute(x), summed)
        other -= 1 if other > summed else 0
        pick = r.max if ord in (1, math.inf) else r.min
        out = pick(sums, other)
    elif ord in (2, -2, "nuc"):
        raise UnsupportedOperationError(
            f"norm: matrix norm ord={ord!r} needs singular values (the linalg extension)"
        )
    else:
        raise ShapeError(f"norm: invalid norm order {ord!r} for matrices")
    return expand_dims(out, tuple(sorted(axes))) if keepdims else out


def norm(
    x: ArrayLike, ord: Any = None, axis: int | Sequence[int] | None = None, keepdims: bool = False
) -> TracedTensor:
    """numpy.linalg.norm: vector norms (any ord) and matrix norms None/'fro'/1/-1/inf/-inf."""
    a = asarray(x)
    a = astype(a, dt.float_dtype(a.dtype))
    if axis is None:
        if ord is None:
            out = u.sqrt(_sum_of_squares(ravel(a), (0,), keepdims=False))
            return reshape(out, (1,) * a.ndim) if keepdims else out
        if a.ndim not in (1, 2):
            raise ShapeError(f"norm: improper number of dimensions to norm ({a.aval})")
        axis = tuple(range(a.ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(normalize_axis(ax, a.ndim) for ax in axes)
    if len(axes) == 1:
        return _vector_norm(a, ord, axes[0], keepdims)
    if len(axes) == 2:
        if axes[0] == axes[1]:
            raise ShapeError(f"norm: duplicate axes given ({axis})")
        return _matrix_norm(a, ord, (axes[0], axes[1]), keepdims)
    raise ShapeError(f"norm: improper number of dimensions to norm (axis={axis})")


def __getattr__(name: str) -> Any:
    """The decompositions (svd, qr, eigh, solve, ...) live in tf8.linalg; reach them here too."""
    import tf8.linalg

    if name in tf8.linalg.__all__:
        return getattr(tf8.linalg, name)
    raise AttributeError(f"module 'tf8.numpy.linalg' has no attribute {name!r}")
