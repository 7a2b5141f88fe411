"""Contraction: `dot_general`, the one bilinear primitive (JAX's `lax.dot_general`).

Its row sits with its numpy kernel (matrix products straight to BLAS), shape rule, JVP rule,
transpose rule (one operand at a time: it is linear in each, not in both) and batching rule,
written with the builders the transforms hand in as `lax`, and its engine facts: loops on the
numba engine (while small), an einsum on the Dask engine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ParameterError, ShapeError
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define, infer
from tf8.ops.fusion import Fusion, Index, Loop, Read, Shape
from tf8.ops.infer import axes_param
from tf8.ops.shape_checks import Guards, require_equal
from tf8.ops.shapes import Dim, dims_equal, shape_str

from .batch_axes import batched_axis, example_axes


def _shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    lhs, rhs = avals[0].shape, avals[1].shape
    (lc, rc), (lb, rb) = op["contracting"], op["batch"]
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise ParameterError(f"dot_general: contracting {op['contracting']} batch {op['batch']}")
    lhs_axes = axes_param(op, tuple(lc) + tuple(lb), len(lhs))
    rhs_axes = axes_param(op, tuple(rc) + tuple(rb), len(rhs))
    # Normalised (negative axes allowed): the free-axis scan below compares positions.
    lc, lb = lhs_axes[: len(lc)], lhs_axes[len(lc) :]
    rc, rb = rhs_axes[: len(rc)], rhs_axes[len(rc) :]
    what = f"contracting dims of {shape_str(lhs)} and {shape_str(rhs)}"
    for a, b in zip(lc, rc):
        if dims_equal(lhs[a], rhs[b]) is False:
            raise ShapeError(f"dot_general: {what} differ ({lhs[a]} vs {rhs[b]})")
        require_equal(op, lhs[a], rhs[b], what, guards)
    for a, b in zip(lb, rb):
        require_equal(
            op, lhs[a], rhs[b], f"batch dims of {shape_str(lhs)}, {shape_str(rhs)}", guards
        )
    lhs_free = [d for i, d in enumerate(lhs) if i not in lc and i not in lb]
    rhs_free = [d for i, d in enumerate(rhs) if i not in rc and i not in rb]
    return tuple(lhs[a] for a in lb) + tuple(lhs_free) + tuple(rhs_free)


def _kernel(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    (lc, rc), (lb, rb) = op["contracting"], op["batch"]
    # Axes may be negative (inference accepts them); the free-axis scan below needs them >= 0.
    lc, lb = tuple(a % x.ndim for a in lc), tuple(a % x.ndim for a in lb)
    rc, rb = tuple(a % y.ndim for a in rc), tuple(a % y.ndim for a in rb)
    if (x.ndim == 0 or y.ndim == 0) and not lc:  # a scalar times an array
        return np.multiply(x, y)
    if not lb and x.ndim <= 2 and y.ndim <= 2:  # matrix and vector products straight to BLAS
        if len(lc) == 1:
            if lc == (x.ndim - 1,) and rc == (0,):
                return x @ y
            if x.ndim == 2 and lc == (0,) and rc == (0,):
                return x.T @ y
            if y.ndim == 2 and lc == (x.ndim - 1,) and rc == (1,):
                return x @ y.T
        elif not lc and x.ndim == 1 and y.ndim == 1:
            return np.multiply.outer(x, y)
    lf = [i for i in range(x.ndim) if i not in lc and i not in lb]
    rf = [i for i in range(y.ndim) if i not in rc and i not in rb]
    # Bring batch dims first, then free, then contracting: a batched matmul for np.matmul.
    xs = x.transpose(list(lb) + lf + list(lc))
    ys = y.transpose(list(rb) + list(rc) + rf)
    batch = xs.shape[: len(lb)]
    m = math.prod(xs.shape[len(lb) : len(lb) + len(lf)])  # math.prod: np.prod costs µs here
    k = math.prod(xs.shape[len(lb) + len(lf) :])
    n = math.prod(ys.shape[len(rb) + len(rc) :])
    if k == 1 and batch:  # outer products (a vmapped vector transpose): broadcasting is exact
        out = np.multiply(xs.reshape(batch + (m, 1)), ys.reshape(batch + (1, n)))
    else:
        out = np.matmul(xs.reshape(batch + (m, k)), ys.reshape(batch + (k, n)))
    shape = batch + xs.shape[len(lb) : len(lb) + len(lf)] + ys.shape[len(rb) + len(rc) :]
    return out.reshape(shape)


def _jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list:
    x, y = primals
    tx, ty = tangents
    left = None if tx is None else lax.apply(op, [tx, y])[0]
    right = None if ty is None else lax.apply(op, [x, ty])[0]
    return [lax.add_any(left, right)]


def _ranges_like(*groups: Sequence[int]) -> list[tuple[int, ...]]:
    out, start = [], 0
    for g in groups:
        out.append(tuple(range(start, start + len(g))))
        start += len(g)
    return out


def _transpose_lhs(lax: Any, ct: Any, x: Any, y: Any, numbers: Any, swap_ans: bool = False) -> Any:
    (x_contract, y_contract), (x_batch, y_batch) = numbers
    x_kept = [i for i in range(x.ndim) if i not in x_contract and i not in x_batch]
    y_kept = [i for i in range(y.ndim) if i not in y_contract and i not in y_batch]
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((ans_y, tuple(y_kept)), (ans_batch, tuple(y_batch)))
    x_contract_sorted_by_y = [x_contract[i] for i in np.argsort(y_contract)]
    out_axes = tuple(int(i) for i in np.argsort(list(x_batch) + x_kept + x_contract_sorted_by_y))
    product = lax.apply1("dot_general", [ct, y], contracting=dims[0], batch=dims[1])
    return lax.transpose(product, out_axes)


def _transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list:
    x, y = operands
    if linear[0] and linear[1]:
        raise TypeError("dot_general of two linear values is not linear")
    (xc, yc), (xb, yb) = op["contracting"], op["batch"]
    numbers = (
        (lax.normalize_axes(xc, x.ndim), lax.normalize_axes(yc, y.ndim)),
        (lax.normalize_axes(xb, x.ndim), lax.normalize_axes(yb, y.ndim)),
    )
    if linear[0]:
        return [_transpose_lhs(lax, ct, x, y, numbers), None]
    (xc, yc), (xb, yb) = numbers
    swapped = ((yc, xc), (yb, xb))
    return [None, _transpose_lhs(lax, ct, y, x, swapped, swap_ans=True)]


def _batch(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
    """The batch axis becomes a batch axis of the product when both operands have one, and a
    free axis of the batched operand otherwise (no transpose, no broadcast)."""
    (x, y), (dx, dy) = args, dims
    (lc, rc), (lb, rb) = op["contracting"], op["batch"]
    nx, ny = x.ndim - (dx is not None), y.ndim - (dy is not None)
    lc, lb = example_axes(lc, nx), example_axes(lb, nx)
    rc, rb = example_axes(rc, ny), example_axes(rb, ny)
    if dx is not None:
        lc, lb = tuple(batched_axis(a, dx) for a in lc), tuple(batched_axis(a, dx) for a in lb)
    if dy is not None:
        rc, rb = tuple(batched_axis(a, dy) for a in rc), tuple(batched_axis(a, dy) for a in rb)
    if dx is not None and dy is not None:
        lb, rb, out_dim = (dx, *lb), (dy, *rb), 0
    elif dx is not None:
        free = [i for i in range(x.ndim) if i not in lc and i not in lb]
        out_dim = len(lb) + free.index(dx)
    else:
        free = [i for i in range(y.ndim) if i not in rc and i not in rb]
        out_dim = len(lb) + (nx - len(lc) - len(lb)) + free.index(dy)
    out = lax.apply1("dot_general", [x, y], contracting=(lc, rc), batch=(lb, rb))
    return [out], [out_dim]


def plain_matmul(op: Any, ndims: Sequence[int]) -> tuple[bool, bool] | None:
    """Whether dot_general `op` on operands of ranks `ndims` is numpy's `matmul` of its
    operands, each possibly transposed first: (transpose x, transpose y), or None (batch axes,
    several contracted axes, a rank other than 1 or 2). The one place that decides what a
    plain matrix product is: the numpy engine's generated code, the tape's derived functions
    and the eager `@` all read it."""
    if len(ndims) != 2 or not all(1 <= n <= 2 for n in ndims) or op["batch"] != ((), ()):
        return None
    (lc, rc) = op["contracting"]
    if len(lc) != 1 or len(rc) != 1:
        return None
    ln, rn = ndims
    return (ln == 2 and lc[0] % 2 == 0, rn == 2 and rc[0] % 2 == 1)


def _matmul(op: Any, ndims: list[int], args: list[str]) -> str | None:
    """numpy: two matrices (or a matrix and a vector) with one contracting axis each, no
    batch, are one matmul of (possibly transposed) views: the kernel's own computation,
    without its bookkeeping. (Two vectors are not: numpy's matmul gives a scalar.)"""
    if 0 in ndims and ndims != [0, 0] and op["contracting"] == ((), ()):
        return f"({args[0]} * {args[1]})"  # a scalar times an array (a transposed scale)
    found = plain_matmul(op, ndims) if ndims != [1, 1] else None
    if found is None:
        return None
    lhs = f"{args[0]}.T" if found[0] else args[0]
    rhs = f"{args[1]}.T" if found[1] else args[1]
    return f"matmul({lhs}, {rhs})"


# --- engine facts -----------------------------------------------------------------------------

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _loop(op: Any, shapes: Sequence[Shape], idx: Index, read: Read, name: str) -> Loop:
    """numba's loop nests: one element as a sum over the contracted axes (the result's axes:
    batch, then x's free axes, then y's)."""
    (lc, rc), (lb, rb) = op["contracting"], op["batch"]
    ln, rn = len(shapes[0]), len(shapes[1])
    lc, lb = [a % ln for a in lc], [a % ln for a in lb]
    rc, rb = [a % rn for a in rc], [a % rn for a in rb]
    sizes = tuple(shapes[0][a] for a in lc)
    lf = [a for a in range(ln) if a not in lc and a not in lb]
    rf = [a for a in range(rn) if a not in rc and a not in rb]

    def operand(axes_c: list[int], axes_b: list[int], free: list[int], skip: int) -> Index:
        n = len(axes_c) + len(axes_b) + len(free)
        return tuple(
            f"{name}{axes_c.index(a)}"
            if a in axes_c
            else idx[axes_b.index(a)]
            if a in axes_b
            else idx[len(lb) + skip + free.index(a)]
            for a in range(n)
        )

    element = f"{read(0, operand(lc, lb, lf, 0))} * {read(1, operand(rc, rb, rf, len(lf)))}"
    return Loop("0.0", "{acc} += {e}", sizes, element)


def _multiply_adds(op: Any, shapes: Sequence[Shape], out: Shape) -> int:
    return math.prod(out) * math.prod(shapes[0][a] for a in op["contracting"][0])


def _dask(kit: Any, op: Any, x: Any, y: Any) -> Any:
    """dot_general as an einsum: batch axes, then x's free axes, then y's."""
    (out,) = infer(op, [Aval(tuple(v.shape), np.dtype(v.dtype)) for v in (x, y)])
    (lc, rc), (lb, rb) = op["contracting"], op["batch"]
    lc, lb = [a % x.ndim for a in lc], [a % x.ndim for a in lb]
    rc, rb = [a % y.ndim for a in rc], [a % y.ndim for a in rb]
    letters = iter(LETTERS)
    xs = [next(letters) for _ in range(x.ndim)]
    ys = [next(letters) for _ in range(y.ndim)]
    for a, b in [*zip(lc, rc), *zip(lb, rb)]:
        ys[b] = xs[a]
    free_x = [xs[i] for i in range(x.ndim) if i not in lc and i not in lb]
    free_y = [ys[i] for i in range(y.ndim) if i not in rc and i not in rb]
    result = "".join([xs[i] for i in lb] + free_x + free_y)
    spec = f"{''.join(xs)},{''.join(ys)}->{result}"
    return kit.array.einsum(spec, kit.as_dask(x), kit.as_dask(y), dtype=out.dtype)


DEFINITIONS: tuple[OpDefinition, ...] = (
    define(
        Row(
            "dot_general",
            Category.CONTRACTION,
            DTypePolicy.SAME_NUMERIC,
            2,
            2,
            ("contracting", "batch"),
            doc="lax.dot_general",
        ),
        kernel=_kernel,
        shape=_shape,
        jvp=_jvp,
        transpose=_transpose,
        batch=_batch,
        fusion=Fusion(
            dask=_dask,
            loop=_loop,
            reads=lambda op, shapes, out, p: _multiply_adds(op, shapes, out) / math.prod(shapes[p]),
            multiply_adds=_multiply_adds,
            matmul=_matmul,
        ),
        batched_dot=lambda op: any(op["batch"]),
    ),
)
