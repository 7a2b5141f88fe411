"""Metadata-view folding: an op whose result is a view of its operand (`Fusion.view`, on
transpose, reshape, broadcast_in_dim and slice) read by a single consumer is no longer an
instruction of its own; the consumer reads its operand through the view.

On numpy these ops are views (or, for a reshape of a strided array, the same copy the kernel
would make), so the consumer sees the same array; the program loses an instruction and the
generated code a call. Chains fold into one chain. Only when the engine says it reads views
(`ctx["engine"].folds_metadata_views`), and never for a program output or for symbolic
parameters (the view's parameters are fixed in the generated code). A broadcast of a 0-d
value (`View.broadcast`) read only by elementwise ops folds into all its readers: ufuncs
read the 0-d value.
"""

from __future__ import annotations

from typing import Any

from tf8.ops.catalog import Category
from tf8.ops.definition import definition
from tf8.ops.shapes import has_symbolic
from tf8.runtime.exec_program import ExecInstruction, ExecProgram

NAME = "view_folding"
ELEMENTWISE = (Category.ELEMENTWISE, Category.ANALYTIC)


def _is_view(inst: ExecInstruction) -> bool:
    op = inst.op
    return definition(op).fusion.view is not None and not has_symbolic(op.params)


def _scalar_broadcast_to_elementwise(
    program: ExecProgram, inst: ExecInstruction, readers: list[ExecInstruction]
) -> bool:
    """A broadcast of a 0-d value read only by elementwise ops: every reader may read it as
    a view (generated code passes the 0-d value to a ufunc, which broadcasts it for free)."""
    view = definition(inst.op).fusion.view
    return (
        view is not None
        and view.broadcast
        and not inst.input_views
        and not program.slot_avals[inst.inputs[0]].shape
        and all(definition(r.op).category in ELEMENTWISE for r in readers)
    )


def run(program: ExecProgram, ctx: dict[str, Any]) -> int:
    engine = ctx.get("engine")
    if engine is not None and not getattr(engine, "folds_metadata_views", False):
        return 0
    uses = program.use_counts()
    readers = program.consumers()
    outputs = set(program.output_slots)
    folded: dict[int, ExecInstruction] = {}  # slot of a folded view → its instruction
    kept = []
    for inst in program.instructions:
        if folded.keys() & set(inst.inputs):
            views = [inst.views_of(p) for p in range(len(inst.inputs))]
            inputs = list(inst.inputs)
            for position, slot in enumerate(inst.inputs):
                view = folded.get(slot)
                if view is not None:
                    inputs[position] = view.inputs[0]
                    views[position] = view.views_of(0) + (view.op,)
            inst.inputs = tuple(inputs)
            inst.input_views = tuple(views)
        slot = inst.outputs[0]
        if (
            _is_view(inst)
            and slot not in outputs
            and (
                uses.get(slot, 0) == 1
                or _scalar_broadcast_to_elementwise(program, inst, readers.get(slot, []))
            )
        ):
            folded[slot] = inst
        else:
            kept.append(inst)
    removed = len(program.instructions) - len(kept)
    program.instructions[:] = kept
    return removed
