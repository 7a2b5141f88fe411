"""Products: matmul, dot, tensordot, ... lowered to dot_general."""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import ShapeError
from tf8.lax.core import apply1
from tf8.lax.eager_reduce import fast_matmul
from tf8.ops import dtypes as dt
from tf8.ops.shapes import dims_equal, shape_str
from tf8.traced import TracedTensor

from ._arithmetic import conjugate, multiply
from ._core import (
    ArrayLike,
    asarray,
    astype,
    broadcast_shapes,
    broadcast_to,
    normalize_axis,
    promote,
)
from ._logic import greater, not_equal
from ._reductions import sum as sum_
from ._shape import expand_dims, ravel, reshape, squeeze


def _check_contracted(name: str, a: TracedTensor, b: TracedTensor, ax: int, bx: int) -> None:
    if dims_equal(a.shape[ax], b.shape[bx]) is False:
        raise ShapeError(
            f"{name}: mismatch in the contracted dimension: {shape_str(a.shape)} and "
            f"{shape_str(b.shape)} ({a.shape[ax]} != {b.shape[bx]})"
        )


def matmul(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """numpy.matmul: 1-D operands are promoted to matrices, leading axes broadcast."""
    a, b = promote(x1, x2)
    if a.dtype == dt.bool_:  # a boolean product: any(a_ik and b_kj)
        return greater(matmul(astype(a, dt.int64), astype(b, dt.int64)), 0)
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError(
            f"matmul: input operand does not have enough dimensions (0-d): {a.aval} @ {b.aval}"
        )
    # No batch axes: one dot_general gives numpy's result (a vector operand stays a vector).
    if a.ndim <= 2 and b.ndim <= 2:
        _check_contracted("matmul", a, b, a.ndim - 1, 0 if b.ndim == 1 else b.ndim - 2)
        return apply1("dot_general", [a, b], contracting=((a.ndim - 1,), (0,)), batch=((), ()))
    vec_a, vec_b = a.ndim == 1, b.ndim == 1
    _check_contracted("matmul", a, b, a.ndim - 1, 0 if vec_b else b.ndim - 2)  # as given
    if vec_a:
        a = expand_dims(a, 0)
    if vec_b:
        b = expand_dims(b, 1)
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = broadcast_to(a, batch + a.shape[-2:])
    b = broadcast_to(b, batch + b.shape[-2:])
    nb = len(batch)
    out = apply1(
        "dot_general",
        [a, b],
        contracting=((nb + 1,), (nb,)),
        batch=(tuple(range(nb)), tuple(range(nb))),
    )
    if vec_a and vec_b:
        return squeeze(out, (-2, -1))
    if vec_a:
        return squeeze(out, -2)
    if vec_b:
        return squeeze(out, -1)
    return out


matmul = fast_matmul(matmul)  # matrices and vectors op by op: `a @ b` at once


def dot(a: ArrayLike, b: ArrayLike) -> TracedTensor:
    """numpy.dot: sum over the last axis of a and the second-to-last of b; on bools, whether
    any product is True (a bool, as JAX's and numpy's)."""
    x, y = promote(a, b)
    if x.dtype == dt.bool_:
        counts = dot(astype(x, dt.int32), astype(y, dt.int32))
        return not_equal(counts, 0)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    by = 0 if y.ndim == 1 else y.ndim - 2
    _check_contracted("dot", x, y, x.ndim - 1, by)
    return apply1("dot_general", [x, y], contracting=((x.ndim - 1,), (by,)), batch=((), ()))


def tensordot(a: ArrayLike, b: ArrayLike, axes: Any = 2) -> TracedTensor:
    """Sum products over `axes` (an int: a's last N with b's first N; or two axis lists)."""
    x, y = promote(a, b)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > x.ndim or n > y.ndim:
            raise ShapeError(f"tensordot: axes={n} does not fit {x.aval} and {y.aval}")
        ax, bx = list(range(x.ndim - n, x.ndim)), list(range(n))
    else:
        try:
            ax_, bx_ = axes
        except (TypeError, ValueError):
            raise ShapeError(f"tensordot: axes must be an int or a pair, got {axes!r}") from None
        ax = [ax_] if isinstance(ax_, (int, np.integer)) else list(ax_)
        bx = [bx_] if isinstance(bx_, (int, np.integer)) else list(bx_)
        if len(ax) != len(bx):
            raise ShapeError(f"tensordot: shape-mismatch for sum: axes {axes!r}")
        ax = [normalize_axis(i, x.ndim) for i in ax]
        bx = [normalize_axis(i, y.ndim) for i in bx]
    for i, j in zip(ax, bx):
        _check_contracted("tensordot", x, y, i, j)
    return apply1("dot_general", [x, y], contracting=(tuple(ax), tuple(bx)), batch=((), ()))


def inner(a: ArrayLike, b: ArrayLike) -> TracedTensor:
    """Sum products over the last axes of a and b (a product for scalars)."""
    x, y = promote(a, b)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    _check_contracted("inner", x, y, x.ndim - 1, y.ndim - 1)
    return apply1("dot_general", [x, y], contracting=((x.ndim - 1,), (y.ndim - 1,)), batch=((), ()))


def outer(a: ArrayLike, b: ArrayLike) -> TracedTensor:
    """a[i] * b[j] over the flattened inputs."""
    x, y = ravel(asarray(a)), ravel(asarray(b))
    return multiply(reshape(x, (x.shape[0], 1)), reshape(y, (1, y.shape[0])))


def vdot(a: ArrayLike, b: ArrayLike) -> TracedTensor:
    """sum(conj(a) * b) over the flattened inputs."""
    x, y = promote(a, b)
    x, y = ravel(conjugate(x)), ravel(y)
    if dims_equal(x.shape[0], y.shape[0]) is False:
        raise ShapeError(f"vdot: vectors have different lengths: {x.aval} and {y.aval}")
    return apply1("dot_general", [x, y], contracting=((0,), (0,)), batch=((), ()))


def kron(a: ArrayLike, b: ArrayLike) -> TracedTensor:
    """Kronecker product: blocks a[i, j] * b (broadcast multiply + reshape)."""
    x, y = promote(a, b)
    ndim = max(x.ndim, y.ndim)
    x = reshape(x, (1,) * (ndim - x.ndim) + x.shape)
    y = reshape(y, (1,) * (ndim - y.ndim) + y.shape)
    xs = reshape(x, tuple(d for dim in x.shape for d in (dim, 1)))
    ys = reshape(y, tuple(d for dim in y.shape for d in (1, dim)))
    return reshape(multiply(xs, ys), tuple(p * q for p, q in zip(x.shape, y.shape)))


def vecdot(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> TracedTensor:
    """sum(conj(x1) * x2) over `axis`, broadcasting the other axes (numpy 2's vecdot)."""
    x, y = promote(x1, x2)
    return sum_(multiply(conjugate(x), y), axis=axis)
