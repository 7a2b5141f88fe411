"""Kernel ops of the numba engine: ops that run as one compiled kernel each (the Threefry-2x32
hash), beside the fused regions of scalar code.

`KERNEL_OPS` is keyed like every kernel table (`definition(op).rule_key`); an entry says
which operands it takes (`supports`, on the avals its kernel reads) and builds its compiled
function on first use (`build`, which imports numba). A run of instructions placed on the
engine that holds kernel ops is cut into segments: each kernel op is a segment of its own
(its operands' folded metadata views are applied before the call), and each stretch of other
instructions is one fused region as usual; one Python function runs the segments in order.

Threefry-2x32 is placed here when its key is one key (sizes 1) and each counter has the
result's size or size 1; batches of keys (vmap of a sampler) stay on the numpy engine.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tf8.ops.definition import definition, infer
from tf8.ops.extension.threefry import Threefry2x32
from tf8.ops.primitive import Primitive
from tf8.ops.shapes import has_symbolic, is_symbolic
from tf8.runtime.engines.base import GuestRegion

Fused = Callable[[Any, Sequence[int], Sequence[int]], GuestRegion]


@dataclass(frozen=True)
class KernelOp:
    """`supports(avals)`: inputs then outputs, as the kernel reads them; `build()`: the
    kernel `(op, *arrays) -> tuple of arrays`, compiled on first use."""

    supports: Callable[[Sequence[Any]], bool]
    build: Callable[[], Callable[..., tuple]]


def _threefry_supports(avals: Sequence[Any]) -> bool:
    key1, key2, x1, x2, out, _ = avals
    if any(is_symbolic(a.shape) or a.dtype != np.uint32 for a in avals):
        return False
    size = math.prod(out.shape)
    return (
        math.prod(key1.shape) == math.prod(key2.shape) == 1
        and math.prod(x1.shape) in (1, size)
        and math.prod(x2.shape) in (1, size)
    )


def _threefry_build() -> Callable[..., tuple]:
    from .random_kernels import threefry_flat  # imports numba (heavy): at the first hash run

    def kernel(op: Any, key1: Any, key2: Any, x1: Any, x2: Any) -> tuple:
        shape = np.broadcast_shapes(np.shape(x1), np.shape(x2), np.shape(key1))
        size = math.prod(shape)
        flat = [np.ascontiguousarray(x).reshape(-1) for x in (key1, key2, x1, x2)]
        if flat[2].size == 1:  # a writable copy: one compiled signature, read-only or not
            flat[2] = flat[2].copy()
        if flat[3].size != size:  # a counter x2 of size 1: read in full
            flat[3] = np.full(size, flat[3][0], np.uint32)
        out1, out2 = np.empty(size, np.uint32), np.empty(size, np.uint32)
        threefry_flat(flat[0][0], flat[1][0], flat[2], flat[3], out1, out2)
        return out1.reshape(shape), out2.reshape(shape)

    return kernel


KERNEL_OPS: dict[Hashable, KernelOp] = {
    Threefry2x32: KernelOp(_threefry_supports, _threefry_build),
}
_BUILT: dict[Hashable, Callable[..., tuple]] = {}


def declines(op: Any, avals: Sequence[Any]) -> bool:
    """Whether the engine leaves `op` on operands and results of `avals` to the host: a row
    whose definition says so for their dtype (`Fusion.numba_declines`: float32 log1p)."""
    if not avals or type(op) is not Primitive:
        return False
    return avals[0].dtype.name in definition(op).fusion.numba_declines


def handles(op: Any) -> bool:
    """Whether `op` is one of this table's kernel ops."""
    return not has_symbolic(getattr(op, "params", ())) and definition(op).rule_key in KERNEL_OPS


def _read_avals(inst: Any, program: Any) -> list[Any]:
    """The avals of `inst`'s operands as its kernel reads them (after their folded views)."""
    avals = []
    for position, s in enumerate(inst.inputs):
        aval = program.slot_avals[s]
        for view in inst.views_of(position):
            (aval,) = infer(view, [aval])
        avals.append(aval)
    return avals


