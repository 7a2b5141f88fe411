"""Rewrites as data: patterns over an ExecProgram, rules pattern → replacement, one matcher.

A `Pat` matches a slot: `Op("neg", Op("neg", X))` matches the value of a `neg` whose operand
is the value of another `neg`, binding that one's operand as "x". `Fill(test)` matches a
uniform constant (every element the same bytes) whose scalar passes `test`. A `Rule` turns a
match into a replacement: `Use(slot)` (the instruction's value *is* that slot's) or
`Emit(op, inputs)` (the instruction becomes another op). `rewrite_to_fixpoint` applies a rule
list until no rule fires, and enforces what every rule promises: the replacement has exactly
the same aval (an `Emit` is re-inferred and must add no shape guard), so a rule can never
change a program's shapes or dtypes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tf8.ops.definition import definition, infer
from tf8.runtime.exec_program import ExecInstruction, ExecProgram

MAX_SWEEPS = 64


@dataclass(frozen=True, slots=True)
class Pat:
    op: str | None = None  # the producing op's name; None: any slot
    inputs: tuple[Pat, ...] | None = None  # operand patterns (None: operands not inspected)
    bind: str | None = None  # bind the matched slot (and for op patterns, the instruction)
    fill: Callable[[np.ndarray], bool] | None = None  # a uniform constant passing this test


def V(name: str) -> Pat:
    """Any value, bound to `name` (a name used twice must match the same slot)."""
    return Pat(bind=name)


def Op(name: str, *inputs: Pat, bind: str | None = None) -> Pat:
    return Pat(op=name, inputs=inputs, bind=bind)


def Fill(test: Callable[[np.ndarray], bool], bind: str | None = None) -> Pat:
    return Pat(fill=test, bind=bind)


@dataclass(frozen=True, slots=True)
class Use:
    slot: int


@dataclass(frozen=True, slots=True)
class Emit:
    op: Any
    inputs: tuple[int, ...]


@dataclass(slots=True)
class Match:
    """What a pattern bound: slots and instructions by name, plus the matched root."""

    program: ExecProgram
    root: ExecInstruction
    slots: dict[str, int] = field(default_factory=dict)
    insts: dict[str, ExecInstruction] = field(default_factory=dict)
    fills: dict[str, np.ndarray] = field(default_factory=dict)
    uses: dict[int, int] = field(default_factory=dict)  # slot → readers (kept current)

    def __getitem__(self, name: str) -> int:
        return self.slots[name]

    def readers(self, name: str) -> int:
        """How many operands and outputs read the slot bound to `name` (a rule that would
        duplicate work when a value has other readers asks this)."""
        return self.uses.get(self.slots[name], 0)

    def dtype(self, name: str = "") -> np.dtype:
        slot = self.slots[name] if name else self.root.outputs[0]
        return self.program.slot_avals[slot].dtype


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    pattern: Pat  # an Op pattern: rules are indexed by its op name
    rewrite: Callable[[Match], Use | Emit | None]  # None: the rule does not apply after all


def keep(name: str) -> Callable[[Match], Use]:
    """Replacement: the value bound to `name`."""
    return lambda m: Use(m[name])


def when(test: Callable[[Match], bool], then: Callable[[Match], Use | Emit | None]):
    """Replacement `then`, only where `test(match)` holds."""
    return lambda m: then(m) if test(m) else None


def fill_value(program: ExecProgram, producers: dict[int, ExecInstruction], slot: int):
    """The 0-d value of a uniform constant slot (seeing through broadcasts), else None."""
    value = program.known.get(slot)
    inst = producers.get(slot)
    if value is None and inst is not None and not inst.input_views:
        found = definition(inst.op)
        if found.literal is not None:
            value = found.literal(inst.op)
        elif found.fusion.view is not None and found.fusion.view.broadcast:
            return fill_value(program, producers, inst.inputs[0])
    if value is None:
        return None
    return uniform_scalar(np.asarray(value))


def uniform_scalar(array: np.ndarray) -> np.ndarray | None:
    """array's one repeated element as a 0-d array when all elements have the same bytes."""
    if array.size == 0:
        return None
    flat = np.ascontiguousarray(array).reshape(-1)
    first = flat[:1]
    if array.size > 1:
        rows = flat.view(np.uint8).reshape(flat.size, flat.dtype.itemsize)
        if not (rows == rows[:1]).all():
            return None
    return first.reshape(())


