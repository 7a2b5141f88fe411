"""ExecProgram: the runtime's mutable, engine-facing program, lowered from a SemanticProgram.

Passes rewrite it in place; each instruction names its op (primitive or extension) and the
engine that runs it. Slots 0..n_inputs-1 are the inputs. An instruction may read an input
through a chain of metadata views (`input_views`, set by view folding): the consumer reads
`transpose(x)` as a numpy view instead of a separate instruction materialising it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tf8.compiler.program import SemanticProgram
from tf8.ops.primitive import Aval
from tf8.ops.shapes import ShapeGuard

NO_VIEWS: tuple[tuple[Any, ...], ...] = ()


@dataclass(slots=True)
class ExecInstruction:
    op: Any
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    engine: str = "numpy"
    # Per input position, the view ops (innermost first) applied to the slot before reading;
    # empty when the instruction reads its inputs as they are.
    input_views: tuple[tuple[Any, ...], ...] = NO_VIEWS

    @property
    def name(self) -> str:
        return self.op.name

    def views_of(self, position: int) -> tuple[Any, ...]:
        return self.input_views[position] if self.input_views else ()

    def argument_str(self, position: int) -> str:
        text = f"%{self.inputs[position]}"
        for view in self.views_of(position):
            text = f"{view!r}({text})"
        return text


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
    # Last-use analysis (passes/last_use.py): instruction index → slots read for the last
    # time there. None until computed; run_passes clears it whenever a pass changes the
    # program, so a stale analysis is never consumed.
    last_use: dict[int, tuple[int, ...]] | None = None

    def new_slot(self, aval: Aval) -> int:
        self.slot_avals.append(aval)
        return len(self.slot_avals) - 1

    def consumers(self) -> dict[int, list[ExecInstruction]]:
        users: dict[int, list[ExecInstruction]] = {}
        for inst in self.instructions:
            for s in inst.inputs:
                users.setdefault(s, []).append(inst)
        return users

    def producers(self) -> dict[int, ExecInstruction]:
        """Slot → the instruction writing it (inputs have none)."""
        return {s: inst for inst in self.instructions for s in inst.outputs}

    def use_counts(self) -> dict[int, int]:
        """Slot → number of reads (instruction operands and program outputs)."""
        counts: dict[int, int] = {}
        for inst in self.instructions:
            for s in inst.inputs:
                counts[s] = counts.get(s, 0) + 1
        for s in self.output_slots:
            counts[s] = counts.get(s, 0) + 1
        return counts

    def substitute(self, alias: Mapping[int, int]) -> None:
        """Read `alias[s]` wherever slot `s` was read (chains of aliases are followed)."""
        if not alias:
            return

        def resolve(s: int) -> int:
            while s in alias:
                s = alias[s]
            return s

        for inst in self.instructions:
            if any(s in alias for s in inst.inputs):
                inst.inputs = tuple(resolve(s) for s in inst.inputs)
        self.output_slots = [resolve(s) for s in self.output_slots]

    def pretty(
        self, input_labels: Sequence[str] | None = None, output_labels: Sequence[str] | None = None
    ) -> str:
        """The program as text; `input_labels` and `output_labels` say what the inputs and
        outputs are (the compiled graph's: `input x`, `grad[x]`)."""
        labels = input_labels or ["input"] * len(self.input_avals)
        lines = [
            f"  %{i}: {a}  # {label}" for i, (a, label) in enumerate(zip(self.input_avals, labels))
        ]
        for inst in self.instructions:
            outs = ", ".join(f"%{s}" for s in inst.outputs)
            ins = ", ".join(inst.argument_str(p) for p in range(len(inst.inputs)))
            lines.append(f"  {outs} = {inst.op!r}({ins})  [{inst.engine}]")
        slots = [f"%{s}" for s in self.output_slots]
        if output_labels is not None and len(output_labels) == len(slots):
            slots = [f"{slot} ({label})" for slot, label in zip(slots, output_labels)]
        lines.append("  return " + ", ".join(slots))
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
