"""Convolution: `conv_general_dilated`, XLA's convolution (JAX's `lax.conv_general_dilated`
primitive), with explicit padding pairs and dimension numbers as permutations.

Parameters: `window_strides`, `padding` ((low, high) per spatial axis), `lhs_dilation`,
`rhs_dilation`, `dimension_numbers` ((lhs_spec, rhs_spec, out_spec): the axes of (batch,
feature, spatial...), of (out feature, in feature, spatial...) and of the output's (batch,
feature, spatial...)), `feature_group_count`, `batch_group_count`.

It is bilinear, like `dot_general`: its JVP is the sum of two convolutions, and its transpose
with respect to either operand is a convolution of the cotangent with the other (the kernel
reversed for the lhs), so derivatives of any order are convolutions. vmap folds the batch
axis into the batch or feature axes. The numpy kernel is im2col and BLAS
(`tf8.ops.conv_kernels`); on Dask it runs blockwise along the batch and feature axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ParameterError, ShapeError
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.conv_kernels import convolve, dilate_dim
from tf8.ops.definition import OpDefinition, define, infer
from tf8.ops.fusion import Fusion
from tf8.ops.shape_checks import Guards
from tf8.ops.shapes import Dim, shape_str

from .conv_dask import conv_dask

NAME = "conv_general_dilated"
PARAMS = (
    "window_strides",
    "padding",
    "lhs_dilation",
    "rhs_dilation",
    "dimension_numbers",
    "feature_group_count",
    "batch_group_count",
)


def _params(op: Any) -> dict[str, Any]:
    return {k: op[k] for k in PARAMS}


def _check_params(op: Any, rank: int) -> None:
    """The parameters' lengths and values against operands of rank `rank`."""
    spatial = rank - 2
    specs = op["dimension_numbers"]
    if len(specs) != 3 or any(sorted(s) != list(range(rank)) for s in specs):
        raise ParameterError(
            f"{NAME}: dimension_numbers must be three permutations of range({rank}) "
            f"(lhs, rhs and output specs for rank-{rank} operands), got {specs}"
        )
    for name in ("window_strides", "lhs_dilation", "rhs_dilation"):
        values = op[name]
        if len(values) != spatial or any(not isinstance(v, int) or v < 1 for v in values):
            raise ParameterError(
                f"{NAME}: {name} must be {spatial} positive integers (one per spatial "
                f"axis), got {values}"
            )
    if len(op["padding"]) != spatial or any(len(p) != 2 for p in op["padding"]):
        raise ParameterError(
            f"{NAME}: padding must be {spatial} (low, high) pairs, got {op['padding']}"
        )
    for name in ("feature_group_count", "batch_group_count"):
        if not isinstance(op[name], int) or op[name] < 1:
            raise ParameterError(f"{NAME}: {name} must be a positive integer, got {op[name]}")
    if op["feature_group_count"] > 1 and op["batch_group_count"] > 1:
        raise ParameterError(
            f"{NAME}: at most one of feature_group_count ({op['feature_group_count']}) and "
            f"batch_group_count ({op['batch_group_count']}) may exceed 1"
        )


def _concrete(value: Dim, what: str, shapes: str) -> int:
    if not isinstance(value, int):
        raise ShapeError(f"{NAME}: {what} must be a concrete size, got {value} ({shapes})")
    return value


