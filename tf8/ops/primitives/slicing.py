"""Windows of an array: `slice` (static bounds and strides), `dynamic_slice` and
`dynamic_update_slice` (starts computed by the program, clamped so the window fits).

`slice` is linear; the dynamic rows are linear in their array operands (`linear_in`), the
starts held fixed. With batched starts, vmap rewrites `dynamic_slice` as a gather and
`dynamic_update_slice` as a scatter into zeros plus a mask (loop-free). On Dask, windows at
starts known when the graph is built stay lazy slices.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import DTypeError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define
from tf8.ops.fusion import Bind, Fusion, Index, Shape, View, offset_index
from tf8.ops.shape_checks import Guards
from tf8.ops.shapes import Dim, shape_str

from .indexing import gather_batch, scatter_add_batch

_I, _P = Category.INDEXING, DTypePolicy


# --- slice ------------------------------------------------------------------------------------


def _slice(op: Any, x: np.ndarray) -> np.ndarray:
    strides = op["strides"] or (1,) * x.ndim
    return x[tuple(slice(a, b, s) for a, b, s in zip(op["start"], op["limit"], strides))]


def _slice_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape = avals[0].shape
    start, limit = op["start"], op["limit"]
    strides = op["strides"] or (1,) * len(shape)
    if not len(start) == len(limit) == len(strides) == len(shape):
        raise ShapeError(f"slice: start/limit/strides must have rank {len(shape)}")
    out = []
    for s, l, st, d in zip(start, limit, strides, shape):
        if st < 1 or (isinstance(s, int) and s < 0):
            raise ShapeError(f"slice: bad bounds start={start} limit={limit} strides={strides}")
        extent = l - s
        if isinstance(extent, int) and extent < 0:
            raise ShapeError(f"slice: limit {limit} below start {start} for {shape_str(shape)}")
        if isinstance(l, int) and isinstance(d, int) and l > d:
            raise ShapeError(f"slice: limit {limit} exceeds {shape_str(shape)}")
        out.append(extent if st == 1 else (extent + st - 1) // st)
    return tuple(out)


def _slice_transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
    (x,) = operands
    strides = op["strides"] or (1,) * x.ndim
    config = []
    for start, n, stride, dim in zip(op["start"], ct.shape, strides, x.shape):
        end = start + (n - 1) * stride + 1 if n else start
        config.append((start, dim - end, stride - 1))
    zero = lax.zeros(Aval((), ct.dtype))
    return [lax.apply1("pad", [ct, zero], config=tuple(config))]


def _slice_batch(lax: Any, op: Any, args: list, dims: list) -> tuple[list, list]:
    (x,), (d,) = args, dims
    start, limit, strides = list(op["start"]), list(op["limit"]), op["strides"]
    start.insert(d, 0)
    limit.insert(d, x.shape[d])
    if strides is not None:
        strides = (*strides[:d], 1, *strides[d:])
    changed = lax.with_params(op, start=tuple(start), limit=tuple(limit), strides=strides)
    return [lax.apply(changed, [x])[0]], [d]


def _slice_index(op: Any, shape: Shape, out: Shape, idx: Index) -> Index:
    strides = op["strides"] or (1,) * len(shape)
    return tuple(offset_index(i, st, s) for i, s, st in zip(idx, op["start"], strides))


def _slice_dask(kit: Any, op: Any, x: Any) -> Any:
    strides = op["strides"] or (1,) * x.ndim
    bounds = zip(op["start"], op["limit"], strides)
    return kit.as_dask(x)[tuple(slice(a, b, s) for a, b, s in bounds)]


def _slice_view(op: Any, x: str, bind: Bind) -> str:
    """numpy: the operand indexed by the window's slices (a global: built once)."""
    strides = op["strides"] or (1,) * len(op["start"])
    index = tuple(slice(*bounds) for bounds in zip(op["start"], op["limit"], strides))
    return f"{x}[{bind('ix', index)}]"


SLICE = define(
    Row(
        "slice",
        _I,
        _P.SAME_ANY,
        1,
        1,
        ("start", "limit", "strides"),
        linear=True,
        doc="x[a:b:s]",
        defaults=(("strides", None),),
    ),
    kernel=_slice,
    shape=_slice_shape,
    transpose=_slice_transpose,
    batch=_slice_batch,
    fusion=Fusion(dask=_slice_dask, view=View(code=_slice_view), index=_slice_index),
)


# --- dynamic_slice and dynamic_update_slice ---------------------------------------------------


def _clamped_starts(shape: tuple[int, ...], sizes: tuple[int, ...], starts: tuple) -> list[int]:
    return [int(min(max(int(s), 0), d - z)) for s, d, z in zip(starts, shape, sizes)]


