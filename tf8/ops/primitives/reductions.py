"""Reductions: sums, products, maxima and minima over axes, argmax/argmin and the running sum.

Each row sits with its numpy kernel, shape rule, JVP rule (written with the builders the
transforms hand in as `lax`), transpose rule when linear, batching rule, and the facts the
engines fuse it by: `ufunc.reduce` on the numpy engine, an accumulator (a full reduction)
or a loop (along some axes) on the numba engine, the dask.array reduction on the Dask engine.
Maxima and minima follow XLA's rule for zeros (+0 is greater than -0: `tf8.ops.extrema`),
which numpy's `maximum.reduce` does not, so every engine computes them by that module's rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.errors import ShapeError
from tf8.ops import dtypes as dt
from tf8.ops import extrema
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define, zero_jvp
from tf8.ops.extrema import MAX_FOLD, MIN_FOLD
from tf8.ops.fusion import Fusion, Index, Loop, Read, Shape
from tf8.ops.infer import axes_param
from tf8.ops.shape_checks import Guards, check_axis, require_equal
from tf8.ops.shapes import Dim, DimExpr, dim_min, shape_str

from .batch_axes import batched_axis, example_axes, example_axis
from .common import Kernel

_R, _P = Category.REDUCTION, DTypePolicy


# --- shape rules ------------------------------------------------------------------------------


def _reduce_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    axes = axes_param(op, op["axes"], len(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _extremum_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    """max/min have no identity: every reduced axis must hold an element."""
    shape = avals[0].shape
    axes = axes_param(op, op["axes"], len(shape))
    if any(shape[a] == 0 for a in axes):
        raise ShapeError(f"{op.name}: zero-size axis {axes} of {shape_str(shape)} has no identity")
    for a in axes:
        _guard_nonempty(op, shape, a, guards)
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _guard_nonempty(op: Any, shape: tuple[Dim, ...], axis: int, guards: Guards) -> None:
    """A symbolic axis that max/min/argmax reduces must hold an element when the program runs."""
    if isinstance(shape[axis], DimExpr):
        text = f"axis {axis} of {shape_str(shape)} must not be empty ({op.name} has no identity)"
        require_equal(op, dim_min(shape[axis], 1), 1, text, guards)


def _arg_reduce_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    axis = check_axis(op, op["axis"], len(shape), scalar_as_vector=True)
    if shape and shape[axis] == 0:
        raise ShapeError(f"{op.name}: attempt to take {op.name} of an empty axis")
    if shape:
        _guard_nonempty(op, shape, axis, guards)
    return shape[:axis] + shape[axis + 1 :]


def _cumsum_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    check_axis(op, op["axis"], avals[0].ndim, scalar_as_vector=True)
    return avals[0].shape


# --- kernels ----------------------------------------------------------------------------------


def _reduction_kernel(ufunc: np.ufunc) -> Kernel:
    """`ufunc.reduce` over the op's axes in the input's dtype (numpy would widen small ints):
    what np.sum/np.prod call, minus their Python layer."""
    reduce = ufunc.reduce

    def kernel(op: Any, x: np.ndarray) -> np.ndarray:
        return reduce(x, axis=tuple(op["axes"]), dtype=x.dtype)

    return kernel


def _cumsum(op: Any, x: np.ndarray) -> np.ndarray:
    if x.ndim == 0:  # one element (np.cumsum would return shape (1,), inference says ())
        return x.copy()
    axis = op["axis"]
    if op["reverse"]:
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
    return np.cumsum(x, axis=axis, dtype=x.dtype)


# --- numba loops and dask.array kernels -------------------------------------------------------


def _reduce_loop(init: str, fold: str) -> Any:
    """numba's loop nests: the element of a reduction along axes as loops over those axes,
    `fold` (a statement on `{acc}` and `{e}`) accumulating from `init`."""

    def loop(op: Any, shapes: Sequence[Shape], idx: Index, read: Read, name: str) -> Loop:
        axes = sorted(a % len(shapes[0]) for a in op["axes"])
        kept = iter(idx)
        at = tuple(
            f"{name}{axes.index(a)}" if a in axes else next(kept) for a in range(len(shapes[0]))
        )
        return Loop(init, fold, tuple(shapes[0][a] for a in axes), read(0, at))

    return loop


def _reduction_dask(function: str) -> Any:
    """The dask.array reduction `function` over the op's axes, in the operand's dtype."""

    def kernel(kit: Any, op: Any, x: Any) -> Any:
        reduce = getattr(kit.array, function)
        return reduce(kit.as_dask(x), axis=tuple(op["axes"]), dtype=x.dtype)

    return kernel


def _extremum_dask(reduce: Callable[..., Any]) -> Any:
    """dask.array's reduction with `reduce` (tf8.ops.extrema's) on each chunk and on the
    chunks' results: dask's own max and min are numpy's, signs of zeros and all."""

    def kernel(kit: Any, op: Any, x: Any) -> Any:
        x = kit.as_dask(x)
        axes = tuple(op["axes"])
        meta = np.empty((0,) * (x.ndim - len(axes)), x.dtype)
        return kit.array.reduction(x, reduce, reduce, axis=axes, dtype=x.dtype, meta=meta)

    return kernel


