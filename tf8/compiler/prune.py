"""Prune unused extension outputs: an SVD whose U and V are never read becomes svdvals.

An extension op may implement `prune_outputs(live: tuple[bool, ...]) -> op | None`, returning a
cheaper op that produces exactly the live outputs (in order), or None to keep itself.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tf8.ops.definition import definition


def prune_outputs(program: Any) -> Any:
    """Replace extension ops with some dead outputs by their pruned forms (SSA stays valid)."""
    # The program is materialised from its outputs, so a single-output op's output is read:
    # only ops with several outputs can have a dead one.
    if all(len(inst.outputs) < 2 for inst in program.instructions):
        return program
    read: set[int] = set(program.output_slots)
    for inst in program.instructions:
        read.update(inst.inputs)
    changed = False
    instructions = []
    for inst in program.instructions:
        prune = definition(inst.op).prune
        live = tuple(slot in read for slot in inst.outputs)
        if prune is not None and not all(live):
            smaller = prune(inst.op, live)
            if smaller is not None:
                kept = tuple(s for s, alive in zip(inst.outputs, live) if alive)
                inst = inst._replace(op=smaller, outputs=kept)
                changed = True
        instructions.append(inst)
    if not changed:
        return program
    return dataclasses.replace(program, instructions=instructions)