def _index_scalars(op: Any, indices: Sequence[Aval], ndim: int) -> None:
    if len(indices) != ndim:
        raise ShapeError(f"{op.name}: needs {ndim} start indices, got {len(indices)}")
    for a in indices:
        if a.shape != () or a.dtype not in dt.INTEGERS:
            raise DTypeError(f"{op.name}: start indices must be int scalars, got {a}")


def _index_vectors(lax: Any, starts: list, dims: Sequence, size: Dim) -> Any:
    """The per-example start scalars as one (batch, rank) int64 index array."""
    columns = [
        lax.reshape(lax.at_front(lax.convert(s, dt.int64), d, size), (size, 1))
        for s, d in zip(starts, dims)
    ]
    return lax.apply1("concatenate", columns, axis=1)


def _static_starts(kit: Any, shape: Sequence[int], sizes: Sequence[int], starts: Sequence) -> Any:
    """Clamped start indices when they are known now (numpy constants), else None."""
    if any(isinstance(s, kit.array.Array) for s in starts):
        return None
    return _clamped_starts(tuple(shape), tuple(sizes), tuple(starts))


def _dynamic_slice(op: Any, x: np.ndarray, *starts: np.ndarray) -> np.ndarray:
    sizes = op["slice_sizes"]
    begin = _clamped_starts(x.shape, sizes, starts)
    return x[tuple(slice(b, b + z) for b, z in zip(begin, sizes))]


def _dynamic_slice_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape, sizes = avals[0].shape, op["slice_sizes"]
    _index_scalars(op, avals[1:], len(shape))
    if len(sizes) != len(shape):
        raise ShapeError(f"dynamic_slice: slice_sizes {sizes} do not fit {shape_str(shape)}")
    for s, d in zip(sizes, shape):
        if isinstance(s, int) and isinstance(d, int) and not 0 <= s <= d:
            raise ShapeError(f"dynamic_slice: slice_sizes {sizes} exceed {shape_str(shape)}")
    return tuple(sizes)


def _dynamic_slice_transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
    x, *starts = operands
    placed = lax.apply1("dynamic_update_slice", [lax.zeros(x.aval), ct, *starts])
    return [placed] + [None] * len(starts)


def _dynamic_slice_batch(lax: Any, op: Any, args: list, dims: list) -> tuple[list, list]:
    (x, *starts), (dx, *ds) = args, dims
    sizes = op["slice_sizes"]
    if all(d is None for d in ds):  # slice the whole batch axis
        zero = lax.full(Aval((), starts[0].dtype if starts else dt.int64), 0)
        starts.insert(dx, zero)
        sizes = (*sizes[:dx], x.shape[dx], *sizes[dx:])
        changed = lax.with_params(op, op.input_count + 1, slice_sizes=sizes)
        return [lax.apply(changed, [x, *starts])[0]], [dx]
    # Batched starts: a gather whose index vector is each example's starts (clamped alike).
    rank = len(starts)
    per_example = lax.make_primitive(
        "gather",
        2,
        {
            "offset_dims": tuple(range(rank)),
            "collapsed_slice_dims": (),
            "start_index_map": tuple(range(rank)),
            "slice_sizes": sizes,
        },
    )
    indices = _index_vectors(lax, starts, ds, lax.batch_size(args, dims))
    return gather_batch(lax, per_example, [x, indices], [dx, 0])


def _dynamic_slice_dask(kit: Any, op: Any, x: Any, *starts: Any) -> Any:
    """A slice at constant starts; starts computed in the program: one task (one chunk)."""
    begin = _static_starts(kit, x.shape, op["slice_sizes"], starts)
    if begin is None:
        return kit.single_chunk(op, x, *starts)
    sizes = op["slice_sizes"]
    return kit.as_dask(x)[tuple(slice(b, b + z) for b, z in zip(begin, sizes))]


DYNAMIC_SLICE = define(
    Row(
        "dynamic_slice",
        _I,
        _P.SAME_ANY,
        1,
        None,
        ("slice_sizes",),
        doc="operand, then one int scalar start per axis (clamped in range)",
        linear_in=(0,),
        dtype_operands=(0,),
    ),
    kernel=_dynamic_slice,
    shape=_dynamic_slice_shape,
    transpose=_dynamic_slice_transpose,
    batch=_dynamic_slice_batch,
    fusion=Fusion(dask=_dynamic_slice_dask),
)


def _dynamic_update_slice(
    op: Any, x: np.ndarray, update: np.ndarray, *starts: np.ndarray
) -> np.ndarray:
    begin = _clamped_starts(x.shape, update.shape, starts)
    out = x.copy()
    out[tuple(slice(b, b + z) for b, z in zip(begin, update.shape))] = update
    return out


