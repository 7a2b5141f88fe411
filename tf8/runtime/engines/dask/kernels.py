"""The Dask engine's kernel table: tf8 ops as lazy `dask.array` operations.

Every kernel takes `(op, *arrays)` (dask arrays, or numpy arrays for constants) and returns
a lazy dask array (a tuple of them for an op with several outputs); nothing is computed.

- elementwise and analytic rows run **tf8's own numpy kernel on each block**
  (`da.blockwise`), so they agree with the numpy engine bit for bit on any chunking; a
  kernel written with methods dask arrays share runs on the lazy arrays themselves
  (`Fusion.whole_array`: convert's `astype`);
- reductions, `cumsum`, `dot_general` (as `da.einsum`) and the structural rows map to their
  dask.array counterparts: each row carries its own lazy kernel in its home (`Fusion.dask`,
  handed `KIT`); so does einsum here;
- every other op runs its own numpy kernel as **one task**, when each operand is a single
  chunk (small data, or data rechunked so); on chunked operands it raises
  `tf8.errors.ChunkingError`, naming the op and saying what to do (rechunk, or compute
  first), never gathering the data behind the user's back.

The tasks (`Block`) hold the op and look its kernel up where they run, so they pickle to
`dask.distributed` worker processes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import dask
import dask.array as da
import numpy as np

from tf8.errors import ChunkingError
from tf8.ops.catalog import Category
from tf8.ops.definition import definition, infer
from tf8.ops.extension.einsum import Einsum
from tf8.ops.extension.fft import FFT
from tf8.ops.extension.linalg import kernels as linalg
from tf8.ops.extension.sort import Sort
from tf8.ops.extension.threefry import Threefry2x32
from tf8.ops.fpstate import ignore_fp_errors, restore_fp_errors
from tf8.ops.primitive import Aval

Kernel = Callable[..., Any]
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Block:
    """A task: tf8's numpy kernel of `op` on numpy blocks, floating-point warnings silenced
    (kernels follow IEEE). Picklable: it carries the op, not the kernel. Its dask token is
    the op's fingerprint key (dask's default, a cloudpickle, took ~40% of building a graph)."""

    __slots__ = ("op",)

    def __init__(self, op: Any) -> None:
        self.op = op

    def __call__(self, *blocks: Any) -> Any:
        token = ignore_fp_errors()
        try:
            return definition(self.op).kernel(self.op, *blocks)  # type: ignore[misc]
        finally:
            restore_fp_errors(token)

    def __repr__(self) -> str:
        return f"tf8:{self.op!r}"

    def __dask_tokenize__(self) -> tuple[str, str]:
        return type(self).__name__, self.op.key()  # the op decides what the task computes


def as_dask(x: Any) -> Any:
    """`x` as a dask array (a numpy array becomes one chunk)."""
    return x if isinstance(x, da.Array) else da.from_array(np.asarray(x), chunks=-1)


def empty(avals: Sequence[Aval], op: Any, *xs: Any) -> Any:
    """Empty results (`avals` of size 0) as empty dask arrays: no operand is read."""
    arrays = tuple(da.zeros(a.shape, dtype=a.dtype, chunks=-1) for a in avals)
    return arrays[0] if len(arrays) == 1 else arrays


def out_avals(op: Any, xs: Sequence[Any]) -> tuple[Aval, ...]:
    return infer(op, [Aval(tuple(x.shape), np.dtype(x.dtype)) for x in xs])


def _meta(aval: Aval) -> np.ndarray:
    return np.empty((0,) * len(aval.shape), aval.dtype)


def elementwise(op: Any, *xs: Any) -> Any:
    """Equal-shaped operands, one output of their shape: tf8's kernel blockwise."""
    (out,) = out_avals(op, xs)
    index = LETTERS[: len(out.shape)]
    pairs = [a for x in xs for a in (as_dask(x), index)]
    return da.blockwise(Block(op), index, *pairs, dtype=out.dtype, meta=_meta(out))


def whole_array(op: Any, *xs: Any) -> Any:
    """tf8's kernel on the lazy arrays themselves: it uses only methods dask arrays share
    (`Fusion.whole_array`, e.g. convert's `.astype`)."""
    return definition(op).kernel(op, *(as_dask(x) for x in xs))


class Stacked(Block):
    """A task: the outputs of tf8's kernel on numpy blocks, stacked along a new first axis."""

    __slots__ = ()

    def __call__(self, *blocks: Any) -> Any:
        return np.stack(super().__call__(*blocks))


def broadcasting(op: Any, *xs: Any) -> Any:
    """Operands of one rank broadcasting sizes 1, equal-shaped outputs (threefry2x32): the
    operands broadcast lazily to the outputs' shape, tf8's kernel blockwise, its outputs
    stacked per block and split again (the kernel runs once per block)."""
    outs = out_avals(op, xs)
    shape = tuple(outs[0].shape)
    chunks = next((x.chunks for x in xs if isinstance(x, da.Array) and x.shape == shape), "auto")
    index = LETTERS[1 : len(shape) + 1]
    pairs = [a for x in xs for a in (da.broadcast_to(as_dask(x), shape, chunks=chunks), index)]
    stacked = da.blockwise(
        Stacked(op), "a" + index, *pairs, new_axes={"a": len(outs)}, dtype=outs[0].dtype,
        meta=np.empty((0,) * (len(shape) + 1), outs[0].dtype),
    )  # fmt: skip
    return tuple(stacked[k] for k in range(len(outs)))


