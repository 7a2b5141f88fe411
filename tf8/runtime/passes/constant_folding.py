"""Constant folding: evaluate at prepare time what depends only on constants, to a fixpoint.

Known values start from the program's own literals (`constant`, `iota`); an instruction whose
inputs are all known is evaluated with its numpy kernel and replaced by a `constant`, and one
whose value its operands' avals alone give (`OpDefinition.static_value`: `shape_of` of a
concrete dimension) by that value. What is never folded, and why:
- bound inputs: bindings are not part of the fingerprint, so a program folded over one
  binding would be served from the prepare cache to a graph bound to other data;
- `shape_of` of a symbolic dimension (its value is only known at run time; on a concrete
  dimension it folds, even when the array itself is not known);
- ops with symbolic parameters, extension ops, and results above MAX_FOLDED_ELEMENTS
  (a folded constant lives in the prepared program);
- instructions whose kernel raises: the error belongs to run time;
- effects (`effectful` ops: tf8.debug.print, io_callback): they run when the program runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.ops.definition import definition
from tf8.ops.primitive import Aval, Primitive
from tf8.ops.shapes import has_symbolic, is_symbolic
from tf8.runtime.exec_program import ExecInstruction, ExecProgram

NAME = "constant_folding"
MAX_FOLDED_ELEMENTS = 100_000


def _foldable_size(aval: Aval) -> bool:
    return not is_symbolic(aval.shape) and int(np.prod(aval.shape)) <= MAX_FOLDED_ELEMENTS


def evaluate(program: ExecProgram, inst: ExecInstruction) -> np.ndarray | None:
    """The value of `inst` if it can be computed now, else None."""
    op = inst.op
    found = definition(op)
    kernel = found.kernel
    if kernel is None or len(inst.outputs) != 1 or inst.input_views:
        return None
    if getattr(op, "effectful", False):  # a callback with effects runs at run time only
        return None
    aval = program.slot_avals[inst.outputs[0]]
    if not _foldable_size(aval) or has_symbolic(getattr(op, "params", ())):
        return None
    if found.static_value is not None:
        return found.static_value(op, [program.slot_avals[s] for s in inst.inputs])
    known = program.known
    if not all(s in known for s in inst.inputs):
        return None
    try:
        with np.errstate(all="ignore"):
            value = np.asarray(kernel(op, *(known[s] for s in inst.inputs)))
    except Exception:  # the kernel's error is the program's run-time behaviour: keep it there
        return None
    if value.shape != aval.shape or value.dtype != aval.dtype:
        return None
    return value


def run(program: ExecProgram, ctx: dict[str, Any]) -> int:
    folded = 0
    changed = True
    while changed:  # one sweep in program (topological) order already reaches the fixpoint
        changed = False
        for index, inst in enumerate(program.instructions):
            if inst.outputs[0] in program.known:
                continue
            value = evaluate(program, inst)
            if value is None:
                continue
            program.known[inst.outputs[0]] = value
            if definition(inst.op).literal is None:
                constant = Primitive("constant", 0, value=value)
                program.instructions[index] = ExecInstruction(constant, (), inst.outputs)
                folded += 1
                changed = True
    return folded
