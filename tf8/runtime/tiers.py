"""Tiers: a program's first run does not pay for optimisation it may never amortise.

A prepared program starts *lean*: the lowered instructions run one by one through the
engine's kernels, with no passes and no code generation, and each value is dropped after its
last read. When it runs again (a jit signature called twice, an eager loop evaluating the same
structure each step), or at once when its arrays are large enough that the optimised code's
blocked regions and buffer reuse repay their build, it is *optimised*: passes, view folding,
elementwise regions, placement on the runtime's engines and a generated run function (the
host engine's code generator). Guest engines that compile (numba) only ever compile in the
optimised tier: when a large first run is optimised at once, it is optimised on the host
engine alone, and the guests compile when the program runs again.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tf8.compiler.program import SemanticProgram
from tf8.ops.shapes import has_symbolic

from .dynamic import fresh_outputs, run_time_symbols
from .engines.base import Engine
from .exec_program import ExecProgram, lower
from .passes import Pass, PassStats, run_passes
from .placement import place

# Elements written by all instructions together from which a first run is optimised at once.
OPTIMISE_AT_ELEMENTS = 1 << 20

RunFn = Callable[[Sequence[Any], Sequence[Any]], list[np.ndarray]]


def lean_function(program: ExecProgram | SemanticProgram, engine: Engine) -> RunFn:
    """Run `program` instruction by instruction on `engine`'s kernels (no passes, no codegen).

    Returns `run(values, ops)` like the generated code: `ops` are the instructions' ops
    (specialised for symbolic sizes by the caller)."""
    found: dict[int, Any] = {}  # id(op) -> kernel: a program repeats a few ops many times
    kernels = []
    for inst in program.instructions:
        kernel = found.get(id(inst.op))
        if kernel is None:
            kernel = found[id(inst.op)] = engine.kernel(inst.op)
        kernels.append(kernel)
    last_read: dict[int, int] = {}
    for position, inst in enumerate(program.instructions):
        for s in inst.inputs:
            last_read[s] = position
    outputs = list(program.output_slots)
    keep = set(outputs) | set(range(len(program.input_avals)))
    frees: list[tuple[int, ...]] = [() for _ in program.instructions]
    for slot, position in last_read.items():
        if slot not in keep:
            frees[position] += (slot,)
    steps = [
        (kernel, inst.inputs, inst.outputs[0] if len(inst.outputs) == 1 else inst.outputs, free)
        for kernel, inst, free in zip(kernels, program.instructions, frees)
    ]
    n_inputs = len(program.slot_avals)

    def run(values: Sequence[Any], ops: Sequence[Any]) -> list[np.ndarray]:
        slots: list[Any] = [*values, *([None] * (n_inputs - len(values)))]
        with engine.quiet():
            for (kernel, ins, out, free), op in zip(steps, ops):
                result = kernel(op, *[slots[s] for s in ins])
                if type(out) is int:
                    slots[out] = result
                else:
                    for s, r in zip(out, result):
                        slots[s] = r
                for s in free:
                    slots[s] = None
        return fresh_outputs([slots[s] for s in outputs], slots[: len(values)])

    return run


class PreparedProgram:
    """What the prepare cache stores: the program in its lean tier, later optimised.

    `program`, `stats`, `regions` and `run_fn` describe the optimised form when it exists;
    reading `program`, `stats` or `regions` builds it (the user asked to see it)."""

    def __init__(
        self,
        semantic: SemanticProgram,
        engine: Engine,
        passes: Sequence[Pass],
        regions: bool,
        optimise_now: bool | None = None,
        guests: Sequence[Engine] = (),
    ) -> None:
        self.engine = engine  # the host: runs the lean tier and every op no guest takes
        self.guests = tuple(guests)  # preferred engines, placed first in the optimised tier
        self._semantic = semantic
        self._passes = tuple(passes)
        self._regions_on = regions
        self._lean_program: ExecProgram | None = None
        # The lean tier runs the semantic program as it is (no lowering: nothing rewrites it).
        lean = semantic
        self.input_avals = lean.input_avals
        self.guards = lean.guards
        # Sizes only known while running (dynamic_truncate): interpreted, never generated.
        shapes = {aval.shape for aval in lean.slot_avals}  # few distinct ones
        symbolic = any(type(d) is not int for shape in shapes for d in shape)
        self.run_time_symbols = run_time_symbols(lean) if symbolic else frozenset()
        self.lean = True
        self.lean_runs = 0
        self._optimised: tuple[ExecProgram, list[PassStats], list[Any], list[Any]] | None = None
        self._host_only = False  # optimised without the guests (they compile on a later run)
        self._pinned_lean = optimise_now is False  # Runtime(optimise=False): always lean
        self._lock = threading.Lock()
        self._use(lean, engine.interpret(lean) or lean_function(lean, engine))
        if self.run_time_symbols:
            return
        if optimise_now:
            self.optimise()
        elif optimise_now is None and _elements_written(lean, symbolic) >= OPTIMISE_AT_ELEMENTS:
            # large arrays repay the host's optimised code at once; guest engines compile
            # only when the program runs again (never on a first run)
            self.optimise(guests=not self.guests)

    @property
    def lean_program(self) -> ExecProgram:
        """The lean tier's program as an ExecProgram, every instruction on the host engine."""
        lean = self._lean_program
        if lean is None:
            lean = lower(self._semantic)
            for inst in lean.instructions:
                inst.engine = self.engine.name
            self._lean_program = lean
        return lean

    def _use(self, program: ExecProgram | SemanticProgram, run_fn: RunFn) -> None:
        # One attribute, replaced whole: a thread running while another optimises reads the
        # run function and its ops from the same tier.
        self.current = Tier(run_fn, [inst.op for inst in program.instructions])

    @property
    def run_fn(self) -> RunFn:
        return self.current.run_fn

    @property
    def ops(self) -> list[Any]:
        return self.current.ops

    @property
    def symbolic(self) -> bool:
        return self.current.symbolic

    def note_run(self) -> None:
        """Called before each run while lean: the second run is optimised."""
        self.lean_runs += 1
        if self.lean_runs > 1 and not self.run_time_symbols and not self._pinned_lean:
            self.optimise()

    def optimise(self, guests: bool = True) -> PreparedProgram:
        """Build the optimised tier (once; `guests=False`: on the host engine alone, keeping
        count of runs so that the guests compile when it runs again) and run it from now on."""
        with self._lock:
            if self._optimised is None or (guests and self._host_only):
                self._build(guests)
        return self

    def _build(self, guests: bool) -> None:
        """Lower, optimise and generate the optimised tier; nothing changes if it raises."""
        program = lower(self._semantic)
        stats = run_passes(program, self._passes, {"engine": self.engine})
        chosen = self.guests if guests else ()
        place(program, chosen, self.engine)
        run_fn = self.engine.generate(program, chosen, self._regions_on)
        self._optimised = (
            program,
            stats,
            run_fn.regions,  # type: ignore[attr-defined]
            run_fn.guest_regions,  # type: ignore[attr-defined]
        )
        self._use(program, run_fn)
        self._host_only = bool(self.guests) and not guests
        self.lean = self._host_only  # lean: runs are counted (note_run)

    @property
    def tier(self) -> str:
        if self._optimised is None:
            return "lean"
        return (
            "optimised on the host engine (guests compile on the next run)"
            if (self._host_only)
            else "optimised"
        )

    @property
    def program(self) -> ExecProgram:
        return self.optimise()._optimised[0]  # type: ignore[index]

    @property
    def stats(self) -> list[PassStats]:
        return self.optimise()._optimised[1]  # type: ignore[index]

    @property
    def regions(self) -> list[Any]:
        return self.optimise()._optimised[2]  # type: ignore[index]

    @property
    def guest_regions(self) -> list[Any]:
        """The regions guest engines compiled (each with `description` and `source`)."""
        return self.optimise()._optimised[3]  # type: ignore[index]


