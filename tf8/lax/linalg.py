"""Tracing-level linalg: argument handling shared by tf8.linalg and tf8.scipy.linalg, and the
`inv_of` / `solve_of` builders the linalg AD rules are written in."""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import ShapeError
from tf8.lax.builders import broadcast, convert, reshape
from tf8.lax.core import apply
from tf8.ops import dtypes as dt
from tf8.ops.extension.linalg import Inv, Solve
from tf8.ops.shapes import is_symbolic, shape_str
from tf8.traced import TracedTensor, tensor


def as_matrix(a: Any) -> TracedTensor:
    """`a` as a traced value; integer and bool inputs are computed in JAX's inexact dtype for
    them (`dt.float_dtype`: int64 in float64; bool, uint8, int32 and uint32 in float32)."""
    x = tensor(a)
    return x if dt.is_inexact(x.dtype) else convert(x, dt.float_dtype(x.dtype))


def as_system(name: str, a: Any, b: Any) -> tuple[TracedTensor, TracedTensor, bool]:
    """(A, B, b_was_vector) for A x = B: one inexact dtype, B as (..., n, k) with A's batch
    axes (broadcast as numpy.linalg.solve); a 1-D b becomes a column, as numpy ≥ 2."""
    x, y = as_matrix(a), tensor(b)
    dtype = dt.result_type(x.dtype, y.dtype)
    x, y = convert(x, dtype), convert(y, dtype)
    if x.ndim < 2:
        raise ShapeError(f"{name}: needs a matrix, got {shape_str(x.shape)}")
    vector = y.ndim == 1
    if vector:
        y = reshape(y, (*y.shape, 1))
    if y.ndim < 2:
        raise ShapeError(f"{name}: right-hand side must have at least 1 axis, got a scalar")
    batch_a, batch_b = x.shape[:-2], y.shape[:-2]
    if batch_a != batch_b:
        if is_symbolic(batch_a) or is_symbolic(batch_b):
            raise ShapeError(f"{name}: batch axes {batch_a} and {batch_b} must match")
        try:
            batch = np.broadcast_shapes(batch_a, batch_b)
        except ValueError:
            raise ShapeError(
                f"{name}: batch axes of {shape_str(x.shape)} and {shape_str(y.shape)} do not"
                " broadcast"
            ) from None
        x, y = broadcast_batch(x, batch), broadcast_batch(y, batch)
    return x, y, vector


def unvector(x: TracedTensor, vector: bool) -> TracedTensor:
    """Drop the column axis `as_system` added to a 1-D right-hand side."""
    return reshape(x, x.shape[:-1]) if vector else x


def broadcast_batch(x: TracedTensor, batch: tuple) -> TracedTensor:
    """x's matrices broadcast over the batch axes `batch`."""
    shape = (*batch, *x.shape[-2:])
    lead = len(shape) - x.ndim
    squeezed = [i for i, d in enumerate(x.shape[:-2]) if d == 1 and batch[lead + i] != 1]
    keep = [i for i in range(x.ndim) if i not in squeezed]
    x = reshape(x, [x.shape[i] for i in keep])
    return broadcast(x, shape, [lead + i for i in keep])


def inv_of(a: TracedTensor) -> TracedTensor:
    """A⁻¹ (each matrix of `a`)."""
    return apply(Inv(), [a])[0]


def solve_of(a: TracedTensor, b: TracedTensor) -> TracedTensor:
    """A⁻¹ B (B of shape (..., n, k)); linear in B."""
    return apply(Solve(), [a, b])[0]


__all__ = ["as_matrix", "as_system", "broadcast_batch", "inv_of", "solve_of", "unvector"]
