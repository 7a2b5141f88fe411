"""Exec-level common subexpression elimination: one instruction per (op, operands).

The compiler already merges structurally equal graph values; after constant folding and
simplification new duplicates appear (two folded constants with the same bytes, two ops whose
operands were simplified to the same slot). Keys are (op, operand slots, operand views), with
operands already renamed, so one sweep in program order merges whole duplicated chains; ops
compare by value (a Primitive's parameters, an extension op's payload), never by identity.
"""

from __future__ import annotations

from typing import Any

from tf8.runtime.exec_program import ExecProgram

NAME = "cse"


def run(program: ExecProgram, ctx: dict[str, Any]) -> int:
    seen: dict[tuple, tuple[int, ...]] = {}
    alias: dict[int, int] = {}
    kept = []
    for inst in program.instructions:
        inputs = tuple(alias.get(s, s) for s in inst.inputs)
        inst.inputs = inputs
        key = (inst.op, inputs, inst.input_views)
        first = seen.get(key)
        if first is None:
            seen[key] = inst.outputs
            kept.append(inst)
            continue
        alias.update(zip(inst.outputs, first))
    removed = len(program.instructions) - len(kept)
    program.instructions[:] = kept
    program.output_slots = [alias.get(s, s) for s in program.output_slots]
    for old, new in alias.items():
        if old in program.known:
            program.known.setdefault(new, program.known[old])
    return removed
