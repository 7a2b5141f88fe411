"""Numbering a materialised graph straight into a SemanticProgram, in one pass.

The general path numbers the graph into SSA slots (`tf8.graph.compile_program`), prunes
unused extension outputs, then renumbers the slots so the program's inputs come first in
their given order. Without multi-output ops there is nothing to prune, so `direct_program`
gives each value its final slot at once: the same program, without the intermediate one (a
first call compiles every program it runs once).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tf8.errors import CompileError, GraphError
from tf8.graph import MaterializedGraph, ValueKey
from tf8.ops.definition import infer
from tf8.ops.primitive import Aval
from tf8.ops.shapes import DimExpr, ShapeGuard, dim_symbols

from .program import SemanticProgram, make_instruction

__all__ = ["direct_program", "finish_program"]


def direct_program(
    flat: MaterializedGraph,
    input_keys: Sequence[ValueKey],
    input_avals: Sequence[Aval],
    bound: Mapping[ValueKey, Any],
) -> SemanticProgram:
    """The program of `flat` (single-output operations only) with `input_keys` as its inputs,
    in order. Avals and guards are the ones
    recorded when each op was traced (an op built through the raw graph API is inferred)."""
    position = {key: i for i, key in enumerate(input_keys)}
    slots: dict[int, int] = {}  # id(input key) or id(operation key) -> slot
    for key in flat.inputs:
        slots[id(key)] = position[key]
    avals: list[Aval] = list(input_avals)
    guards: list[ShapeGuard] = []
    instructions = []
    append = instructions.append
    next_slot = len(input_keys)
    for operation in flat.operations:
        structure = operation._structure  # (op, role, *inputs)
        ins = []
        for key in structure[2:]:
            producer = key._operation
            slot = slots.get(id(key) if producer is None else id(producer))
            if slot is None:
                raise GraphError(f"{key!r}, input of {operation!r}, is not defined before it")
            ins.append(slot)  # (single-output producers: output slot 0)
        op = structure[0]
        meta = operation.meta
        if meta is None:
            out_avals = infer(op, [avals[s] for s in ins], guards)
        else:
            out_avals = meta[0]
            if meta[1]:
                guards.extend(meta[1])
        slots[id(operation)] = next_slot
        avals.append(out_avals[0])
        append(make_instruction(op, tuple(ins), (next_slot,)))
        next_slot += 1
    output_slots = []
    for key in flat.outputs:
        producer = key._operation
        output_slots.append(slots[id(key) if producer is None else id(producer)])
    return finish_program(avals, input_keys, bound, instructions, output_slots, guards)


def finish_program(
    avals: list[Aval],
    input_keys: Sequence[ValueKey],
    bound: Mapping[ValueKey, Any],
    instructions: list[Any],
    output_slots: Sequence[int],
    guards: list[ShapeGuard],
) -> SemanticProgram:
    """The SemanticProgram of numbered `instructions` (inputs first, in `input_keys` order)."""
    _check_symbols_bound(avals[: len(input_keys)], instructions)
    return SemanticProgram(
        input_avals=tuple(avals[: len(input_keys)]),
        input_bound=tuple([k in bound for k in input_keys]),
        instructions=tuple(instructions),
        slot_avals=tuple(avals),
        output_slots=tuple(output_slots),
        guards=tuple(dict.fromkeys(guards)),
    )


def _param_symbols(value: Any) -> frozenset[str]:
    if isinstance(value, DimExpr):
        return value.symbols
    if isinstance(value, tuple):
        return frozenset().union(*(_param_symbols(v) for v in value))
    return frozenset()


def _check_symbols_bound(input_avals: Sequence[Aval], instructions: Sequence[Any]) -> None:
    """Every symbolic size an op's parameters use must come from some input's shape."""
    known = frozenset().union(*(dim_symbols(a.shape) for a in input_avals))
    checked: set[int] = set()  # ids of the ops seen (one op object serves many instructions)
    for inst in instructions:
        op = inst.op
        if id(op) in checked:
            continue
        checked.add(id(op))
        params = getattr(op, "params", ())
        if not params:
            continue
        free = _param_symbols(tuple(v for _, v in params)) - known
        free = {name for name in free if not name.startswith("truncated")}
        if free:
            raise CompileError(
                f"{inst.op!r} uses symbolic size {', '.join(sorted(free))} that no input's "
                "shape defines, so it has no value when the program runs"
            )