def supports(op: Any, avals: Sequence[Any]) -> bool:
    """Whether kernel op `op` runs here on operands and results of `avals` (as read)."""
    return not avals or KERNEL_OPS[definition(op).rule_key].supports(avals)


def places(inst: Any, program: Any) -> bool:
    """Whether kernel op `inst` runs here on these operands."""
    avals = [*_read_avals(inst, program), *(program.slot_avals[s] for s in inst.outputs)]
    return supports(inst.op, avals)


def holds_kernel(instructions: Any) -> bool:
    """Whether a run of instructions holds a kernel op (then it is worth placing here: the
    kernel is compiled once per process, not per program)."""
    return any(handles(inst.op) for inst in instructions)


def _kernel_region(program: Any, index: int, outputs: Sequence[int]) -> GuestRegion:
    """One kernel op as a region: its folded views applied, then its compiled kernel."""
    inst = program.instructions[index]
    key = definition(inst.op).rule_key
    kernel = _BUILT.get(key)
    if kernel is None:
        kernel = _BUILT[key] = KERNEL_OPS[key].build()
    views = [[(definition(v).kernel, v) for v in inst.views_of(p)] for p in range(len(inst.inputs))]
    inputs = list(dict.fromkeys(inst.inputs))
    positions = [inputs.index(s) for s in inst.inputs]
    returned = [inst.outputs.index(s) for s in outputs]
    op = inst.op

    def run(*arrays: Any) -> tuple:
        operands = []
        for position, chain in zip(positions, views):
            value = np.asarray(arrays[position])
            for view_kernel, view in chain:
                value = view_kernel(view, value)
            operands.append(value)
        results = kernel(op, *operands)
        return tuple(results[k] for k in returned)

    description = f"numba: instruction {index} → the compiled {inst.name} kernel"
    return GuestRegion(run, inputs, list(outputs), "", description)


def region_code(
    program: Any, indices: Sequence[int], escapes: Sequence[int], fused: Fused
) -> GuestRegion:
    """A run holding kernel ops: its segments (kernel ops alone, the rest fused by `fused`)
    called in order by one function."""
    segments: list[list[int]] = []
    for i in indices:
        if (
            handles(program.instructions[i].op)
            or not segments
            or handles(program.instructions[segments[-1][-1]].op)
        ):
            segments.append([i])
        else:
            segments[-1].append(i)
    needed = set(escapes)
    outputs: list[list[int]] = [[] for _ in segments]
    for k in range(len(segments) - 1, -1, -1):
        made = [s for i in segments[k] for s in program.instructions[i].outputs]
        outputs[k] = [s for s in made if s in needed]
        needed.update(s for i in segments[k] for s in program.instructions[i].inputs)
    regions = [
        _kernel_region(program, seg[0], outs)
        if handles(program.instructions[seg[0]].op)
        else fused(program, seg, outs)
        for seg, outs in zip(segments, outputs)
    ]
    if len(regions) == 1:
        return regions[0]
    produced = {s for r in regions for s in r.outputs}
    inputs = list(dict.fromkeys(s for r in regions for s in r.inputs if s not in produced))
    scalars = frozenset(s for r in regions for s in r.scalar_inputs if s in inputs)
    steps = [(r.function, r.inputs, r.outputs, r.scalar_inputs) for r in regions]
    returned = list(escapes)

    def run(*arrays: Any) -> tuple:
        values = dict(zip(inputs, arrays))
        for function, reads, writes, scalar_reads in steps:
            args = [values[s][()] if s in scalar_reads & produced else values[s] for s in reads]
            values.update(zip(writes, function(*args)))
        return tuple(values[s] for s in returned)

    return GuestRegion(
        run,
        inputs,
        returned,
        "\n\n".join(r.source for r in regions if r.source),
        "; ".join(r.description for r in regions),
        next((r.path for r in regions if r.path is not None), None),
        all(r.loaded for r in regions if r.path is not None),
        scalars,
    )
