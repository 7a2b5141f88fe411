"""DOT pictures of prepared programs: the optimised program with its fused regions as clusters.

The drawing itself is tf8.compiler.dot's; this module reads the runtime's program: each op
names the engine that runs it and any views it reads its inputs through, and each blocked
elementwise region (the numpy engine's regions.py) is a cluster, and so is each run of
instructions a guest engine (numba) compiled into one function; transfers are ops. Passes
rewrite instructions, so the prepared program knows no roles: only ops reading tangent or
seed leaves (and what follows them) are drawn as tangent ops; the compiled program shows the
roles.
"""

from __future__ import annotations

from typing import Any

from tf8.compiler.dot import Cluster, Step, program_dot, program_inputs
from tf8.ops.shapes import shape_str


def _note(inst: Any) -> str:
    views = [
        inst.argument_str(position)
        for position in range(len(inst.inputs))
        if inst.views_of(position)
    ]
    return f"[{inst.engine}]" + (f" reads {', '.join(views)}" if views else "")


def prepared_dot(prepared: Any) -> str:
    """DOT of a `Prepared` (its optimised tier, built now if it was not yet)."""
    compiled, program = prepared.compiled, prepared.program
    steps = [
        Step(
            inst.op,
            inst.inputs,
            inst.outputs,
            tuple(program.slot_avals[s] for s in inst.outputs),
            note=_note(inst),
        )
        for inst in program.instructions
    ]
    clusters = [
        Cluster(
            f"fused region: {r.ops} ops over {shape_str(r.shape)}{r.note}",
            r.start,
            r.end,
        )
        for r in prepared.prepared.regions
    ]
    host = prepared.prepared.engine.name
    engines = [inst.engine for inst in program.instructions]
    start = 0
    for index in range(1, len(engines) + 1):  # the guests' runs (placement.runs)
        if index == len(engines) or engines[index] != engines[start]:
            if engines[start] not in (host,) and "→" not in engines[start]:
                label = f"{engines[start]}: compiled, {index - start} ops"
                clusters.append(Cluster(label, start, index))
            start = index
    title = "Prepared program (optimised tier)"
    inputs = program_inputs(compiled, program)
    outputs = program.output_slots
    return program_dot(title, inputs, steps, outputs, clusters, compiled.output_names)
