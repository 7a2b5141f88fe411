"""Elementwise regions: runs of large same-shape ufunc ops executed in cache-sized blocks.

numpy evaluates `acc * x + x` over 10^6 elements as whole-array passes through memory, one per
op. A region instead walks the arrays in blocks of BLOCK elements and runs every op of the
run on one block before moving on, writing into a few block-sized temporaries, so
intermediates stay in cache; only values read after the region (or returned) are written
to full-size arrays. DESIGN §6 measured on a 41-op chain over 10^6 float64: naive numpy
1.00, in-place 0.66-0.70, blocked 0.40-0.46.

What is left is numpy's own loop (about 0.17-0.2 ns per element and op from L1, L2 or L3
alike on the 2-core AMD EPYC of the benchmarks: 40 ops over 10^6 elements cost 7 ms at
best) and the cost of each ufunc call (about 0.3-0.4 µs in the block loop). Hence blocks
as large as the caches allow: BLOCK = 32768 elements measured as fast as 16384 on the
3-array forward chain and 7-10% faster on its 22-array gradient (whose blocks live in L3),
while 2048-element blocks, all in L1, cost 1.3-1.5x in call overhead.

Exactness: each element goes through the same ufuncs, on the same dtypes, in the same order
as op by op, and BLOCK is a multiple of 64 elements so SIMD loops split every array at the
same places; a region is bit-for-bit equal to op-by-op execution.

A reduction right after the region ends it (counted with it in the statistics). A full sum
of one of its values is fused (`Region.summed`) when blocksum.py can reproduce numpy's
pairwise order: the blocks are then the segments of numpy's summation tree, each block
returns the sum of its segment, and the partial sums are added up the same tree, bit for bit
numpy's sum, without writing the summed value to memory. Such blocks do not start at
multiples of the SIMD width, so only LANE_EXACT ops may be in the region. Other reductions
run after the blocked loop, on the full array.

A region's blocks run through blocks.py's BlockRunner: on the calling thread, or — for a
large region, when that has been faster recently — shared with a worker thread, each taking
the next block (numpy releases the GIL in its loops), with the same results bit for bit.

Regions need concrete shapes of at least MIN_ELEMENTS elements (below that, per-call
overhead dominates and op-by-op with buffer reuse is faster) and at least two ops; any number
of operands, full-size or 0-d (scalar broadcasts and uniform constants).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tf8.ops.shapes import is_symbolic
from tf8.runtime.engines.numpy.blocks import BlockRunner
from tf8.runtime.engines.numpy.blocksum import (
    lane_exact,
    pairwise_blocks,
    sums_like_numpy,
    tree_sum,
)
from tf8.runtime.engines.numpy.elementwise import (
    Steps,
    out_argument,
    reads_after_first_step,
    step_argument,
)
from tf8.runtime.exec_program import ExecInstruction, ExecProgram


class CodeGen(Protocol):
    """What regions read and call of the program's code generator (codegen.py's CodeGen,
    which plans and emits regions with this module)."""

    program: ExecProgram
    guests: dict[str, Any]  # guest engines by name: their instructions are not elementwise
    namespace: dict[str, Any]  # the generated function's globals
    owned: set[int]  # slots whose value this run allocated and nothing views
    constants: dict[int, str]  # slot → global holding its constant value
    steps: list[Steps | None]  # per instruction: its elementwise steps, if it is one
    region_sources: list[str]

    def global_(self, prefix: str, value: Any, readable: str | None = None) -> str: ...
    def ufunc(self, ufunc: Any) -> str: ...
    def dtype(self, dtype: np.dtype) -> str: ...
    def operand(self, inst: ExecInstruction, position: int) -> str: ...
    def ufunc_operands(self, index: int) -> list[str | None]: ...
    def aval(self, s: int) -> Any: ...
    def emit(self, line: str, indent: int = 2) -> None: ...


BLOCK = 32 * 1024
MIN_ELEMENTS = 64 * 1024


@dataclass(frozen=True, slots=True)
class Region:
    start: int  # instruction indices [start, stop)
    stop: int
    shape: tuple[int, ...]
    ops: int  # ufunc instructions inside (constants in between are globals, not ops)
    reduction: bool  # a reduction of the region's result follows it
    summed: bool = False  # that reduction is a full sum, computed block by block

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def end(self) -> int:
        """Index after the last instruction the region's code computes (its fused sum's)."""
        return self.stop + self.summed

    @property
    def note(self) -> str:
        """What follows the region, for pretty() and drawings."""
        if self.summed:
            return ", then its sum (block by block, in numpy's order)"
        return ", then a reduction" if self.reduction else ""


def _shape(gen: CodeGen, index: int) -> tuple[int, ...] | None:
    """The region shape instruction `index` can join, or None."""
    if gen.steps[index] is None:
        return None
    shape = gen.aval(gen.program.instructions[index].outputs[0]).shape
    if is_symbolic(shape) or math.prod(shape) < MIN_ELEMENTS:
        return None
    return shape


def _views_of_run(inst, produced: set[int]) -> bool:
    """Whether `inst` reads a value of the run through a view (a transposed block is not
    the block of the transpose: such a read needs the whole array, so it ends the run)."""
    return any(s in produced and inst.views_of(p) for p, s in enumerate(inst.inputs))


def plan(gen: CodeGen) -> list[Region]:
    """Maximal runs of consecutive region-capable instructions with one shape."""
    instructions = gen.program.instructions
    regions: list[Region] = []
    index = 0
    while index < len(instructions):
        shape = _shape(gen, index)
        if shape is None:
            index += 1
            continue
        stop, ops = index + 1, 1
        produced = {instructions[index].outputs[0]}
        while stop < len(instructions):
            inst = instructions[stop]
            if inst.outputs[0] in gen.constants:
                stop += 1
            elif _shape(gen, stop) == shape and not _views_of_run(inst, produced):
                produced.add(inst.outputs[0])
                stop, ops = stop + 1, ops + 1
            else:
                break
        while instructions[stop - 1].outputs[0] in gen.constants:
            stop -= 1
        if ops >= 2:
            after = instructions[stop] if stop < len(instructions) else None
            reduction = after is not None and gen.engine.reduction(after.op) is not None
            summed = reduction and _sums_in_blocks(gen, index, stop, produced)
            regions.append(Region(index, stop, shape, ops, reduction, summed))
        index = stop
    return regions


def _sums_in_blocks(gen: CodeGen, start: int, stop: int, produced: set[int]) -> bool:
    """Whether instruction `stop` (a reduction) sums all of a region value in a way
    blocksum.py reproduces, and the region's ops are exact wherever blocks split."""
    instructions = gen.program.instructions
    after = instructions[stop]
    if (
        gen.engine.reduction(after.op)[0] is not np.add  # a sum: what blocksum.py reproduces
        or after.engine in gen.guests
        or after.views_of(0)
        or after.inputs[0] not in produced
        or not sums_like_numpy(gen.aval(after.inputs[0]).dtype)
        or sorted(after.op["axes"]) != list(range(len(gen.aval(after.inputs[0]).shape)))
    ):
        return False
    for i in range(start, stop):
        inst, steps = instructions[i], gen.steps[i]
        dtypes = [gen.aval(s).dtype for s in (*inst.inputs, *inst.outputs)]
        if steps is not None and not all(lane_exact(step.ufunc, dtypes) for step in steps):
            return False
    return True