def single_chunk(op: Any, *xs: Any) -> Any:
    """Any op on operands that are each one chunk: tf8's kernel as one task."""
    chunked = [i for i, x in enumerate(xs) if isinstance(x, da.Array) and x.npartitions > 1]
    if chunked:
        i = chunked[0]
        raise ChunkingError(
            f"{op.name}: the Dask engine runs this op only on operands that are "
            f"one chunk, but operand {i} of shape {tuple(xs[i].shape)} has chunks "
            f"{xs[i].chunks}; rechunk it to one chunk (x.rechunk(-1)) if it fits one worker, "
            "or compute it first (np.asarray(x)) and call the function with numpy arrays"
        )
    outs = out_avals(op, xs)
    task = dask.delayed(Block(op), pure=True, nout=len(outs) if len(outs) > 1 else None)
    result = task(*[as_dask(x) for x in xs])
    if len(outs) == 1:
        return da.from_delayed(result, outs[0].shape, dtype=outs[0].dtype, meta=_meta(outs[0]))
    return tuple(
        da.from_delayed(result[i], a.shape, dtype=a.dtype, meta=_meta(a))
        for i, a in enumerate(outs)
    )


def along_one_chunk(op: Any, x: Any, axes: Sequence[int], what: str) -> Any:
    """`x` checked to be one chunk along `axes` (an op batched along the others)."""
    for axis in axes:
        if len(x.chunks[axis]) > 1:
            raise ChunkingError(
                f"{op.name}: {what} axis {axis} of the operand of shape "
                f"{tuple(x.shape)} must be one chunk on the Dask engine, but it has chunks "
                f"{x.chunks[axis]}; rechunk it (x.rechunk({{{axis}: -1}})) or compute first"
            )
    return x


# --- families -----------------------------------------------------------------------------


def _einsum(op: Any, *xs: Any) -> Any:
    (out,) = out_avals(op, xs)
    inputs, output, _ = op.payload
    if any("..." in s for s in (*inputs, output)):
        return single_chunk(op, *xs)
    return da.einsum(op.subscripts, *[as_dask(x) for x in xs], dtype=out.dtype)


def batched(core: int) -> Kernel:
    """A one-operand, one-result op on the last `core` axes, batched over the leading ones
    (extract_diag, embed_diag, linalg): tf8's kernel blockwise, the core axes one chunk.
    Ops with several operands or results run as one task."""

    def kernel(op: Any, *xs: Any) -> Any:
        outs = out_avals(op, xs)
        if len(xs) != 1 or len(outs) != 1:
            return single_chunk(op, *xs)
        x, (out,) = as_dask(xs[0]), outs
        along_one_chunk(op, x, range(x.ndim - core, x.ndim), "core")
        batch = LETTERS[: x.ndim - core]
        fresh = LETTERS[len(LETTERS) - (len(out.shape) - len(batch) + core) :]
        ins, outs_index = batch + fresh[:core], batch + fresh[core:]
        new = {c: out.shape[len(batch) + i] for i, c in enumerate(fresh[core:])}
        return da.blockwise(
            Block(op),
            outs_index,
            x,
            ins,
            dtype=out.dtype,
            new_axes=new,
            concatenate=True,
            meta=_meta(out),
        )

    return kernel


def along_axis(op: Any, *xs: Any) -> Any:
    """An op of one operand along one axis (`op.axis`: fft, sort): tf8's kernel on each
    block, the axis one chunk (batched along the others)."""
    outs = out_avals(op, xs)
    if len(xs) != 1 or len(outs) != 1:
        return single_chunk(op, *xs)
    axis = op.axis
    x, (out,) = along_one_chunk(op, as_dask(xs[0]), [axis], "the transformed"), outs
    chunks = tuple((out.shape[axis],) if i == axis else c for i, c in enumerate(x.chunks))
    return da.map_blocks(Block(op), x, chunks=chunks, dtype=out.dtype, meta=_meta(out))


# What a primitive's own Dask kernel (`Fusion.dask`, in its home) is handed, as `kit`.
KIT = SimpleNamespace(array=da, as_dask=as_dask, single_chunk=single_chunk)


def by_category(found: Any) -> Kernel | None:
    """The kernel of a catalog primitive: its own (`Fusion.dask`), else by its category:
    tf8's numpy kernel on each block for an elementwise or analytic row (on the lazy arrays
    themselves where the definition says it runs on them, `Fusion.whole_array`), one task on
    a single chunk otherwise (None: refused, a host row, whose sizes are known only while
    running)."""
    if found.row is None:
        return None
    if found.fusion.dask is not None:
        return functools.partial(found.fusion.dask, KIT)
    if found.host_only:
        return None
    if found.fusion.whole_array:
        return whole_array
    if found.category in (Category.ELEMENTWISE, Category.ANALYTIC):
        return elementwise
    return single_chunk


def _table() -> dict[Any, Kernel]:
    """The extension families' kernels, by op class (a catalog primitive's comes from its
    definition: `by_category`)."""
    table: dict[Any, Kernel] = {}
    for cls in linalg.KERNELS:  # matrices batched along unchunked matrix axes
        table[cls] = batched(2)
    table.update({Einsum: _einsum, FFT: along_axis, Sort: along_axis, Threefry2x32: broadcasting})
    return table


KERNELS = _table()
