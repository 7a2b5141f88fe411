"""ExecProgram: the runtime's mutable, engine-facing program, lowered from a SemanticProgram.

Passes rewrite it in place; each instruction names its op (primitive or extension) and the
engine that runs it. Slots 0..n_inputs-1 are the inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tf8.compiler.program import SemanticProgram
from tf8.ops.primitive import Aval
from tf8.ops.shapes import ShapeGuard


@dataclass(slots=True)
class ExecInstruction:
    op: Any
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    engine: str = "numpy"

    @property
    def name(self) -> str:
        return self.op.name


@dataclass(slots=True)
class ExecProgram:
    n_inputs: int
    input_avals: tuple[Aval, ...]
    input_bound: tuple[bool, ...]
    instructions: list[ExecInstruction]
    slot_avals: list[Aval]
    output_slots: list[int]
    guards: tuple[ShapeGuard, ...]
    # Slots whose value is known when preparing (bound inputs are *not* known: bindings are
    # not part of the fingerprint, so folding them would poison the prepare cache).
    known: dict[int, Any] = field(default_factory=dict)

    def new_slot(self, aval: Aval) -> int:
        self.slot_avals.append(aval)
        return len(self.slot_avals) - 1

    def consumers(self) -> dict[int, list[ExecInstruction]]:
        users: dict[int, list[ExecInstruction]] = {}
        for inst in self.instructions:
            for s in inst.inputs:
                users.setdefault(s, []).append(inst)
        return users

    def pretty(self) -> str:
        lines = [f"  %{i}: {a}  # input" for i, a in enumerate(self.input_avals)]
        for inst in self.instructions:
            outs = ", ".join(f"%{s}" for s in inst.outputs)
            ins = ", ".join(f"%{s}" for s in inst.inputs)
            lines.append(f"  {outs} = {inst.op!r}({ins})  [{inst.engine}]")
        lines.append("  return " + ", ".join(f"%{s}" for s in self.output_slots))
        return "\n".join(lines)


def lower(program: SemanticProgram) -> ExecProgram:
    """The semantic program as an ExecProgram every engine can read."""
    return ExecProgram(
        n_inputs=len(program.input_avals),
        input_avals=program.input_avals,
        input_bound=program.input_bound,
        instructions=[ExecInstruction(i.op, i.inputs, i.outputs) for i in program.instructions],
        slot_avals=list(program.slot_avals),
        output_slots=list(program.output_slots),
        guards=program.guards,
    )