class _Block:
    """The generated block function of one region: its parameters and body."""

    def __init__(self, gen: CodeGen, name: str) -> None:
        self.gen = gen
        self.name = name
        self.flat: dict[str, str] = {}  # expression in run → flat parameter name
        self.scalars: dict[str, str] = {}  # 0-d expression in run → parameter name
        self.escapes: dict[int, str] = {}  # escaping slot → its flat parameter
        self.temps: list[tuple[str, object]] = []  # (parameter, dtype)
        self.free: dict[object, list[str]] = {}
        self.body: list[str] = []

    def full(self, expr: str) -> str:
        name = self.flat.get(expr)
        if name is None:
            name = self.flat[expr] = f"x{len(self.flat)}"
            self.body.append(f"    a{name} = {name}[lo:hi]")
        return f"a{name}"

    def scalar(self, expr: str) -> str:
        return self.scalars.setdefault(expr, f"z{len(self.scalars)}")

    def temp(self, dtype: object) -> str:
        pool = self.free.setdefault(dtype, [])
        if pool:
            return pool.pop()
        name = f"t{len(self.temps)}"
        self.temps.append((name, dtype))
        return name

    def release(self, name: str, dtype: object) -> None:
        self.free.setdefault(dtype, []).append(name)


def emit(gen: CodeGen, region: Region) -> set[int]:
    """Emit the region into `gen`: a block function in the namespace, its loop in run.
    Returns the slots that exist only inside the blocks (never variables of run)."""
    program = gen.program
    indices = [i for i in range(region.start, region.stop) if gen.steps[i] is not None]
    produced = {program.instructions[i].outputs[0] for i in indices}
    read_later = set(program.output_slots)
    for inst in program.instructions[region.end :]:
        read_later.update(inst.inputs)
    last_read: dict[int, int] = {}
    for i in indices:
        for s in program.instructions[i].inputs:
            if s in produced:
                last_read[s] = i
    summed = program.instructions[region.stop].inputs[0] if region.summed else None
    if summed is not None:
        last_read[summed] = region.stop  # read by the block's sum, after every op
    block = _Block(gen, f"_region{len(gen.namespace)}")
    location: dict[int, str] = {}  # internal slot → its block-sized array in the body
    for i in indices:
        inst = program.instructions[i]
        out, steps = inst.outputs[0], gen.steps[i]
        scalars = gen.ufunc_operands(i)
        args = []
        for p, s in enumerate(inst.inputs):
            if s in produced and not inst.views_of(p):
                args.append(location[s])
            elif scalars[p] is not None:
                args.append(block.scalar(scalars[p]))
            else:
                args.append(block.full(gen.operand(inst, p)))
        dtype = gen.aval(out).dtype
        dying = [s for s in set(inst.inputs) if last_read.get(s) == i and s not in read_later]
        if out in read_later:
            dest = block.escapes[out] = f"e{len(block.escapes)}"
            block.body.append(f"    a{dest} = {dest}[lo:hi]")
            dest = f"a{dest}"
        else:
            dest = _reusable(gen, inst, steps, dying, location, dtype) or block.temp(dtype)
        for step in steps:
            ufunc = gen.ufunc(step.ufunc)
            call_args = [step_argument(a, args, dest) for a in step.args]
            block.body.append(
                f"    {ufunc}({', '.join(call_args)}, {out_argument(step.ufunc, dest)})"
            )
        for s in dying:
            if location[s] != dest and location[s].startswith("t"):
                block.release(location[s], gen.aval(s).dtype)
        location[out] = dest
        if out not in read_later and out not in last_read:
            block.release(dest, dtype)  # never read: its temporary is free at once
    if summed is not None:
        add = gen.global_("r", np.add.reduce, "add_reduce")
        dtype = gen.dtype(gen.aval(summed).dtype)
        block.body.append(f"    return {add}({location[summed]}, 0, {dtype})")
    _emit_loop(gen, region, block)
    return produced - set(block.escapes)


