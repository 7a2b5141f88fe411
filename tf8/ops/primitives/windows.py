"""Windowed reductions: `reduce_window_sum`, `reduce_window_max`, `reduce_window_min`, and
the two rows a max-pool's derivatives are made of, `select_and_gather_add` and
`select_and_scatter_add` (JAX's primitives of those names).

All five share JAX's window parameters (`tf8.ops.window_kernels`): `window_dimensions`,
`window_strides`, `padding` as `(low, high)` pairs, `base_dilation`, `window_dilation`; the
selecting rows add `select_prim` ("ge" for a maximum, "le" for a minimum).

- `reduce_window_sum` is linear; its transpose pads the cotangent (interior: the strides)
  and sums it over windows again, as JAX's.
- `reduce_window_max`'s tangent is `select_and_gather_add(t, x)`: each window's tangent at
  the position of its maximum (the first, on ties).
- `select_and_gather_add(t, x)` is linear in `t` (x held fixed); its transpose is
  `select_and_scatter_add(ct, x)`, which adds each window's cotangent at that position, and
  whose transpose is `select_and_gather_add` again: so jvp and vjp nest to any order. As in
  XLA, the gather starts its choice from the identity (a window of -inf values gives 0) and
  skips padding, the scatter starts from the window's first element, padding included; they
  differ only on -inf and NaN (`tf8.ops.window_kernels`). Unlike JAX's, the
  scatter takes base and window dilation too, so a dilated max-pool has a VJP.

Batching adds a window of one along the batch axis. Dask runs each row blockwise along the
axes no window spans, the others one chunk.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ParameterError, ShapeError
from tf8.ops import window_kernels as wk
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define
from tf8.ops.fusion import Fusion
from tf8.ops.shape_checks import Guards, require_equal
from tf8.ops.shapes import Dim, shape_str

_R, _P = Category.REDUCTION, DTypePolicy
WINDOW = ("window_dimensions", "window_strides", "padding", "base_dilation", "window_dilation")


# --- shape rules ------------------------------------------------------------------------------


def _check_window(op: Any, shape: tuple[Dim, ...]) -> None:
    """The window parameters: one entry per axis of `shape`, positive sizes, integer pairs."""
    rank = len(shape)
    for name in WINDOW:
        value = op[name]
        if not isinstance(value, tuple) or len(value) != rank:
            raise ShapeError(
                f"{op.name}: {name}={value!r} must have one entry per axis of the operand "
                f"of shape {shape_str(shape)} ({rank})"
            )
    for name in ("window_dimensions", "window_strides", "base_dilation", "window_dilation"):
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in op[name]):
            raise ParameterError(
                f"{op.name}: {name} must be positive integers, got {op[name]} for an operand "
                f"of shape {shape_str(shape)}"
            )
    for pair in op["padding"]:
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(type(v) is int for v in pair)):
            raise ParameterError(
                f"{op.name}: padding must be (low, high) integer pairs, got {op['padding']}"
            )


def _plain(op: Any, axis: int) -> bool:
    """Whether no window spans `axis` (size 1, stride 1, no padding or dilation)."""
    return (
        op["window_dimensions"][axis] == op["window_strides"][axis] == 1
        and op["padding"][axis] == (0, 0)
        and op["base_dilation"][axis] == 1
    )


def _windows_shape(op: Any, shape: tuple[Dim, ...]) -> tuple[Dim, ...]:
    """The result shape: the number of windows along each axis."""
    _check_window(op, shape)
    out: list[Dim] = []
    for axis, n in enumerate(shape):
        if _plain(op, axis):
            out.append(n)
        elif not isinstance(n, int):
            raise ShapeError(
                f"{op.name}: axis {axis} of the operand of shape {shape_str(shape)} has a "
                "symbolic size, but a window spans it (its size must be known)"
            )
        else:
            out.append(
                wk.output_size(
                    n,
                    op["window_dimensions"][axis],
                    op["window_strides"][axis],
                    op["padding"][axis],
                    op["base_dilation"][axis],
                    op["window_dilation"][axis],
                )
            )
    return tuple(out)


def _reduce_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    return _windows_shape(op, avals[0].shape)


def _gather_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    tangents, operand = avals
    _check_select(op)
    if len(tangents.shape) != len(operand.shape):
        raise ShapeError(
            f"{op.name}: tangents {tangents} and operand {operand} must have one shape"
        )
    for a, b in zip(tangents.shape, operand.shape):
        require_equal(op, a, b, lambda: f"tangents {tangents} and operand {operand}", guards)
    return _windows_shape(op, operand.shape)


def _scatter_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    source, operand = avals
    _check_select(op)
    windows = _windows_shape(op, operand.shape)
    if len(source.shape) != len(windows):
        raise ShapeError(
            f"{op.name}: source {source} must have the shape of the windows "
            f"{shape_str(windows)} of operand {operand}"
        )
    for a, b in zip(source.shape, windows):
        require_equal(op, a, b, lambda: f"source {source} against windows of {operand}", guards)
    return operand.shape


def _check_select(op: Any) -> None:
    if op["select_prim"] not in ("ge", "le"):
        raise ParameterError(
            f"{op.name}: select_prim must be 'ge' (a maximum) or 'le' (a minimum), "
            f"got {op['select_prim']!r}"
        )


# --- derivatives ------------------------------------------------------------------------------


def _window_params(op: Any) -> dict[str, Any]:
    return {name: op[name] for name in WINDOW}


def _sum_transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
    """Each operand element receives the cotangents of the windows holding it: the cotangent
    dilated by the strides and padded, summed over (dilated) windows at the base dilation's
    stride (JAX's transpose, via the padding of a convolution's input gradient)."""
    (x,) = operands
    window, strides = op["window_dimensions"], op["window_strides"]
    base, rates = op["base_dilation"], op["window_dilation"]
    config = []
    for n, w, s, (lo, _), b, r, o in zip(
        x.shape, window, strides, op["padding"], base, rates, ct.shape
    ):
        before = wk.dilated(w, r) - lo - 1
        after = wk.dilated(n, b) + wk.dilated(w, r) - 1 - wk.dilated(o, s) - before
        config.append((before, after, s - 1))
    grown = lax.apply1("pad", [ct, lax.zeros(Aval((), ct.dtype))], config=tuple(config))
    ones = (1,) * x.ndim
    return [
        lax.apply1(
            "reduce_window_sum",
            [grown],
            window_dimensions=window,
            window_strides=base,
            padding=((0, 0),) * x.ndim,
            base_dilation=ones,
            window_dilation=rates,
        )
    ]


def _chooser_jvp(select_prim: str) -> Any:
    """The tangent of a windowed maximum (minimum): each window's tangent where it chose."""

    def jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list:
        (x,), (t,) = primals, tangents
        if t is None:
            return [None]
        params = _window_params(op)
        return [lax.apply1("select_and_gather_add", [t, x], select_prim=select_prim, **params)]

    return jvp