def _cumsum_dask(kit: Any, op: Any, x: Any) -> Any:
    da, x = kit.array, kit.as_dask(x)
    if x.ndim == 0:
        return x
    axis = op["axis"]
    if op["reverse"]:
        return da.flip(da.cumsum(da.flip(x, axis), axis=axis, dtype=x.dtype), axis)
    return da.cumsum(x, axis=axis, dtype=x.dtype)


# --- derivatives ------------------------------------------------------------------------------


def _extremum_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list:
    """Tangent of max/min over axes: the mean of the tangents at the tied extremal positions."""
    (x,), (t,) = primals, tangents
    if t is None:
        return [None]
    axes = lax.normalize_axes(op["axes"], x.ndim)
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    out = lax.apply1("broadcast_in_dim", [outputs[0]], shape=x.shape, broadcast_dimensions=kept)
    mask = lax.convert(lax.compare(x, out, "eq"), x.dtype)
    count = lax.apply1("reduce_sum", [mask], axes=axes)
    return [lax.div(lax.apply1("reduce_sum", [lax.mul(t, mask)], axes=axes), count)]


def _prod_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list:
    """d prod = sum_i t_i * prod_{j != i} x_j, exact at zeros (no division by x)."""
    (x,), (t,) = primals, tangents
    if t is None:
        return [None]
    axes = lax.normalize_axes(op["axes"], x.ndim)
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    perm = kept + tuple(axes)
    size = 1
    for a in axes:
        size = size * x.shape[a]
    batch = tuple(x.shape[i] for i in kept)

    def flatten(v: Any) -> Any:
        return lax.apply1(
            "reshape", [lax.apply1("transpose", [v], permutation=perm)], shape=batch + (size,)
        )

    flat, t_flat = flatten(x), flatten(t)
    nb = len(batch)
    # others[..., i, j] = x_j for j != i, 1 on the diagonal; its product over j excludes x_i.
    grid = lax.apply1(
        "broadcast_in_dim",
        [flat],
        shape=batch + (size, size),
        broadcast_dimensions=tuple(range(nb)) + (nb + 1,),
    )
    rows = lax.apply1("iota", [], shape=(size, size), dtype=dt.int64, dimension=0)
    cols = lax.apply1("iota", [], shape=(size, size), dtype=dt.int64, dimension=1)
    diagonal = lax.apply1(
        "broadcast_in_dim",
        [lax.compare(rows, cols, "eq")],
        shape=batch + (size, size),
        broadcast_dimensions=(nb, nb + 1),
    )
    others = lax.apply1("reduce_prod", [lax.select(diagonal, 1, grid)], axes=(nb + 1,))
    return [lax.apply1("reduce_sum", [lax.mul(t_flat, others)], axes=(nb,))]


def _sum_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list:
    (x,) = operands
    axes = lax.normalize_axes(op["axes"], x.ndim)
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    return [lax.broadcast(ct, x.shape, kept)]


def _cumsum_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list:
    return [lax.apply1("cumsum", [ct], axis=op["axis"], reverse=not op["reverse"])]


# --- batching ---------------------------------------------------------------------------------