class Tier:
    """A run function and the ops it takes (specialised per set of dimension sizes)."""

    __slots__ = ("run_fn", "ops", "symbolic", "_specialized")

    def __init__(self, run_fn: RunFn, ops: list[Any]) -> None:
        self.run_fn = run_fn
        self.ops = ops
        distinct = {id(op): op for op in ops}.values()  # a program repeats a few ops
        self.symbolic = any(has_symbolic(op.params) for op in distinct)
        self._specialized: dict[tuple, list[Any]] = {}

    def ops_for(self, env: Mapping[str, int], specialize: Callable[..., Any]) -> list[Any]:
        if not self.symbolic:
            return self.ops
        key = tuple(sorted(env.items()))
        ops = self._specialized.get(key)
        if ops is None:
            ops = [specialize(op, env) for op in self.ops]
            self._specialized[key] = ops
        return ops


def _elements_written(program: ExecProgram | SemanticProgram, symbolic: bool) -> int:
    """The elements all instructions write together (0 when a size is symbolic: unknown
    until it runs)."""
    if symbolic:
        return 0
    sizes: dict[tuple, int] = {}
    total = 0
    for inst in program.instructions:
        for s in inst.outputs:
            shape = program.slot_avals[s].shape
            size = sizes.get(shape)
            if size is None:
                size = sizes[shape] = math.prod(shape)
            total += size
    return total
