"""Products: matmul, dot, tensordot, ... lowered to dot_general."""

from __future__ import annotations

from tf8.errors import ShapeError
from tf8.ops.shapes import dims_equal, shape_str
from tf8.traced import TracedTensor, apply1

from ._core import ArrayLike, broadcast_shapes, broadcast_to, promote
from ._shape import expand_dims, squeeze


def _check_contracted(name: str, a: TracedTensor, b: TracedTensor, ax: int, bx: int) -> None:
    if dims_equal(a.shape[ax], b.shape[bx]) is False:
        raise ShapeError(
            f"{name}: mismatch in the contracted dimension: {shape_str(a.shape)} and "
            f"{shape_str(b.shape)} ({a.shape[ax]} != {b.shape[bx]})"
        )


def matmul(x1: ArrayLike, x2: ArrayLike) -> TracedTensor:
    """numpy.matmul: 1-D operands are promoted to matrices, leading axes broadcast."""
    a, b = promote(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("matmul: input operand does not have enough dimensions (0-d)")
    vec_a, vec_b = a.ndim == 1, b.ndim == 1
    if vec_a:
        a = expand_dims(a, 0)
    if vec_b:
        b = expand_dims(b, 1)
    _check_contracted("matmul", a, b, a.ndim - 1, b.ndim - 2)
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


def dot(a: ArrayLike, b: ArrayLike) -> TracedTensor:
    """numpy.dot: sum over the last axis of a and the second-to-last of b."""
    x, y = promote(a, b)
    if x.ndim == 0 or y.ndim == 0:
        from ._ufuncs import multiply

        return multiply(x, y)
    by = 0 if y.ndim == 1 else y.ndim - 2
    _check_contracted("dot", x, y, x.ndim - 1, by)
    return apply1("dot_general", [x, y], contracting=((x.ndim - 1,), (by,)), batch=((), ()))