def _swap_to(name: str) -> Any:
    """The transpose of one selecting row: the other, on the cotangent and the same operand."""

    def transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
        _, x = operands
        params = {"select_prim": op["select_prim"], **_window_params(op)}
        return [lax.apply1(name, [ct, x], **params) if linear[0] else None, None]

    return transpose


# --- batching ---------------------------------------------------------------------------------


def _with_plain_axis(op: Any, at: int) -> dict[str, Any]:
    """The window parameters with an axis no window spans inserted at `at`."""
    plain = {
        "window_dimensions": 1,
        "window_strides": 1,
        "padding": (0, 0),
        "base_dilation": 1,
        "window_dilation": 1,
    }
    return {name: (*op[name][:at], plain[name], *op[name][at:]) for name in WINDOW}


def _batch(lax: Any, op: Any, args: list, dims: list) -> tuple[list, list]:
    if len(args) == 1:  # the batch axis stays where it is
        d = dims[0]
        return [lax.apply(lax.with_params(op, **_with_plain_axis(op, d)), args)[0]], [d]
    size = lax.batch_size(args, dims)
    moved = [lax.at_front(x, d, size) for x, d in zip(args, dims)]
    return [lax.apply(lax.with_params(op, **_with_plain_axis(op, 0)), moved)[0]], [0]


# --- Dask -------------------------------------------------------------------------------------


