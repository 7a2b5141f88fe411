"""Dead code elimination: drop instructions none of whose outputs reach a program output."""

from __future__ import annotations

from typing import Any

from tf8.runtime.exec_program import ExecProgram

NAME = "dce"


def run(program: ExecProgram, ctx: dict[str, Any]) -> int:
    live = set(program.output_slots)
    kept = []
    for inst in reversed(program.instructions):
        if any(s in live for s in inst.outputs):
            kept.append(inst)
            live.update(inst.inputs)
    removed = len(program.instructions) - len(kept)
    kept.reverse()
    program.instructions[:] = kept
    return removed
