"""Diagonal and triangle rows: extract_diag, embed_diag, tril and triu, on the last two axes
(batched over the leading ones).

Each row sits with its numpy kernel, shape rule, transpose rule (they are linear: their JVP
is the op on the tangents), batching rule and the lazy kernel the Dask engine runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ShapeError
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define
from tf8.ops.fusion import Fusion
from tf8.ops.shape_checks import Guards, require_equal
from tf8.ops.shapes import Dim, shape_str

from .common import transpose_each

_S, _P = Category.STRUCTURAL, DTypePolicy


def _matrix_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    if len(shape) < 2:
        raise ShapeError(f"{op.name}: needs at least 2 axes, got {shape_str(shape)}")
    return shape


def _extract_diag_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = _matrix_shape(op, avals, guards)
    require_equal(op, shape[-2], shape[-1], f"square matrix, got {shape_str(shape)}", guards)
    return shape[:-1]


def _embed_diag_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    if not shape:
        raise ShapeError(f"{op.name}: needs at least 1 axis, got a scalar")
    return shape + shape[-1:]


def _embed_diag(op: Any, x: np.ndarray) -> np.ndarray:
    n = x.shape[-1]
    out = np.zeros(x.shape + (n,), dtype=x.dtype)
    idx = np.arange(n)
    out[..., idx, idx] = x
    return out


def _embed_diag_dask(kit: Any, op: Any, x: Any) -> Any:
    """(..., n) → (..., n, n): x[..., j] where row == column j, zero elsewhere."""
    da, x = kit.array, kit.as_dask(x)
    n = x.shape[-1]
    eye = da.eye(n, chunks=max(n, 1), dtype=bool) if n else np.zeros((0, 0), bool)
    return da.where(eye, x[..., None, :], da.zeros((), dtype=x.dtype))


def _trailing(count: int) -> Any:
    """Batching of ops on the last `count` axes (matrices, diagonals) that keep the leading
    axes: the batch axis stays where it is unless it sits among those trailing axes."""

    def rule(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
        (x,), (d,) = args, dims
        if d > x.ndim - 1 - count:
            x, d = lax.moveaxis(x, d, 0), 0
        return [lax.apply(op, [x])[0]], [d]

    return rule


def _same_k(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list:
    """tril/triu are their own transpose (a mask)."""
    return [lax.apply1(op.name, [ct], k=op["k"])]


def _triangle(name: str, doc: str, kernel: Any, keep: Any) -> OpDefinition:
    """`keep(m, n, k)`: the mask of the kept elements of an (m, n) matrix; the Dask engine
    selects against it (batched over the leading axes)."""

    def lazy(kit: Any, op: Any, x: Any) -> Any:
        x = kit.as_dask(x)
        mask = keep(*x.shape[-2:], op["k"])
        return kit.array.where(mask, x, kit.array.zeros((), dtype=x.dtype))

    return define(
        Row(name, _S, _P.SAME_ANY, 1, 1, ("k",), linear=True, doc=doc, defaults=(("k", 0),)),
        kernel=lambda op, x: kernel(x, op["k"]),
        shape=_matrix_shape,
        transpose=_same_k,
        batch=_trailing(2),
        fusion=Fusion(dask=lazy),
    )


DEFINITIONS: tuple[OpDefinition, ...] = (
    define(
        Row(
            "extract_diag", _S, _P.SAME_ANY, 1, 1, linear=True, doc="diagonal of the last two axes"
        ),
        kernel=lambda op, x: np.diagonal(x, axis1=-2, axis2=-1).copy(),
        shape=_extract_diag_shape,
        transpose=transpose_each(lambda lax, ct, x: lax.apply1("embed_diag", [ct])),
        batch=_trailing(2),
        fusion=Fusion(
            dask=lambda kit, op, x: kit.array.diagonal(kit.as_dask(x), axis1=-2, axis2=-1)
        ),
    ),
    define(
        Row("embed_diag", _S, _P.SAME_ANY, 1, 1, linear=True, doc="last axis onto a diagonal"),
        kernel=_embed_diag,
        shape=_embed_diag_shape,
        transpose=transpose_each(lambda lax, ct, x: lax.apply1("extract_diag", [ct])),
        batch=_trailing(1),
        fusion=Fusion(dask=_embed_diag_dask),
    ),
    _triangle(
        "tril",
        "lower triangle (last two axes)",
        np.tril,
        lambda m, n, k: np.tri(m, n, k, dtype=bool),
    ),
    _triangle(
        "triu",
        "upper triangle (last two axes)",
        np.triu,
        lambda m, n, k: ~np.tri(m, n, k - 1, dtype=bool),
    ),
)
