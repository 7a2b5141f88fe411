"""Joining and splitting: hstack, vstack, dstack, column_stack, split, array_split, ..."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ShapeError
from tf8.ops.shapes import Dim, dim_min, dims_equal, shape_str
from tf8.traced import TracedTensor

from ._core import ArrayLike, asarray, normalize_axis
from ._shape import atleast_1d, atleast_2d, atleast_3d, concatenate, reshape
from ._slicing import AxisSlice, apply_slices, slice_axis


def _arrays(tup: Sequence[ArrayLike], what: str) -> list[TracedTensor]:
    if isinstance(tup, TracedTensor):
        tup = list(tup)
    if not len(tup):
        raise ShapeError(f"{what}: need at least one array to join")
    return [asarray(a) for a in tup]


def hstack(tup: Sequence[ArrayLike], *, dtype: Any = None) -> TracedTensor:
    """Join along axis 1 (axis 0 for 1-D inputs)."""
    xs = [atleast_1d(x) for x in _arrays(tup, "hstack")]
    return concatenate(xs, axis=0 if xs[0].ndim == 1 else 1, dtype=dtype)


def vstack(tup: Sequence[ArrayLike], *, dtype: Any = None) -> TracedTensor:
    """Join along axis 0, 1-D inputs as rows."""
    return concatenate([atleast_2d(x) for x in _arrays(tup, "vstack")], axis=0, dtype=dtype)


row_stack = vstack


def dstack(tup: Sequence[ArrayLike], *, dtype: Any = None) -> TracedTensor:
    """Join along axis 2 (depth)."""
    return concatenate([atleast_3d(x) for x in _arrays(tup, "dstack")], axis=2, dtype=dtype)


def column_stack(tup: Sequence[ArrayLike]) -> TracedTensor:
    """1-D inputs become columns; join along axis 1."""
    xs = _arrays(tup, "column_stack")
    cols = [reshape(x, (x.shape[0], 1)) if x.ndim == 1 else atleast_2d(x) for x in xs]
    return concatenate(cols, axis=1)


def _pieces(x: TracedTensor, axis: int, bounds: list[tuple[Any, Any]]) -> list[TracedTensor]:
    return [slice_axis(x, axis, slice(lo, hi)) for lo, hi in bounds]


def _section_bounds(n: Dim, sections: int) -> list[tuple[Dim, Dim]]:
    """numpy.array_split's cut points: the first n % k pieces get one extra element."""
    each, extras = n // sections, n % sections
    starts = [i * each + dim_min(i, extras) for i in range(sections + 1)]
    return list(zip(starts[:-1], starts[1:]))


def array_split(ary: ArrayLike, indices_or_sections: Any, axis: int = 0) -> list[TracedTensor]:
    """Split into pieces along `axis`; a count need not divide the axis evenly."""
    x = asarray(ary)
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ShapeError(
                f"array_split: number of sections must be larger than 0, got {sections}"
            )
        return [_exact_slice(x, axis, lo, hi) for lo, hi in _section_bounds(n, sections)]
    cuts = [int(i) for i in indices_or_sections]
    edges = [0, *cuts, None]
    return _pieces(x, axis, list(zip(edges[:-1], edges[1:])))


def _exact_slice(x: TracedTensor, axis: int, lo: Dim, hi: Dim) -> TracedTensor:
    """`x` between two in-range cut points along `axis` (no clamping needed)."""
    slices = [AxisSlice(0, d, 1) for d in x.shape]
    slices[axis] = AxisSlice(lo, hi, 1)
    return apply_slices(x, slices)


def split(ary: ArrayLike, indices_or_sections: Any, axis: int = 0) -> list[TracedTensor]:
    """Split into equal pieces (a count must divide the axis: checked at run time if symbolic)."""
    x = asarray(ary)
    ax = normalize_axis(axis, x.ndim)
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        n = x.shape[ax]
        if sections <= 0:
            raise ShapeError(f"split: number of sections must be larger than 0, got {sections}")
        each = n // sections
        if dims_equal(each * sections, n) is False:
            raise ShapeError(
                f"array split does not result in an equal division: axis {ax} of "
                f"{shape_str(x.shape)} into {sections} sections"
            )
        # A symbolic axis: reshape to (sections * each) so a run-time guard checks divisibility.
        x = reshape(x, x.shape[:ax] + (each * sections,) + x.shape[ax + 1 :])
        return [_exact_slice(x, ax, i * each, (i + 1) * each) for i in range(sections)]
    return array_split(x, indices_or_sections, ax)


def hsplit(ary: ArrayLike, indices_or_sections: Any) -> list[TracedTensor]:
    """split along axis 1 (axis 0 for 1-D input)."""
    x = asarray(ary)
    if x.ndim == 0:
        raise ShapeError("hsplit only works on arrays of 1 or more dimensions")
    return split(x, indices_or_sections, 1 if x.ndim > 1 else 0)


def vsplit(ary: ArrayLike, indices_or_sections: Any) -> list[TracedTensor]:
    """split along axis 0 (a 1-D array too, as jax.numpy)."""
    x = asarray(ary)
    if x.ndim == 0:
        raise ShapeError(f"vsplit only works on arrays of 1 or more dimensions, got {x.aval}")
    return split(x, indices_or_sections, 0)


def dsplit(ary: ArrayLike, indices_or_sections: Any) -> list[TracedTensor]:
    """split along axis 2 (needs at least 3 axes)."""
    x = asarray(ary)
    if x.ndim < 3:
        raise ShapeError(f"dsplit only works on arrays of 3 or more dimensions, got {x.aval}")
    return split(x, indices_or_sections, 2)
