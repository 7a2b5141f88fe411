"""Placement: each instruction on an engine that supports it, transfers where it changes.

`place(program, engines, host)` walks the optimised program once:
- every instruction goes to the first of `engines` whose `places(inst, program)` accepts it,
  else to `host` (the numpy engine, which runs every op): the fallback is visible in
  `Prepared.pretty()` as the instruction's `[engine]`;
- constants (ops whose definition gives a `literal` value) are hoisted to the front and
  stay on the host (they are the generated code's globals, readable by every engine);
- a value read on an engine other than the one holding it is moved by an explicit
  `transfer[source→target]` instruction, placed before the run of instructions that reads it
  (inputs into a guest run) or right after the run that made it (guest results the host
  reads, program outputs), so each guest engine's instructions stay consecutive: one run,
  one compiled function.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from tf8.ops.definition import definition

from .engines.base import Engine, Transfer
from .exec_program import ExecInstruction, ExecProgram


def runs(engine_of: Sequence[str]) -> list[tuple[int, int]]:
    """Maximal [start, stop) runs of consecutive instructions with one engine."""
    out: list[tuple[int, int]] = []
    start = 0
    for index in range(1, len(engine_of) + 1):
        if index == len(engine_of) or engine_of[index] != engine_of[start]:
            out.append((start, index))
            start = index
    return out


def place(program: ExecProgram, engines: Sequence[Engine], host: Engine) -> int:
    """Place `program`'s instructions (in place); returns the number of transfers inserted."""
    guests = [e for e in engines if e is not host and e.name != host.name]
    by_name = {host.name: host, **{e.name: e for e in guests}}
    constants: list[ExecInstruction] = []
    others: list[ExecInstruction] = []
    for inst in program.instructions:
        (others if definition(inst.op).literal is None else constants).append(inst)
    for inst in constants:
        inst.engine = host.name
    for inst in others:
        inst.engine = next((e.name for e in guests if e.places(inst, program)), host.name)
    if not guests or all(inst.engine == host.name for inst in others):
        return 0
    others = cluster(others)
    for start, stop in runs([inst.engine for inst in others]):
        engine = by_name[others[start].engine]
        if engine is not host and not engine.worth(program, others[start:stop]):
            for inst in others[start:stop]:
                inst.engine = host.name
    if all(inst.engine == host.name for inst in others):
        program.instructions = [*constants, *others]
        program.last_use = None
        return 0
    constant_slots = {s for inst in constants for s in inst.outputs}
    home: dict[int, str] = {}  # slot → engine holding it
    copies: dict[tuple[int, str], int] = {}  # (slot, engine) → the slot of its copy there
    host_reads = {s for inst in others if inst.engine == host.name for s in inst.inputs}
    host_reads.update(program.output_slots)
    placed: list[ExecInstruction] = list(constants)
    transfers = 0

    def copy(slot: int, target: str) -> tuple[int, ExecInstruction | None]:
        nonlocal transfers
        source = home.get(slot, host.name)
        if source == target or slot in constant_slots:
            return slot, None
        found = copies.get((slot, target))
        if found is not None:
            return found, None
        new = program.new_slot(program.slot_avals[slot])
        copies[(slot, target)] = new
        home[new] = target
        transfers += 1
        op = Transfer(by_name[source], by_name[target])
        return new, ExecInstruction(op, (slot,), (new,), engine=f"{source}→{target}")

    for start, stop in runs([inst.engine for inst in others]):
        engine = others[start].engine
        before: list[ExecInstruction] = []
        for inst in others[start:stop]:
            new_inputs = []
            for s in inst.inputs:
                s2, transfer = copy(s, engine)
                if transfer is not None:
                    before.append(transfer)
                new_inputs.append(s2)
            inst.inputs = tuple(new_inputs)
            for s in inst.outputs:
                home[s] = engine
        placed += before
        placed += others[start:stop]
        if engine == host.name:
            continue
        produced = {s for inst in others[start:stop] for s in inst.outputs}
        for s in sorted(produced & host_reads):
            _, transfer = copy(s, host.name)
            if transfer is not None:
                placed.append(transfer)
    program.instructions = placed
    program.output_slots = [copies.get((s, host.name), s) for s in program.output_slots]
    program.last_use = None  # the instructions changed: codegen analyses them afresh
    return transfers


def cluster(instructions: Sequence[ExecInstruction]) -> list[ExecInstruction]:
    """A topological order that keeps each engine's instructions together: always run next
    the earliest ready instruction of the engine that ran last, and switch engines only when
    it has none ready. (Fewer, longer guest runs: fewer compiled functions, fewer transfers.)"""
    producer = {s: i for i, inst in enumerate(instructions) for s in inst.outputs}
    waiting = [0] * len(instructions)
    users: list[list[int]] = [[] for _ in instructions]
    for i, inst in enumerate(instructions):
        for j in {producer[s] for s in inst.inputs if s in producer}:
            waiting[i] += 1
            users[j].append(i)
    ready: dict[str, list[int]] = {}
    for i, inst in enumerate(instructions):
        if not waiting[i]:
            heapq.heappush(ready.setdefault(inst.engine, []), i)
    order: list[ExecInstruction] = []
    current = instructions[0].engine if instructions else ""
    while len(order) < len(instructions):
        if not ready.get(current):
            current = min((h[0], e) for e, h in ready.items() if h)[1]
        i = heapq.heappop(ready[current])
        order.append(instructions[i])
        for u in users[i]:
            waiting[u] -= 1
            if not waiting[u]:
                heapq.heappush(ready.setdefault(instructions[u].engine, []), u)
    return order