class _Matcher:
    def __init__(self, program: ExecProgram, alias: dict[int, int]) -> None:
        self.program = program
        self.alias = alias
        self.producers = program.producers()
        self.uses = program.use_counts()

    def resolve(self, slot: int) -> int:
        while slot in self.alias:
            slot = self.alias[slot]
        return slot

    def match_root(self, pattern: Pat, inst: ExecInstruction) -> Match | None:
        m = Match(self.program, inst, uses=self.uses)
        return m if self._match_inst(pattern, inst, m) else None

    def _match_inst(self, pattern: Pat, inst: ExecInstruction, m: Match) -> bool:
        if inst.name != pattern.op or inst.input_views or len(inst.outputs) != 1:
            return False
        if pattern.bind is not None:
            m.insts[pattern.bind] = inst
        if pattern.inputs is None:
            return True
        if len(pattern.inputs) != len(inst.inputs):
            return False
        return all(
            self._match_slot(p, self.resolve(s), m) for p, s in zip(pattern.inputs, inst.inputs)
        )

    def _match_slot(self, pattern: Pat, slot: int, m: Match) -> bool:
        if pattern.bind is not None:
            bound = m.slots.setdefault(pattern.bind, slot)
            if bound != slot:
                return False
        if pattern.fill is not None:
            value = fill_value(self.program, self.producers, slot)
            if value is None or not pattern.fill(value):
                return False
            if pattern.bind is not None:
                m.fills[pattern.bind] = value
        if pattern.op is not None:
            inst = self.producers.get(slot)
            return inst is not None and self._match_inst(pattern, inst, m)
        return True


def _accept(program: ExecProgram, inst: ExecInstruction, result: Use | Emit) -> bool:
    """The replacement keeps the instruction's aval exactly (and adds no shape guard)."""
    aval = program.slot_avals[inst.outputs[0]]
    if isinstance(result, Use):
        return result.slot != inst.outputs[0] and program.slot_avals[result.slot] == aval
    guards: list = []
    try:
        avals = infer(result.op, [program.slot_avals[s] for s in result.inputs], guards)
    except Exception:
        return False
    return not guards and tuple(avals) == (aval,)


def rewrite_to_fixpoint(program: ExecProgram, rules: Sequence[Rule]) -> int:
    """Apply `rules` until none fires; the number of rewrites. An instruction whose value was
    replaced by another slot is removed (its readers now read that slot)."""
    by_op: dict[str, list[Rule]] = {}
    for rule in rules:
        by_op.setdefault(rule.pattern.op or "", []).append(rule)
    total = 0
    for _ in range(MAX_SWEEPS):
        alias: dict[int, int] = {}
        matcher = _Matcher(program, alias)
        changed = 0
        for inst in program.instructions:
            inst.inputs = tuple(matcher.resolve(s) for s in inst.inputs)
            for rule in by_op.get(inst.name, ()):
                match = matcher.match_root(rule.pattern, inst)
                result = None if match is None else rule.rewrite(match)
                if result is None or not _accept(program, inst, result):
                    continue
                changed += 1
                uses = matcher.uses
                if isinstance(result, Use):
                    alias[inst.outputs[0]] = result.slot
                    uses[result.slot] = uses.get(result.slot, 0) + uses.get(inst.outputs[0], 0)
                    break
                for s in inst.inputs:
                    uses[s] -= 1
                for s in result.inputs:
                    uses[s] = uses.get(s, 0) + 1
                inst.op, inst.inputs = result.op, result.inputs  # later rules see the new op
        program.substitute(alias)
        if alias:  # a replaced value is read by nobody now: drop its instruction
            program.instructions[:] = [
                inst for inst in program.instructions if inst.outputs[0] not in alias
            ]
        total += changed
        if not changed:
            break
    return total
