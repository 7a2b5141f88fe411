"""Turn a scheduled ExecProgram into one straight-line Python function (no interpreter loop).

The generated function reads its inputs, calls each kernel once, drops every intermediate
right after its last use (so numpy can reuse the memory), and returns the outputs. numpy's
floating-point warnings are silenced while it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.runtime.exec_program import ExecProgram


def last_uses(program: ExecProgram) -> dict[int, list[int]]:
    """Instruction index → slots whose last read is that instruction (outputs excluded)."""
    last: dict[int, int] = {}
    for index, inst in enumerate(program.instructions):
        for s in inst.inputs:
            last[s] = index
    keep = set(program.output_slots)
    by_instruction: dict[int, list[int]] = {}
    for slot, index in last.items():
        if slot not in keep:
            by_instruction.setdefault(index, []).append(slot)
    return by_instruction


def generate(program: ExecProgram, kernels: Sequence[Callable[..., Any]]) -> Callable[..., list]:
    """`run(inputs, ops) -> list`: `inputs` in slot order, `ops[i]` the op of instruction i."""
    lines = ["def run(inputs, ops):"]
    if program.n_inputs:
        names = ", ".join(f"s{i}" for i in range(program.n_inputs))
        lines.append(f"    {names}, = inputs")
    frees = last_uses(program)
    namespace: dict[str, Any] = {}
    for index, (inst, kernel) in enumerate(zip(program.instructions, kernels)):
        namespace[f"k{index}"] = kernel
        args = "".join(f", s{s}" for s in inst.inputs)
        if len(inst.outputs) == 1:
            target = f"s{inst.outputs[0]}"
        else:
            target = ", ".join(f"s{s}" for s in inst.outputs) + ","
        lines.append(f"    {target} = k{index}(ops[{index}]{args})")
        dead = [f"s{s}" for s in frees.get(index, []) if s not in inst.outputs]
        if dead:
            lines.append(f"    del {', '.join(dead)}")
    lines.append("    return [" + ", ".join(f"s{s}" for s in program.output_slots) + "]")
    source = "\n".join(lines)
    exec(compile(source, "<tf8 generated run>", "exec"), namespace)
    straight_line = namespace["run"]

    def run(inputs: Sequence[Any], ops: Sequence[Any]) -> list:
        # IEEE results (inf, nan, wrapped integers) are values, not warnings, as in JAX.
        with np.errstate(all="ignore"):
            return straight_line(inputs, ops)

    run.source = source  # type: ignore[attr-defined]
    return run
