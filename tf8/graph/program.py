"""Compilation to an SSA program, and a reference evaluator for evaluable operations.

Input slots come first (in the materialised input order), then each operation's outputs in
topological order; every slot is written once. The program carries its ordered input keys,
and `eval_program` binds inputs by key, so a caller can never get the input order wrong.
"""

from __future__ import annotations

import reprlib
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from tf8.errors import GraphError
from tf8.graph.keys import ValueKey, existing_input_key
from tf8.graph.materialize import MaterializedGraph
from tf8.graph.operation import operation_name
from tf8.graph.role import PRIMARY, OperationRole

__all__ = ["CompiledProgram", "Instruction", "compile_program", "eval_program"]


class Instruction(NamedTuple):
    """One SSA instruction: `op` (with its role) reads `inputs` slots, writes `outputs` slots."""

    op: Any
    role: OperationRole
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CompiledProgram:
    """An SSA program: instructions over numbered slots, with its ordered input keys."""

    instructions: list[Instruction]
    input_slots: list[int]
    output_slots: list[int]
    slot_count: int
    input_keys: list[ValueKey]  # input_slots[i] holds the value of input_keys[i]
    # id(input key) -> its position; safe because the program keeps its keys alive.
    _input_positions: dict[int, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.input_slots) != len(self.input_keys):
            raise GraphError(
                f"{len(self.input_slots)} input slots for {len(self.input_keys)} input keys"
            )
        positions = {id(key): position for position, key in enumerate(self.input_keys)}
        object.__setattr__(self, "_input_positions", positions)

    def eval(self, bindings: Mapping[ValueKey | Hashable, Any], ctx: Any = None) -> list[Any]:
        """Evaluate with inputs bound by key; see `eval_program`."""
        return eval_program(self, bindings, ctx)

    def pretty(self) -> str:
        """The program as text, one instruction a line: `%2 = Mul(%0, %1)`."""
        lines = [f"%{slot} = input {key!r}" for slot, key in zip(self.input_slots, self.input_keys)]
        for instruction in self.instructions:
            role = "" if instruction.role is PRIMARY else f"[{instruction.role!r}]"
            targets = ", ".join(f"%{slot}" for slot in instruction.outputs) or "()"
            arguments = ", ".join(f"%{slot}" for slot in instruction.inputs)
            lines.append(f"{targets} = {operation_name(instruction.op)}{role}({arguments})")
        lines.append("return " + ", ".join(f"%{slot}" for slot in self.output_slots))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"CompiledProgram(instructions={len(self.instructions)}, "
            f"inputs={len(self.input_slots)}, outputs={len(self.output_slots)}, "
            f"slots={self.slot_count})"
        )


def compile_program(flat: MaterializedGraph) -> CompiledProgram:
    """Number the values of a materialised graph into SSA slots."""
    input_keys = list(flat.inputs)
    # id(input key) -> its slot; id(operation key) -> slot of its output 0. Keys are kept
    # alive by `flat`, so ids cannot be reused during compilation.
    slots: dict[int, int] = {}
    for slot, key in enumerate(input_keys):
        if type(key) is not ValueKey or key._operation is not None:
            raise GraphError(f"materialised input {slot} ({key!r}) is not an input key")
        if id(key) in slots:
            raise GraphError(f"input {key!r} is listed twice in the materialised graph")
        slots[id(key)] = slot
    next_slot = len(input_keys)
    instructions: list[Instruction] = []
    append = instructions.append
    new_instruction = tuple.__new__  # NamedTuple's own __new__ is a slow Python function
    for operation in flat.operations:
        input_slots = []
        structure = operation._structure  # (op, role, *inputs)
        for key in structure[2:]:
            producer = key._operation
            base = slots.get(id(key) if producer is None else id(producer))
            if base is None:
                raise GraphError(
                    f"{key!r}, input of {operation!r}, is not defined earlier in the "
                    "materialised graph (not a listed input, or not in topological order)"
                )
            input_slots.append(base if producer is None else base + key._output_slot)
        if slots.setdefault(id(operation), next_slot) != next_slot:
            raise GraphError(f"{operation!r} appears twice in the materialised graph")
        output_count = operation._output_count
        end = next_slot + output_count
        outputs = (next_slot,) if output_count == 1 else tuple(range(next_slot, end))
        append(
            new_instruction(Instruction, (structure[0], structure[1], tuple(input_slots), outputs))
        )
        next_slot = end
    output_slots = []
    for position, key in enumerate(flat.outputs):
        producer = key._operation
        base = slots.get(id(key) if producer is None else id(producer))
        if base is None:
            raise GraphError(f"output {position} ({key!r}) is not in the materialised graph")
        output_slots.append(base if producer is None else base + key._output_slot)
    return CompiledProgram(
        instructions, list(range(len(input_keys))), output_slots, next_slot, input_keys
    )


_UNBOUND = object()


def eval_program(
    program: CompiledProgram, bindings: Mapping[ValueKey | Hashable, Any], ctx: Any = None
) -> list[Any]:
    """Evaluate `program`, binding each input by its ValueKey or its raw input key.

    Every operation must have `eval(ctx, inputs) -> sequence of outputs`. A missing, unknown
    or doubly given binding raises GraphError.
    """
    positions = program._input_positions
    input_keys = program.input_keys
    values: list[Any] = [_UNBOUND] * len(input_keys)
    for name, value in bindings.items():
        key = name if type(name) is ValueKey else existing_input_key(name)
        position = None if key is None else positions.get(id(key))
        if position is None:
            raise GraphError(
                f"binding {reprlib.repr(name)} is not an input of this program; "
                f"its inputs are {reprlib.repr(input_keys)}"
            )
        if values[position] is not _UNBOUND:
            raise GraphError(f"input {key!r} is bound twice (by its ValueKey and its raw key)")
        values[position] = value
    missing = [key for key, value in zip(input_keys, values) if value is _UNBOUND]
    if missing:
        raise GraphError(f"no binding for input(s) {', '.join(map(repr, missing))}")
    slots: list[Any] = [None] * program.slot_count
    for slot, value in zip(program.input_slots, values):
        slots[slot] = value
    for instruction in program.instructions:
        op = instruction.op
        evaluate = getattr(op, "eval", None)
        if evaluate is None:
            raise GraphError(f"operation {operation_name(op)} has no eval method")
        results = evaluate(ctx, [slots[slot] for slot in instruction.inputs])
        outputs = instruction.outputs
        if len(results) != len(outputs):
            raise GraphError(
                f"{operation_name(op)}.eval returned {len(results)} values, expected {len(outputs)}"
            )
        for slot, result in zip(outputs, results):
            slots[slot] = result
    return [slots[slot] for slot in program.output_slots]
