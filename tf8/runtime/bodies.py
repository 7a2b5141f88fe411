"""How a runtime runs the control-flow bodies of the programs it prepares.

A body (`ClosedProgram`) runs by itself as a function generated from its ops
(tf8.ops.evaluate). A runtime preparing a program that holds one hands it a `HandedBody`
instead (`ClosedProgram.use`): the body compiled and prepared once on a numpy runtime, whose
passes fold its views and constants. It serves two ways:
- `run`: one call (`run_unchecked`), as a cond branch or a checkpoint runs;
- `loop(op)`: a `Scan` or `While` holding it asks for its whole loop as one generated function
  (engines/numpy/loops.py: the body's optimised lines inlined in a Python loop), built on the
  first call and kept by what the code depends on (the scan's const/carry split and direction;
  the while loop's condition and splits), not by the trip count. Generating costs about
  250 µs and saves about 2.5 µs a step, so a scan of fewer than GENERATE_AT_STEPS steps runs
  per iteration on its first call (a one-shot program never repays it) and is generated on
  its second; a while loop, whose trip count is unknown, at once. A body whose prepared program
  has symbolic sizes, shape guards or sizes known only while running cannot be inlined: its
  loop runs `run` per iteration, as before.
Bodies run on numpy whatever the outer program's engine, as before engines compiled loops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.compiler import GraphCompiler
from tf8.graph import materialize_merge
from tf8.lax.control import program_tensors
from tf8.ops.extension.control import ClosedProgram, ControlOp, Scan, While

from .engines.numpy.loops import LoopPart, scan_function, while_function

__all__ = ["HandedBody", "describe_loops", "hand_bodies"]

_compiler = GraphCompiler()

GENERATE_AT_STEPS = 100  # a scan this long generates its loop on its first call


def hand_bodies(program: Any, runtime: Any) -> None:
    """Hand every body of `program`'s control ops its `HandedBody` prepared on `runtime`."""
    for inst in program.instructions:
        for body in getattr(inst.op, "subprograms", ()):
            body.use(lambda body, runtime=runtime: HandedBody(body, runtime))


class HandedBody:
    """A body compiled and prepared once (the prepare cache is keyed by fingerprint): `run`
    per call, and the generated loops of the control ops holding it (`loop`)."""

    def __init__(self, program: ClosedProgram, runtime: Any) -> None:
        self.program = program
        self.runtime = runtime
        self.prepared: Any = None
        self._loops: dict[tuple, Callable[..., list] | None] = {}
        self._seen: set[tuple] = set()  # short scans' keys, run per iteration once
        ins, outs = program_tensors(program)
        if not outs:
            self.run: Callable[[Sequence[np.ndarray]], list] = lambda arrays: []
            return
        reached = set(materialize_merge(None, list(program.outputs)).inputs)
        used = [i for i, k in enumerate(program.inputs) if k in reached]
        compiled = _compiler.compile_with_input_specs(outs, [ins[i] for i in used])
        self.prepared = prepared = runtime.prepare(compiled)
        self._used = used
        run = prepared.run_unchecked
        self.run = run if len(used) == len(ins) else lambda arrays: run([arrays[i] for i in used])

    def inlinable(self) -> str | None:
        """Why the body cannot be placed inside a generated loop, or None if it can."""
        if self.prepared is None:
            return "it has no outputs"
        if self.runtime.optimise is False:
            return "the runtime runs programs lean (optimise=False)"
        prepared = self.prepared.prepared
        if prepared.run_time_symbols:
            return "its sizes are known only while it runs"
        if prepared.guards or prepared.symbolic:
            return "its sizes are symbolic"
        return None

    def part(self) -> LoopPart:
        """The body as a loop inlines it: its optimised program and its inputs' sources."""
        prepared = self.prepared
        program = prepared.prepared.program  # the optimised tier (built now if need be)
        compiled = prepared.compiled
        placeholders = iter(self._used)
        sources = tuple(
            compiled.bindings[k] if k in compiled.bindings else next(placeholders)
            for k in compiled.inputs
        )
        return LoopPart(program, prepared.prepared.engine, self.runtime.regions, sources)

    def loop(self, op: ControlOp, steps: int | None = None) -> Callable[..., list] | None:
        """`op`'s loop over this body as one generated function (None: run per iteration),
        `steps` long if known."""
        key, generate = _LOOPS[type(op)]
        try:
            return self._loops[key(op)]
        except KeyError:
            pass
        if steps is not None and steps < GENERATE_AT_STEPS and key(op) not in self._seen:
            self._seen.add(key(op))  # a short first run: per iteration
            return None
        made = None if self._cannot_inline(op) else generate(self, op)
        self._loops[key(op)] = made  # two threads may both build it: either result serves
        return made

    def status(self, op: ControlOp) -> str:
        """What runs `op`'s loop, for Prepared.pretty()."""
        if self._loops.get(_LOOPS[type(op)][0](op)) is not None:
            return "loop generated (one function, body inlined)"
        why = self._cannot_inline(op)
        if why:
            return f"per-iteration runner: {why}"
        return (
            f"loop generated on its first run (a scan of fewer than {GENERATE_AT_STEPS} "
            "steps: on its second)"
        )

    def _cannot_inline(self, op: ControlOp) -> str | None:
        why = self.inlinable()
        if why is None and isinstance(op, While):
            cond = _handed(op.payload[0])
            why = "the condition is not prepared" if cond is None else cond.inlinable()
            why = why and f"the condition: {why}"
        return why


def _handed(program: ClosedProgram) -> HandedBody | None:
    handed = program.handed
    return handed if isinstance(handed, HandedBody) else None


def _scan_loop(handed: HandedBody, op: Scan) -> Callable[..., list]:
    body, n_consts, n_carry, _, reverse = op.payload
    ys = body.out_avals[n_carry:]
    return scan_function(handed.part(), n_consts, n_carry, len(body.inputs), reverse, ys)


def _while_loop(handed: HandedBody, op: While) -> Callable[..., list]:
    cond, body, n_cond, n_body = op.payload
    test = _handed(cond)
    assert test is not None  # _cannot_inline checked it
    carry = len(body.inputs) - n_body
    return while_function(test.part(), handed.part(), n_cond, n_body, carry)


# per loop op: the key of its generated loop (what the code depends on: not the trip count),
# and the function generating it
_LOOPS: dict[type, tuple[Callable[[Any], tuple], Callable[[HandedBody, Any], Any]]] = {
    Scan: (lambda op: (op.payload[1], op.payload[2], op.payload[4]), _scan_loop),
    While: (lambda op: (op.payload[0], op.payload[2], op.payload[3]), _while_loop),
}


def describe_loops(program: Any) -> list[str]:
    """One line per loop of `program` (an ExecProgram): what runs it."""
    lines = []
    for index, inst in enumerate(program.instructions):
        found = _LOOPS.get(type(inst.op))
        if found is None:
            continue
        body = inst.op.payload[0] if isinstance(inst.op, Scan) else inst.op.payload[1]
        handed = _handed(body)
        status = "not prepared" if handed is None else handed.status(inst.op)
        lines.append(f"  instruction {index} {inst.op.name}: {status}")
    return lines