def _dask(kernel: Any, reference: int) -> Any:
    """The row on Dask: `kernel` on each block, the blocks split along the axes no window
    spans (those of operand `reference`, the one of the operand's shape); the others
    rechunked to one chunk."""

    def run(kit: Any, op: Any, *xs: Any) -> Any:
        xs = tuple(kit.as_dask(x) for x in xs)
        ref = xs[reference]
        if ref.ndim == 0:
            return kit.single_chunk(op, *xs)
        plain = [_plain(op, a) for a in range(ref.ndim)]
        ref = ref.rechunk(tuple(c if p else -1 for c, p in zip(ref.chunks, plain)))
        chunks = tuple(c if p else -1 for c, p in zip(ref.chunks, plain))
        aligned = [x.rechunk(chunks) for x in xs]
        if reference == 1:  # the scatter: a result of the operand's shape
            out_shape, dtype = ref.shape, xs[0].dtype
        else:
            out_shape, dtype = wk.output_shape(op, ref.shape), xs[0].dtype
        out_chunks = tuple(c if p else (n,) for c, p, n in zip(ref.chunks, plain, out_shape))
        return kit.array.map_blocks(
            functools.partial(kernel, op),
            *aligned,
            chunks=out_chunks,
            dtype=dtype,
            meta=np.empty((0,) * ref.ndim, dtype),
        )

    return run


# --- rows -------------------------------------------------------------------------------------


def _reduction(name: str, ufunc: np.ufunc, kind: str, doc: str, **rules: Any) -> OpDefinition:
    def kernel(op: Any, x: np.ndarray) -> np.ndarray:
        return wk.reduce_window(op, x, ufunc, kind)

    return define(
        Row(name, _R, _P.SAME_NUMERIC, 1, 1, WINDOW, linear=kind == "sum", doc=doc),
        kernel=kernel,
        shape=_reduce_shape,
        batch=_batch,
        fusion=Fusion(dask=_dask(kernel, 0)),
        **rules,
    )


REDUCE_WINDOW_SUM = _reduction(
    "reduce_window_sum",
    np.add,
    "sum",
    "sum over padded, dilated windows (lax.reduce_window with lax.add)",
    transpose=_sum_transpose,
)
REDUCE_WINDOW_MAX = _reduction(
    "reduce_window_max",
    np.maximum,
    "max",
    "max over padded, dilated windows (padding is -inf); NaN propagates",
    jvp=_chooser_jvp("ge"),
)
REDUCE_WINDOW_MIN = _reduction(
    "reduce_window_min",
    np.minimum,
    "min",
    "min over padded, dilated windows (padding is +inf); NaN propagates",
    jvp=_chooser_jvp("le"),
)

SELECT_AND_GATHER_ADD = define(
    Row(
        "select_and_gather_add",
        _R,
        _P.SAME_FLOAT_OR_COMPLEX,
        2,
        2,
        ("select_prim", *WINDOW),
        doc="select_and_gather_add(t, x): t at each window's max (ge) or min (le) of x",
        linear_in=(0,),
    ),
    kernel=wk.select_and_gather_add,
    shape=_gather_shape,
    transpose=_swap_to("select_and_scatter_add"),
    batch=_batch,
    fusion=Fusion(dask=_dask(wk.select_and_gather_add, 0)),
)
SELECT_AND_SCATTER_ADD = define(
    Row(
        "select_and_scatter_add",
        Category.INDEXING,
        _P.SAME_FLOAT_OR_COMPLEX,
        2,
        2,
        ("select_prim", *WINDOW),
        doc="select_and_scatter_add(s, x): s added at each window's max (ge) or min (le) of x",
        linear_in=(0,),
    ),
    kernel=wk.select_and_scatter_add,
    shape=_scatter_shape,
    transpose=_swap_to("select_and_gather_add"),
    batch=_batch,
    fusion=Fusion(dask=_dask(wk.select_and_scatter_add, 1)),
)

DEFINITIONS: tuple[OpDefinition, ...] = (
    REDUCE_WINDOW_SUM,
    REDUCE_WINDOW_MAX,
    REDUCE_WINDOW_MIN,
    SELECT_AND_GATHER_ADD,
    SELECT_AND_SCATTER_ADD,
)