def _reduce_batch(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
    (x,), (d,) = args, dims
    axes = tuple(batched_axis(a, d) for a in example_axes(op["axes"], x.ndim - 1))
    out_dim = d - sum(1 for a in axes if a < d)
    return [lax.apply(lax.with_params(op, axes=axes), [x])[0]], [out_dim]


def _arg_reduce_batch(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
    (x,), (d,) = args, dims
    if x.ndim == 1:  # per-example scalars: one element along a new axis, as numpy reads them
        x = lax.reshape(x, (*x.shape, 1))
        return [lax.apply(lax.with_params(op, axis=1), [x])[0]], [0]
    axis = batched_axis(example_axis(op["axis"], x.ndim - 1), d)
    return [lax.apply(lax.with_params(op, axis=axis), [x])[0]], [d if d < axis else d - 1]


def _cumsum_batch(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
    (x,), (d,) = args, dims
    if x.ndim == 1:  # the running sum of one element is itself
        return [x], [d]
    axis = batched_axis(example_axis(op["axis"], x.ndim - 1), d)
    return [lax.apply(lax.with_params(op, axis=axis), [x])[0]], [d]


# --- rows -------------------------------------------------------------------------------------


def _reduction(
    name: str,
    doc: str,
    ufunc: np.ufunc,
    accumulate: tuple[str, str],
    *,
    fold: str,
    lazy: str,
    **rules: Any,
) -> OpDefinition:
    """A reduction over `axes` computed by `ufunc.reduce` in the operand's dtype (numba: an
    accumulator over every axis, `fold` in loops along some; Dask: the dask.array reduction
    `lazy`)."""
    return define(
        Row(name, _R, _P.SAME_NUMERIC, 1, 1, ("axes",), linear=name == "reduce_sum", doc=doc),
        kernel=_reduction_kernel(ufunc),
        shape=_reduce_shape,
        batch=_reduce_batch,
        fusion=Fusion(
            reduce=(ufunc, True),
            accumulate=accumulate,
            loop=_reduce_loop(accumulate[0], fold),
            dask=_reduction_dask(lazy),
        ),
        **rules,
    )


def _extremum(
    name: str, doc: str, reduce: Callable[..., Any], accumulate: tuple[str, str], fold: str
) -> OpDefinition:
    """max/min over `axes`, with XLA's signed zeros (`reduce`, `fold` and the lanes' fold:
    tf8.ops.extrema's rule), so not numpy's `ufunc.reduce`; no identity."""
    return define(
        Row(name, _R, _P.SAME_NUMERIC, 1, 1, ("axes",), doc=doc),
        kernel=lambda op, x: reduce(x, axis=tuple(op["axes"])),
        shape=_extremum_shape,
        jvp=_extremum_jvp,
        batch=_reduce_batch,
        fusion=Fusion(
            accumulate=accumulate,
            loop=_reduce_loop(accumulate[0], fold),
            dask=_extremum_dask(reduce),
        ),
    )


def _argreduce(name: str, doc: str, fn: Callable) -> OpDefinition:
    return define(
        Row(name, _R, _P.INDEX, 1, 1, ("axis",), doc=doc),
        kernel=lambda op, x: fn(x, axis=op["axis"]).astype(dt.index_dtype()),
        shape=_arg_reduce_shape,
        jvp=zero_jvp,  # an index carries no derivative
        batch=_arg_reduce_batch,
        fusion=Fusion(
            dask=lambda kit, op, x: getattr(kit.array, fn.__name__)(
                kit.as_dask(x), axis=op["axis"]
            ).astype(dt.index_dtype())
        ),
    )


DEFINITIONS: tuple[OpDefinition, ...] = (
    _reduction(
        "reduce_sum",
        "sum over axes",
        np.add,
        ("0.0", "sum_block"),
        transpose=_sum_transpose,
        fold="{acc} += {e}",
        lazy="sum",
    ),
    _reduction(
        "reduce_prod",
        "product over axes",
        np.multiply,
        ("1.0", "prod_block"),
        jvp=_prod_jvp,
        fold="{acc} *= {e}",
        lazy="prod",
    ),
    # NaN propagates, and +0 is greater than -0 (XLA's rule)
    _extremum(
        "reduce_max", "max over axes", extrema.reduce_max, ("-np.inf", "max_block"), MAX_FOLD
    ),
    _extremum("reduce_min", "min over axes", extrema.reduce_min, ("np.inf", "min_block"), MIN_FOLD),
    _argreduce("argmax", "index of the first max (int64)", np.argmax),
    _argreduce("argmin", "index of the first min (int64)", np.argmin),
    define(
        Row(
            "cumsum",
            _R,
            _P.SAME_NUMERIC,
            1,
            1,
            ("axis", "reverse"),
            linear=True,
            doc="running sum",
            defaults=(("reverse", False),),
        ),
        kernel=_cumsum,
        shape=_cumsum_shape,
        transpose=_cumsum_transpose,
        batch=_cumsum_batch,
        fusion=Fusion(dask=_cumsum_dask),
    ),
)
