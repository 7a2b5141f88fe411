"""numpy's index helpers: r_, c_, ix_, diag_indices, tril_indices, triu_indices (and their
`_from` forms), einsum_path. Index arrays are int64 constants, as JAX returns arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import ShapeError, UnsupportedOperationError
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._core import ArrayLike, asarray, constant, promote
from ._creation import arange, linspace
from ._nonzero import nonzero
from ._shape import concatenate, reshape, transpose


class AxisConcatenator:
    """`r_[...]` / `c_[...]`: slices become aranges (a complex step `n*1j` a linspace of n
    points), scalars and arrays are raised to `ndmin` axes, all joined along `axis`. A leading
    string "axis[,ndmin[,trans1d]]" changes those; the matrix directives 'r'/'c' are numpy's
    deprecated matrix class and are not supported."""

    def __init__(self, axis: int, ndmin: int, trans1d: int) -> None:
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key: Any) -> TracedTensor:
        items = list(key) if isinstance(key, tuple) else [key]
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        if items and isinstance(items[0], str):
            settings = items.pop(0)
            if settings in ("r", "c"):
                raise UnsupportedOperationError(f"r_/c_: the matrix directive {settings!r}")
            parts = [int(p) for p in settings.split(",")]
            axis = parts[0]
            ndmin = parts[1] if len(parts) > 1 else ndmin
            trans1d = parts[2] if len(parts) > 2 else trans1d
        pieces = [self._piece(item, ndmin, trans1d) for item in items]
        if not pieces:
            return constant(np.zeros(0))
        return concatenate(promote(*pieces), axis=axis)

    def __len__(self) -> int:
        return 0

    @staticmethod
    def _piece(item: Any, ndmin: int, trans1d: int) -> TracedTensor:
        if isinstance(item, slice):
            out = _slice_range(item)
            if ndmin > 1:
                out = reshape(out, (1,) * (ndmin - 1) + out.shape)
                if trans1d != -1:
                    axes = list(range(ndmin))
                    axes[-1], axes[trans1d] = axes[trans1d], axes[-1]
                    out = transpose(out, axes)
            return out
        out = asarray(item)
        item_ndim = out.ndim
        if item_ndim < ndmin:
            out = reshape(out, (1,) * (ndmin - item_ndim) + out.shape)
            if trans1d != -1 and item_ndim > 0:
                k2 = ndmin - item_ndim
                k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
                order = list(range(ndmin))
                out = transpose(out, order[:k1] + order[k2:] + order[k1:k2])
        return out


def _slice_range(item: slice) -> TracedTensor:
    start = 0 if item.start is None else item.start
    step = 1 if item.step is None else item.step
    if isinstance(step, complex):
        return linspace(start, item.stop, int(abs(step)))
    return arange(start, item.stop, step)


r_ = AxisConcatenator(0, 1, -1)
c_ = AxisConcatenator(-1, 2, 0)


def ix_(*args: ArrayLike) -> tuple[TracedTensor, ...]:
    """An open mesh from 1-D sequences: argument k gets shape (1, …, n_k, …, 1); a boolean one
    stands for its nonzero indices."""
    out = []
    for k, arg in enumerate(args):
        x = asarray(arg)
        if x.ndim != 1:
            raise ShapeError(f"ix_: cross index must be 1 dimensional, got {x.shape}")
        if x.dtype == dt.bool_:
            (x,) = nonzero(x)
        elif x.shape == (0,):
            x = x.astype(dt.index_dtype())
        out.append(reshape(x, (1,) * k + x.shape + (1,) * (len(args) - k - 1)))
    return tuple(out)


def _indices(pair: tuple[np.ndarray, ...]) -> tuple[TracedTensor, ...]:
    return tuple(constant(i.astype(np.int64)) for i in pair)


def diag_indices(n: int, ndim: int = 2) -> tuple[TracedTensor, ...]:
    """The indices of the main diagonal of an n × … × n array of `ndim` axes."""
    return _indices(np.diag_indices(int(n), ndim))


def diag_indices_from(arr: ArrayLike) -> tuple[TracedTensor, ...]:
    """diag_indices for `arr`, whose axes must all have one length."""
    shape = asarray(arr).shape
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ShapeError(f"diag_indices_from: all dimensions of input must be equal, got {shape}")
    return diag_indices(shape[0], len(shape))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[TracedTensor, ...]:
    """The (row, column) indices of the lower triangle of an n × m matrix, below diagonal k."""
    return _indices(np.tril_indices(int(n), int(k), None if m is None else int(m)))


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[TracedTensor, ...]:
    """The (row, column) indices of the upper triangle of an n × m matrix, above diagonal k."""
    return _indices(np.triu_indices(int(n), int(k), None if m is None else int(m)))


def _matrix_shape(name: str, arr: ArrayLike) -> tuple[int, int]:
    shape = asarray(arr).shape
    if len(shape) != 2:
        raise ShapeError(f"{name}: input array must be 2-d, got shape {shape}")
    return shape[0], shape[1]


def tril_indices_from(arr: ArrayLike, k: int = 0) -> tuple[TracedTensor, ...]:
    """tril_indices for the shape of the 2-D `arr`."""
    n, m = _matrix_shape("tril_indices_from", arr)
    return tril_indices(n, k, m)


def triu_indices_from(arr: ArrayLike, k: int = 0) -> tuple[TracedTensor, ...]:
    """triu_indices for the shape of the 2-D `arr`."""
    n, m = _matrix_shape("triu_indices_from", arr)
    return triu_indices(n, k, m)


def einsum_path(subscripts: str, *operands: ArrayLike, optimize: Any = "greedy") -> Any:
    """numpy.einsum_path on the operands' shapes: (path, printable report), the path a list of
    contracted pairs without numpy's leading 'einsum_path' marker (as jax.numpy's). Only
    shapes are read, so traced operands work; tf8's einsum chooses its own order."""
    shapes = [asarray(op).shape for op in operands]
    for shape in shapes:
        if not all(isinstance(d, int) for d in shape):
            raise ShapeError(f"einsum_path: needs concrete shapes, got {shape}")
    stand_ins = [
        np.broadcast_to(np.zeros((), asarray(op).dtype), s) for op, s in zip(operands, shapes)
    ]
    path, report = np.einsum_path(subscripts, *stand_ins, optimize=optimize)
    return [step for step in path if not isinstance(step, str)], report  # JAX: no marker