def _shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    lhs, rhs = avals[0].shape, avals[1].shape
    shapes = f"lhs {shape_str(lhs)}, rhs {shape_str(rhs)}"
    if len(lhs) != len(rhs) or len(lhs) < 2:
        raise ShapeError(f"{NAME}: lhs and rhs must have one rank (2 + spatial axes), got {shapes}")
    _check_params(op, len(lhs))
    lhs_spec, rhs_spec, out_spec = op["dimension_numbers"]
    groups, batch_groups = op["feature_group_count"], op["batch_group_count"]
    features = _concrete(lhs[lhs_spec[1]], "the lhs feature axis", shapes)
    in_features = _concrete(rhs[rhs_spec[1]], "the rhs input feature axis", shapes)
    out_features = _concrete(rhs[rhs_spec[0]], "the rhs output feature axis", shapes)
    if features % groups or features // groups != in_features:
        raise ShapeError(
            f"{NAME}: the lhs feature size {features} (axis {lhs_spec[1]}) divided by "
            f"feature_group_count {groups} must equal the rhs input feature size "
            f"{in_features} (axis {rhs_spec[1]}); {shapes}"
        )
    for count, name in ((groups, "feature_group_count"), (batch_groups, "batch_group_count")):
        if out_features % count:
            raise ShapeError(
                f"{NAME}: the rhs output feature size {out_features} (axis {rhs_spec[0]}) "
                f"must be a multiple of {name} {count}; {shapes}"
            )
    batch = lhs[lhs_spec[0]]
    if batch_groups > 1:
        batch = _concrete(batch, "the lhs batch axis", shapes)
        if batch % batch_groups:
            raise ShapeError(
                f"{NAME}: batch_group_count {batch_groups} must divide the lhs batch size "
                f"{batch} (axis {lhs_spec[0]}); {shapes}"
            )
        batch //= batch_groups
    out = [batch, out_features]
    for i, ((lo, hi), s, ld, rd) in enumerate(
        zip(op["padding"], op["window_strides"], op["lhs_dilation"], op["rhs_dilation"])
    ):
        n = lhs[lhs_spec[2 + i]]
        k = _concrete(rhs[rhs_spec[2 + i]], f"rhs spatial axis {rhs_spec[2 + i]}", shapes)
        window = dilate_dim(k, rd)
        if isinstance(n, int):
            padded = dilate_dim(n, ld) + lo + hi
            if padded < 0:
                raise ShapeError(
                    f"{NAME}: padding {op['padding'][i]} crops lhs spatial axis "
                    f"{lhs_spec[2 + i]} (size {n}) below 0; {shapes}"
                )
            out.append(max(0, (padded - window) // s + 1))
        elif s == 1 and ld == 1:  # a symbolic size: n + lo + hi - window + 1
            out.append(n + (lo + hi - window + 1))
        else:
            _concrete(n, f"lhs spatial axis {lhs_spec[2 + i]} (strided or dilated)", shapes)
    return tuple(out[i] for i in np.argsort(out_spec))


def _kernel(op: Any, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return convolve(x, w, **_params(op))


# --- derivatives: bilinear ------------------------------------------------------------------


def _conv(lax: Any, x: Any, w: Any, **params: Any) -> Any:
    return lax.apply1(NAME, [x, w], **params)


def _jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list:
    (x, w), (tx, tw) = primals, tangents
    left = None if tx is None else lax.apply(op, [tx, w])[0]
    right = None if tw is None else lax.apply(op, [x, tw])[0]
    return [lax.add_any(left, right)]


def _into(lax: Any, src: int, dst: int, x: Any) -> Any:
    """Axis `src` of `x` merged into axis `dst` (numbered without `src`), as its major part."""
    perm = [i for i in range(x.ndim) if i != src]
    perm.insert(dst, src)
    shape = [d for i, d in enumerate(x.shape) if i != src]
    shape[dst] = shape[dst] * x.shape[src]
    return lax.reshape(lax.transpose(x, perm), shape)


def _out_of(lax: Any, src: int, major: int, x: Any) -> Any:
    """Axis `src` of `x` split into (`major`, the rest)."""
    shape = list(x.shape)
    shape[src : src + 1] = [major, shape[src] // major]
    return lax.reshape(x, shape)


def _swap(spec: Sequence[int]) -> tuple[int, ...]:
    return (spec[1], spec[0], *spec[2:])


def _dilated(shape: Sequence[int], dilation: Sequence[int]) -> list[int]:
    return [dilate_dim(d, r) for d, r in zip(shape, dilation)]


def _transpose_lhs(lax: Any, op: Any, ct: Any, x: Any, w: Any) -> Any:
    """The convolution of the cotangent with the reversed kernel, its features swapped (a
    feature or batch group moved into the kernel's output features)."""
    lhs_spec, rhs_spec, out_spec = op["dimension_numbers"]
    groups, batch_groups = op["feature_group_count"], op["batch_group_count"]
    kernel_shape = [w.shape[a] for a in rhs_spec[2:]]
    if groups > 1 or batch_groups > 1:
        w = _out_of(lax, rhs_spec[0], max(groups, batch_groups), w)
        w = _into(lax, rhs_spec[0], rhs_spec[1], w)
    in_shape = _dilated([x.shape[a] for a in lhs_spec[2:]], op["lhs_dilation"])
    window = _dilated(kernel_shape, op["rhs_dilation"])
    out_shape = _dilated([ct.shape[a] for a in out_spec[2:]], op["window_strides"])
    before = [k - lo - 1 for k, (lo, _) in zip(window, op["padding"])]
    after = [n + k - 1 - o - b for n, k, o, b in zip(in_shape, window, out_shape, before)]
    reversed_w = lax.apply1("reverse", [w], axes=tuple(rhs_spec[2:]))
    out = _conv(
        lax,
        ct,
        reversed_w,
        window_strides=op["lhs_dilation"],
        padding=tuple(zip(before, after)),
        lhs_dilation=op["window_strides"],
        rhs_dilation=op["rhs_dilation"],
        dimension_numbers=(out_spec, _swap(rhs_spec), lhs_spec),
        feature_group_count=max(groups, batch_groups),
        batch_group_count=1,
    )
    if batch_groups > 1:
        out = _out_of(lax, lhs_spec[1], batch_groups, out)
        out = _into(lax, lhs_spec[1], lhs_spec[0], out)
    return out


def _transpose_rhs(lax: Any, op: Any, ct: Any, x: Any, w: Any) -> Any:
    """The convolution of the lhs by the cotangent, batch and feature axes swapped (feature
    groups become batch groups and the reverse)."""
    lhs_spec, rhs_spec, out_spec = op["dimension_numbers"]
    if math.prod(ct.shape) == 0:
        return lax.zeros(Aval(tuple(w.shape), ct.dtype))
    in_shape = _dilated([x.shape[a] for a in lhs_spec[2:]], op["lhs_dilation"])
    window = _dilated([w.shape[a] for a in rhs_spec[2:]], op["rhs_dilation"])
    out_shape = _dilated([ct.shape[a] for a in out_spec[2:]], op["window_strides"])
    low = [lo for lo, _ in op["padding"]]
    high = [o - n + k - lo - 1 for o, n, k, lo in zip(out_shape, in_shape, window, low)]
    return _conv(
        lax,
        x,
        ct,
        window_strides=op["rhs_dilation"],
        padding=tuple(zip(low, high)),
        lhs_dilation=op["lhs_dilation"],
        rhs_dilation=op["window_strides"],
        dimension_numbers=(_swap(lhs_spec), _swap(out_spec), _swap(rhs_spec)),
        feature_group_count=op["batch_group_count"],
        batch_group_count=op["feature_group_count"],
    )


def _transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list:
    x, w = operands
    if linear[0] and linear[1]:
        raise TypeError(f"{NAME} of two linear values is not linear")
    if linear[0]:
        return [_transpose_lhs(lax, op, ct, x, w), None]
    return [None, _transpose_rhs(lax, op, ct, x, w)]


# --- vmap: the batch axis folded into the batch or feature axes ----------------------------


def _batch(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
    (x, w), (dx, dw) = args, dims
    lhs_spec, rhs_spec, out_spec = op["dimension_numbers"]
    groups, batch_groups = op["feature_group_count"], op["batch_group_count"]
    size = lax.batch_size(args, dims)
    params = _params(op)
    if size == 0:  # no example to fold in: the (empty) result from the per-example avals
        avals = [Aval(_drop(x.shape, dx), x.dtype), Aval(_drop(w.shape, dw), w.dtype)]
        (out,) = infer(op, avals)
        return [lax.zeros(Aval((0, *out.shape), out.dtype))], [0]
    if dx is not None and dw is not None:
        if batch_groups > 1:
            x = _into(lax, dx, lhs_spec[0], x)
            params["batch_group_count"] = batch_groups * size
        else:
            x = _into(lax, dx, lhs_spec[1], x)
            params["feature_group_count"] = groups * size
        out = _conv(lax, x, _into(lax, dw, rhs_spec[0], w), **params)
        return [_out_of(lax, out_spec[1], size, out)], [out_spec[1]]
    if dx is not None:
        if batch_groups == 1:
            x = _into(lax, dx, lhs_spec[0], x)
        else:  # each batch group takes its share of every example
            x = _out_of(lax, lhs_spec[0] + int(dx <= lhs_spec[0]), batch_groups, x)
            x = _into(lax, dx + int(lhs_spec[0] < dx), lhs_spec[0] + 1, x)
            x = _into(lax, lhs_spec[0], lhs_spec[0], x)
        out = _conv(lax, x, w, **params)
        return [_out_of(lax, out_spec[0], size, out)], [out_spec[0]]
    if groups == 1 and batch_groups == 1:
        out = _conv(lax, x, _into(lax, dw, rhs_spec[0], w), **params)
        return [_out_of(lax, out_spec[1], size, out)], [out_spec[1]]
    count = max(groups, batch_groups)  # the groups stay outermost in the output features
    w = _out_of(lax, rhs_spec[0] + int(dw <= rhs_spec[0]), count, w)
    w = _into(lax, dw + int(rhs_spec[0] < dw), rhs_spec[0] + 1, w)
    w = _into(lax, rhs_spec[0], rhs_spec[0], w)
    out = _conv(lax, x, w, **params)
    out = _out_of(lax, out_spec[1], count, out)
    out = _out_of(lax, out_spec[1] + 1, size, out)
    return [_into(lax, out_spec[1], out_spec[1] + 1, out)], [out_spec[1]]


def _drop(shape: Sequence[Dim], d: int | None) -> tuple[Dim, ...]:
    return tuple(shape) if d is None else tuple(s for i, s in enumerate(shape) if i != d)


DEFINITIONS: tuple[OpDefinition, ...] = (
    define(
        Row(
            NAME,
            Category.CONTRACTION,
            DTypePolicy.SAME_NUMERIC,
            2,
            2,
            PARAMS,
            doc="lax.conv_general_dilated (explicit padding, dimension numbers as permutations)",
            defaults=(("feature_group_count", 1), ("batch_group_count", 1)),
        ),
        kernel=_kernel,
        shape=_shape,
        jvp=_jvp,
        transpose=_transpose,
        batch=_batch,
        fusion=Fusion(dask=conv_dask),
        batched_dot=lambda op: True,  # JAX's dots_saveable saves it; the no-batch one does not
    ),
)
