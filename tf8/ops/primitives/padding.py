"""`pad(x, value)`: edge padding (negative: cropping) and interior padding between elements,
with one scalar pad value. Linear in (x, value) jointly: the value's cotangent is what the
padding received, the sum of the cotangent outside the operand's elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ShapeError
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define
from tf8.ops.fusion import Fusion, Index, Read, Shape, offset_index
from tf8.ops.shape_checks import Guards
from tf8.ops.shapes import Dim, shape_str


def _pad(op: Any, x: np.ndarray, value: np.ndarray) -> np.ndarray:
    plan = _PLANS.get((op, x.shape))
    if plan is None:
        plan = _PLANS[(op, x.shape)] = _plan(op["config"], x.shape)
    grown, interior, crop = plan
    out = np.empty(grown, dtype=x.dtype)
    out.fill(value)
    out[interior] = x
    return out if crop is None else out[crop]


_PLANS: dict[tuple, tuple] = {}  # (op, shape) -> the padded shape and slices (pads in loops)


def _plan(config: Any, shape: tuple[int, ...]) -> tuple:
    inner = [d + max(d - 1, 0) * i for d, (_, _, i) in zip(shape, config)]
    grown = tuple(max(lo, 0) + n + max(hi, 0) for n, (lo, hi, _) in zip(inner, config))
    interior = tuple(
        slice(max(lo, 0), max(lo, 0) + n, i + 1) for n, (lo, _, i) in zip(inner, config)
    )
    # Negative padding crops.
    crop = tuple(slice(-min(lo, 0), g + min(hi, 0)) for g, (lo, hi, _) in zip(grown, config))
    if all(lo >= 0 and hi >= 0 for lo, hi, _ in config):
        crop = None
    if len(_PLANS) > 4096:
        _PLANS.clear()
    return (grown, interior, crop)


def _pad_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape, config = avals[0].shape, op["config"]
    if avals[1].shape != ():
        raise ShapeError(f"pad: padding value must be a scalar, got {avals[1]}")
    if len(config) != len(shape):
        raise ShapeError(f"pad: config {config} does not fit {shape_str(shape)}")
    out = []
    for (lo, hi, interior), d in zip(config, shape):
        if interior < 0:
            raise ShapeError(f"pad: negative interior padding in {config}")
        # Interior padding goes between elements: none for an empty (or one-element) axis.
        gaps = max(d - 1, 0) if isinstance(d, int) else d - 1
        size = lo + hi + d + gaps * interior
        if isinstance(size, int) and size < 0:
            raise ShapeError(f"pad: config {config} crops {shape_str(shape)} below size 0")
        out.append(size)
    return tuple(out)


def _pad_transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
    x, value = operands
    config = op["config"]
    # Undo negative padding (a crop) by padding the cotangent back with zeros first.
    regrow = tuple((max(-lo, 0), max(-hi, 0), 0) for lo, hi, _ in config)
    if any(lo or hi for lo, hi, _ in regrow):
        ct = lax.apply1("pad", [ct, lax.zeros(Aval((), ct.dtype))], config=regrow)
    start = tuple(max(lo, 0) for lo, _, _ in config)
    limit = tuple(
        s + (d - 1) * (i + 1) + 1 if d else s for s, d, (_, _, i) in zip(start, x.shape, config)
    )
    strides = tuple(i + 1 for _, _, i in config)
    ct_x = lax.apply1(
        "slice", [ct], start=start, limit=limit, strides=None if set(strides) <= {1} else strides
    )
    ct_value = None
    if linear[1]:
        everything = lax.reduce_sum(ct, range(ct.ndim))
        ct_value = lax.apply1("sub", [everything, lax.reduce_sum(ct_x, range(ct_x.ndim))])
    return [ct_x if linear[0] else None, ct_value]


def _pad_batch(lax: Any, op: Any, args: list, dims: list) -> tuple[list, list]:
    (x, value), (dx, dv) = args, dims
    config = op["config"]
    if dv is None:  # the batch axis is not padded
        config = (*config[:dx], (0, 0, 0), *config[dx:])
        return [lax.apply(lax.with_params(op, config=config), [x, value])[0]], [dx]
    # A padding value per example: pad with zeros, then select each example's value outside
    # the (padded) operand, found by padding a mask the same way.
    size = lax.batch_size(args, dims)
    x = lax.at_front(x, dx, size)
    at_zero = lax.with_params(op, config=((0, 0, 0), *config))
    padded = lax.apply(at_zero, [x, lax.zeros(Aval((), x.dtype))])[0]
    ones = lax.full(Aval(x.shape[1:], np.dtype(np.bool_)), True)
    mask = lax.apply(op, [ones, lax.full(Aval((), np.dtype(np.bool_)), False)])[0]
    mask = lax.broadcast(mask, padded.shape, tuple(range(1, padded.ndim)))
    fill = lax.broadcast(lax.moveaxis(value, dv, 0), padded.shape, (0,))
    return [lax.select(mask, padded, fill)], [0]


def _interior(kit: Any, x: Any, value: Any, axis: int, gap: int) -> Any:
    """`gap` pad values between neighbours along `axis`: each element followed by `gap`
    values (a new axis after `axis`, merged into it), the trailing ones cut."""
    n = x.shape[axis]
    if not gap or n < 2:
        return x
    after = (slice(None),) * (axis + 1)
    fill = kit.array.broadcast_to(value, (*x.shape[: axis + 1], gap, *x.shape[axis + 1 :]))
    pairs = kit.array.concatenate([x[(*after, None)], fill], axis=axis + 1)
    merged = pairs.reshape((*x.shape[:axis], n * (gap + 1), *x.shape[axis + 1 :]))
    return merged[(*after[:axis], slice(0, n + (n - 1) * gap))]


def _pad_dask(kit: Any, op: Any, x: Any, value: Any) -> Any:
    """Interior padding interleaves, edge padding concatenates broadcast pad values, and
    negative padding crops (all lazily, on any chunking)."""
    x, value = kit.as_dask(x), kit.as_dask(value)
    for axis, (lo, hi, gap) in enumerate(op["config"]):
        x = _interior(kit, x, value, axis, gap)
        stop = x.shape[axis] + min(hi, 0)
        x = x[(slice(None),) * axis + (slice(-min(lo, 0), stop),)]
        parts = []
        for width in (max(lo, 0), max(hi, 0)):
            shape = (*x.shape[:axis], width, *x.shape[axis + 1 :])
            parts.append(kit.array.broadcast_to(value, shape) if width else None)
        kept = [p for p in (parts[0], x, parts[1]) if p is not None]
        x = kit.array.concatenate(kept, axis=axis)
    return x


def _pad_element(op: Any, shapes: Sequence[Shape], out: Shape, idx: Index, read: Read) -> str:
    """x's element where the index falls on it, else the pad value (numba's loop nests)."""
    conditions, inner = [], []
    for i, n, (lo, hi, interior) in zip(idx, shapes[0], op["config"]):
        if (lo, hi, interior) == (0, 0, 0):
            inner.append(i)
            continue
        q = offset_index(i, 1, -lo)
        if interior:
            step = interior + 1
            conditions.append(f"{q} >= 0 and {q} % {step} == 0 and {q} // {step} < {n}")
            inner.append(f"({q} // {step})")
        else:
            conditions.append(f"{q} >= 0 and {q} < {n}" if lo > 0 else f"{q} < {n}")
            inner.append(q)
    if not conditions:
        return read(0, tuple(inner))
    return f"({read(0, tuple(inner))} if ({' and '.join(conditions)}) else {read(1, ())})"


PAD = define(
    Row(
        "pad",
        Category.STRUCTURAL,
        DTypePolicy.SAME_ANY,
        2,
        2,
        ("config",),
        linear=True,
        doc="pad(x, value) with (lo, hi, interior); linear in (x, value) jointly",
    ),
    kernel=_pad,
    shape=_pad_shape,
    transpose=_pad_transpose,
    batch=_pad_batch,
    fusion=Fusion(dask=_pad_dask, element=_pad_element),
)


DEFINITIONS: tuple[OpDefinition, ...] = (PAD,)
