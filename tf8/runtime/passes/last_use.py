"""Last-use analysis: for each instruction, the slots read for the last time there.

Codegen consumes it (`program.last_use`): it drops each intermediate right after its last
read, and only a value dying at an instruction may lend its buffer to that instruction's
result (`out=`). Program outputs never die. An analysis, not a rewrite: it changes nothing,
and any later pass that does change the program clears it.
"""

from __future__ import annotations

from typing import Any

from tf8.runtime.exec_program import ExecProgram

NAME = "last_use"
ANALYSIS = True


def analyse(program: ExecProgram) -> dict[int, tuple[int, ...]]:
    last: dict[int, int] = {}
    for index, inst in enumerate(program.instructions):
        for s in inst.inputs:
            last[s] = index
    keep = set(program.output_slots)
    by_instruction: dict[int, list[int]] = {}
    for slot, index in last.items():
        if slot not in keep:
            by_instruction.setdefault(index, []).append(slot)
    return {index: tuple(sorted(slots)) for index, slots in by_instruction.items()}


def run(program: ExecProgram, ctx: dict[str, Any]) -> int:
    program.last_use = analyse(program)
    return sum(len(slots) for slots in program.last_use.values())
