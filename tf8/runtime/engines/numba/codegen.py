"""Source of one compiled function for a run of instructions placed on the numba engine.

The run's instructions become one `@njit` function (a whole program of elementwise ops and
reductions is one function): consecutive elementwise ops of one shape share one loop over
the flat index, each reduction of a value of that shape is an accumulator in the same loop
(so a trailing `sum` costs no second pass), and 0-d ops are straight-line scalar code,
hoisted before the loop when they do not read its reductions. A value crosses loops (or
leaves the function) through an array; every other value lives in a register.

Tolerance: each element goes through the same operations as on the numpy engine, but the
transcendental functions are LLVM's/libm's rather than numpy's SIMD ones (a few ulp), and
a reduction sums in LANES interleaved partial sums (float32 values accumulate in float64)
where numpy sums pairwise: results agree with the numpy engine to `rtol=1e-10` for float64
and `rtol=1e-4` for float32 on well-conditioned data (TOLERANCE), not bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .scalar import HELPERS, REDUCTIONS, SCALAR

TOLERANCE = {"float64": 1e-10, "float32": 1e-4}
BLOCK = 256  # elements per block of a loop with reductions
LANES = 8  # independent accumulators per reduction
DECORATOR = '@njit(cache=True, error_model="numpy", nogil=True)'


@dataclass
class Loop:
    """One loop of the function: scalar code before it, its body, scalar code after it."""

    shape: tuple[int, ...] | None = None
    before: list[Any] = field(default_factory=list)
    body: list[Any] = field(default_factory=list)  # elementwise and reduction instructions
    after: list[Any] = field(default_factory=list)


def _is_reduction(inst: Any) -> bool:
    return inst.name in REDUCTIONS


def plan(program: Any, instructions: Sequence[Any]) -> list[Loop]:
    """Group the instructions into loops (see the module docstring)."""
    loops: list[Loop] = []
    current = Loop()
    depends: set[int] = set()  # scalars that read the current loop's reductions
    for inst in instructions:
        out = inst.outputs[0]
        shape = program.slot_avals[out].shape
        if _is_reduction(inst):
            shape = program.slot_avals[inst.inputs[0]].shape
        if not shape and not _is_reduction(inst):
            (current.after if depends & set(inst.inputs) else current.before).append(inst)
            if depends & set(inst.inputs):
                depends.add(out)
            continue
        if current.shape not in (None, shape) or depends & set(inst.inputs):
            loops.append(current)
            current, depends = Loop(), set()
        current.shape = shape
        current.body.append(inst)
        if _is_reduction(inst):
            depends.add(out)
    loops.append(current)
    return loops


def _dtype(program: Any, s: int) -> str:
    return f"np.{program.slot_avals[s].dtype.name}".replace("np.bool", "np.bool_")


class Source:
    """Builds the module source: the helpers and one `@njit` function `run`."""

    def __init__(self, program: Any, indices: Sequence[int], escapes: Sequence[int]) -> None:
        self.program = program
        self.instructions = [program.instructions[i] for i in indices]
        produced = {s for inst in self.instructions for s in inst.outputs}
        self.inputs: list[int] = []
        for inst in self.instructions:
            for s in inst.inputs:
                if s not in produced and s not in self.inputs:
                    self.inputs.append(s)
        self.escapes = list(escapes)
        self.loops = plan(program, self.instructions)
        self.lines: list[str] = []
        self.loop_of: dict[int, int] = {}
        for k, loop in enumerate(self.loops):
            for inst in loop.body:
                self.loop_of[inst.outputs[0]] = k
        # n-d values read by another loop, or returned, are stored in full arrays
        self.stored = {s for s in escapes if program.slot_avals[s].ndim}
        for k, loop in enumerate(self.loops):
            for inst in loop.body:
                for s in inst.inputs:
                    if self.loop_of.get(s, k) != k:
                        self.stored.add(s)

    def aval(self, s: int) -> Any:
        return self.program.slot_avals[s]

    def scalar(self, s: int) -> str:
        return f"p{self.inputs.index(s)}" if s in self.inputs else f"v{s}"

    def element(self, s: int, loop: int) -> str:
        if not self.aval(s).ndim:
            return self.scalar(s)
        if s in self.inputs:
            return f"x{self.inputs.index(s)}[i]"
        if self.loop_of.get(s) == loop:
            return f"v{s}"
        return f"t{s}[i]"

    def expression(self, inst: Any, operand: Any) -> str:
        if inst.name in ("broadcast_in_dim", "convert"):
            (arg,) = [operand(s) for s in inst.inputs]
            if inst.name == "convert":
                return f"{_dtype(self.program, inst.outputs[0])}({arg})"
            return arg
        return SCALAR[inst.name](inst.op, [operand(s) for s in inst.inputs])

    def emit(self, line: str, indent: int = 1) -> None:
        self.lines.append("    " * indent + line)

    def build(self) -> str:
        params = ", ".join(f"a{k}" for k in range(len(self.inputs)))
        self.lines = [DECORATOR, f"def run({params}):"]
        for k, s in enumerate(self.inputs):
            ndim = self.aval(s).ndim
            if ndim == 0:
                self.emit(f"p{k} = a{k}[()]")
            elif ndim == 1:
                self.emit(f"x{k} = a{k}")
            else:
                self.emit(f"x{k} = np.ascontiguousarray(a{k}).reshape(-1)")
        for k, loop in enumerate(self.loops):
            self._scalars(loop.before)
            if loop.shape is not None:
                self._loop(k, loop)
            self._scalars(loop.after)
        returned = []
        for s in self.escapes:
            aval = self.aval(s)
            if not aval.ndim:
                self.emit(f"o{s} = np.empty((), {_dtype(self.program, s)})")
                self.emit(f"o{s}[()] = v{s}")
                returned.append(f"o{s}")
            else:
                returned.append(
                    f"t{s}.reshape({tuple(aval.shape)!r})" if aval.ndim > 1 else f"t{s}"
                )
        self.emit(f"return ({''.join(r + ', ' for r in returned)})")
        return (
            "import math\n\nimport numpy as np\nfrom numba import njit\n"
            + HELPERS
            + ("\n\n" + "\n".join(self.lines) + "\n")
        )

    def _scalars(self, instructions: Sequence[Any]) -> None:
        for inst in instructions:
            self.emit(f"v{inst.outputs[0]} = {self.expression(inst, self.scalar)}")

    def _loop(self, k: int, loop: Loop) -> None:
        """One loop. With reductions it runs in blocks of BLOCK elements: the elementwise
        part of a block (vectorisable: no loop-carried dependency) writes each reduced value
        to a block buffer, which LANES independent accumulators then consume, so the
        reduction neither blocks vectorisation nor waits on one add's latency per element."""
        size = math.prod(loop.shape)  # type: ignore[arg-type]
        reductions = [inst for inst in loop.body if _is_reduction(inst)]
        for inst in loop.body:
            s = inst.outputs[0]
            if s in self.stored:
                self.emit(f"t{s} = np.empty({size}, {_dtype(self.program, s)})")
        for inst in reductions:
            s = inst.outputs[0]
            init = REDUCTIONS[inst.name][0]
            self.emit(f"b{s} = np.empty({min(BLOCK, size)}, np.float64)")
            self.emit("; ".join(f"r{s}_{lane} = np.float64({init})" for lane in range(LANES)))
        depth = 2
        if reductions:
            self.emit(f"for lo in range(0, {size}, {BLOCK}):")
            self.emit(f"m = min({BLOCK}, {size} - lo)", 2)
            self.emit("for j in range(m):", 2)
            self.emit("i = lo + j", 3)
            depth = 3
        else:
            self.emit(f"for i in range({size}):")
        element = lambda s: self.element(s, k)  # noqa: E731
        for inst in loop.body:
            s = inst.outputs[0]
            if _is_reduction(inst):
                self.emit(f"b{s}[j] = {element(inst.inputs[0])}", depth)
                continue
            self.emit(f"v{s} = {self.expression(inst, element)}", depth)
            if s in self.stored:
                self.emit(f"t{s}[i] = v{s}", depth)
        if not reductions:
            return
        updates = [(inst.outputs[0], REDUCTIONS[inst.name][1]) for inst in reductions]
        self.emit("j = 0", 2)
        self.emit(f"while j + {LANES} <= m:", 2)
        for s, update in updates:
            for lane in range(LANES):
                self.emit(update.format(r=f"r{s}_{lane}", v=f"b{s}[j + {lane}]"), 3)
        self.emit(f"j += {LANES}", 3)
        self.emit("while j < m:", 2)
        for s, update in updates:
            self.emit(update.format(r=f"r{s}_0", v=f"b{s}[j]"), 3)
        self.emit("j += 1", 3)
        for s, update in updates:
            width = LANES
            while width > 1:  # combine the lanes pairwise
                width //= 2
                for lane in range(width):
                    self.emit(update.format(r=f"r{s}_{lane}", v=f"r{s}_{lane + width}"))
            self.emit(f"v{s} = {_dtype(self.program, s)}(r{s}_0)")