def _reusable(gen, inst, steps, dying, location, dtype) -> str | None:
    """A dying operand's temporary the result may overwrite in place (exact overlap)."""
    later = reads_after_first_step(steps)
    for p, s in enumerate(inst.inputs):
        name = location.get(s)
        if (
            s in dying
            and name is not None
            and name.startswith("t")
            and gen.aval(s).dtype == dtype
            and not any(q == s and k in later for k, q in enumerate(inst.inputs))
            and not inst.views_of(p)
        ):
            return name
    return None


def _emit_loop(gen: CodeGen, region: Region, block: _Block) -> None:
    """Define the block function; in run, flatten the operands, allocate, loop (fixed blocks
    and a tail, or the segments of a fused sum, whose partial sums are then added up)."""
    tag = block.name
    size = region.size
    if region.summed:
        total = gen.program.instructions[region.stop]  # the fused reduce_sum
        dtype = gen.aval(total.inputs[0]).dtype
        bounds, merges = pairwise_blocks(size, dtype, BLOCK)
        width = max(hi - lo for lo, hi in bounds)
    else:
        width = min(BLOCK, size)
    params = ["lo", "hi", *block.flat.values(), *block.scalars.values()]
    params += [*block.escapes.values(), *(name for name, _ in block.temps)]
    source = f"def {tag}({', '.join(params)}):\n" + "\n".join(block.body)
    exec(compile(source, f"<tf8 region {tag}>", "exec"), gen.namespace)
    gen.region_sources.append(source)
    local = {}
    for expr, name in block.flat.items():
        local[name] = f"{tag}_{name}"
        gen.emit(f"{local[name]} = {expr}.reshape(-1)")
    for expr, name in block.scalars.items():
        local[name] = expr
    shape = gen.global_("sh", region.shape)
    for slot, name in block.escapes.items():
        gen.emit(f"s{slot} = empty({shape}, {gen.dtype(gen.aval(slot).dtype)})")
        local[name] = f"{tag}_{name}"
        gen.emit(f"{local[name]} = s{slot}.reshape(-1)")
        gen.owned.add(slot)
    if not region.summed:  # fixed blocks and a tail
        full = size - size % width
        bounds = [(lo, lo + width) for lo in range(0, full, width)]
        bounds += [(full, size)] if size % width else []
    dtypes = tuple(np.dtype(d) for _, d in block.temps)
    runner = BlockRunner(gen.namespace[tag], bounds, width, dtypes)
    blocks = gen.global_("run", runner, f"{tag}_blocks")
    fixed = "".join(local[p] + ", " for p in params[2:] if not p.startswith("t"))
    if region.summed:
        parts = f"{tag}_parts"
        gen.emit(f"{parts} = {blocks}(({fixed}))")
        zero = gen.global_("c", np.zeros((), dtype)[()])
        add_up = gen.global_("f", tree_sum, "_tree_sum")
        out = total.outputs[0]
        gen.emit(f"s{out} = {add_up}({parts}, {gen.global_('m', merges)}, {zero})")
        gen.owned.add(out)  # a fresh scalar
        gen.emit(f"del {parts}")
    else:
        gen.emit(f"{blocks}(({fixed}))")
    temporaries = [local[p] for p in params[2:] if p.startswith(("x", "e"))]
    if temporaries:
        gen.emit(f"del {', '.join(temporaries)}")