def _dynamic_update_shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    shape, update = avals[0].shape, avals[1].shape
    _index_scalars(op, avals[2:], len(shape))
    if len(update) != len(shape) or any(
        isinstance(u, int) and isinstance(d, int) and u > d for u, d in zip(update, shape)
    ):
        raise ShapeError(
            f"dynamic_update_slice: update {shape_str(update)} does not fit {shape_str(shape)}"
        )
    return shape


def _dynamic_update_transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
    x, update, *starts = operands
    ct_x = None
    if linear[0]:
        ct_x = lax.apply1("dynamic_update_slice", [ct, lax.zeros(update.aval), *starts])
    ct_update = None
    if linear[1]:
        ct_update = lax.apply1("dynamic_slice", [ct, *starts], slice_sizes=tuple(update.shape))
    return [ct_x, ct_update] + [None] * len(starts)


def _dynamic_update_batch(lax: Any, op: Any, args: list, dims: list) -> tuple[list, list]:
    (x, update, *starts), (dx, du, *ds) = args, dims
    size = lax.batch_size(args, dims)
    x, update = lax.at_front(x, dx, size), lax.at_front(update, du, size)
    if all(d is None for d in ds):
        zero = lax.full(Aval((), starts[0].dtype if starts else dt.int64), 0)
        changed = lax.with_params(op, op.input_count + 1)
        return [lax.apply(changed, [x, update, zero, *starts])[0]], [0]
    # Batched starts: clamp them as the op does, scatter the update into zeros and select it
    # inside each example's window (exact: no arithmetic on the operand's values).
    shape, window = x.shape[1:], update.shape[1:]
    clamped = []
    for s, d, n, w in zip(starts, ds, shape, window):
        s = lax.at_front(lax.convert(s, dt.int64), d, size)
        lo, hi = lax.full(s.aval, 0), lax.full(s.aval, n - w)
        clamped.append(lax.apply1("clamp", [lo, s, hi]))
    rank = len(shape)
    per_example = lax.make_primitive(
        "scatter_add",
        3,
        {
            "update_window_dims": tuple(range(rank)),
            "inserted_window_dims": (),
            "scatter_dims_to_operand_dims": tuple(range(rank)),
        },
    )
    indices = _index_vectors(lax, clamped, [0] * rank, size)
    scattered = [lax.zeros(x.aval), indices, update]
    (placed,), _ = scatter_add_batch(lax, per_example, scattered, [0, 0, 0])
    inside = None
    for axis, (s, w) in enumerate(zip(clamped, window)):
        int64 = np.dtype(np.int64)
        position = lax.apply1("iota", [], shape=x.shape, dtype=int64, dimension=axis + 1)
        start = lax.broadcast(s, x.shape, (0,))
        after = lax.compare(position, start, "ge")
        before = lax.compare(position, lax.apply1("add", [start, lax.full(start.aval, w)]), "lt")
        both = lax.apply1("and", [after, before])
        inside = both if inside is None else lax.apply1("and", [inside, both])
    return [lax.select(inside, placed, x)], [0]


def _dynamic_update_dask(kit: Any, op: Any, x: Any, update: Any, *starts: Any) -> Any:
    """An update at constant starts: `x` cut around the window and concatenated back."""
    begin = _static_starts(kit, x.shape, update.shape, starts)
    if begin is None:
        return kit.single_chunk(op, x, update, *starts)

    def place(part: Any, axis: int) -> Any:
        if axis == part.ndim:
            return kit.as_dask(update)
        b, z = begin[axis], update.shape[axis]

        def cut(lo: int, hi: int) -> Any:
            return part[(slice(None),) * axis + (slice(lo, hi),)]

        pieces = [cut(0, b), place(cut(b, b + z), axis + 1), cut(b + z, part.shape[axis])]
        return kit.array.concatenate([p for p in pieces if p.shape[axis]], axis=axis)

    return place(kit.as_dask(x), 0) if x.ndim else kit.as_dask(update)


DYNAMIC_UPDATE_SLICE = define(
    Row(
        "dynamic_update_slice",
        _I,
        _P.SAME_ANY,
        2,
        None,
        doc="operand, update, then one int scalar start per axis (clamped)",
        linear_in=(0, 1),
        dtype_operands=(0, 1),
    ),
    kernel=_dynamic_update_slice,
    shape=_dynamic_update_shape,
    transpose=_dynamic_update_transpose,
    batch=_dynamic_update_batch,
    fusion=Fusion(dask=_dynamic_update_dask),
)


DEFINITIONS: tuple[OpDefinition, ...] = (SLICE, DYNAMIC_SLICE, DYNAMIC_UPDATE_SLICE)
