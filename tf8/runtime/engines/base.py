"""The engine interface: a kernel table, a code generator for fused regions, a placement.

An engine is three things (DESIGN §6, "Engines"):
- a **kernel table** keyed by `definition(op).rule_key` — a catalog row's name for a
  primitive, the op class for an extension family — so a new engine can supply its own svd
  without subclassing the op; `supports(op, avals)` says whether it runs an instruction;
- a **code generator** for fused regions (`region_code`), or None;
- a **placement**: `memory` names where its arrays live. `Runtime.prepare` inserts a transfer
  instruction wherever a value moves between engines; between engines that share a memory
  the transfer copies nothing.

The host engine (numpy) also drives execution: its `generate` turns a placed program into one
run function, asking guest engines for the code of their regions, and its `quiet` context
silences floating-point warnings in the lean interpreter.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tf8.ops.definition import definition

Kernel = Callable[..., Any]
HOST = "host"


@dataclass
class GuestRegion:
    """A guest engine's code for a run of its instructions, as the host's run function calls
    it: `function(*arrays of inputs) -> tuple(arrays of outputs)`."""

    function: Callable[..., tuple]
    inputs: list[int]  # slots read, in argument order
    outputs: list[int]  # slots returned (those read after the run), in order
    source: str  # generated source ("" when none)
    description: str  # one line for Prepared.pretty()
    path: Path | None = None  # the disk-cache file, for engines that cache
    loaded: bool = False  # loaded from the disk cache rather than compiled
    scalar_inputs: frozenset[int] = frozenset()  # 0-d inputs passed as scalars (`x[()]`)


class Engine:
    """Interface: `name`, `memory`, `kernels`, `supports`, `kernel`, `to_host`, `from_host`,
    `quiet`, and, for engines that compile fused regions, `region_code`."""

    name = "engine"
    memory = HOST
    install = ""  # the pip command that brings the engine's extra (for error messages)
    folds_metadata_views = False
    # A standalone engine runs every instruction of its programs itself (no fallback to
    # the numpy engine; Dask's lazy arrays must not be computed on the way): it is the host
    # of its runtime, with `interpret` for its lean tier and `generate` for its optimised one.
    standalone = False
    kernels: Mapping[Hashable, Kernel] = {}

    def supports(self, op: Any, avals: Sequence[Any] = ()) -> bool:
        """Whether this engine runs `op` on operands and results of `avals` (inputs, then
        outputs; empty when unknown)."""
        return self.kernel(op) is not None

    def kernel(self, op: Any) -> Kernel | None:
        return self.kernels.get(definition(op).rule_key)

    def places(self, inst: Any, program: Any) -> bool:
        """Whether instruction `inst` of `program` may be placed here (an engine that reads
        no folded metadata views takes only instructions that read their inputs as they are)."""
        if inst.input_views and not self.folds_metadata_views:
            return False
        avals = [program.slot_avals[s] for s in (*inst.inputs, *inst.outputs)]
        return self.supports(inst.op, avals)

    def worth(self, program: Any, instructions: Sequence[Any]) -> bool:
        """Whether a run of these consecutive instructions is worth placing here (a compiling
        engine declines runs too short to repay a compile and a call); else the host runs
        them."""
        return True

    def to_host(self, array: Any) -> np.ndarray:
        return np.asarray(array)

    def from_host(self, array: np.ndarray) -> Any:
        return array

    def input_array(self, value: Any) -> Any:
        """A run's input value as this engine reads it (before its shape and dtype checks)."""
        return np.asarray(value)

    def interpret(self, program: Any) -> Callable[..., list] | None:
        """A standalone engine's lean run function `run(values, ops) -> outputs`; None: the
        runtime's generic interpreter over `kernel`."""
        return None

    def quiet(self) -> contextlib.AbstractContextManager[Any]:
        """A context in which kernels follow IEEE silently (inf, nan; no warnings)."""
        return contextlib.nullcontext()

    def region_code(
        self, program: Any, indices: Sequence[int], escapes: Sequence[int]
    ) -> GuestRegion:
        """Code for the consecutive instructions `indices` of `program` placed on this engine,
        returning the slots `escapes`. This default calls the kernel table op by op (an engine
        with only kernels, no code generator); compiling engines override it."""
        instructions = [program.instructions[i] for i in indices]
        produced = {s for inst in instructions for s in inst.outputs}
        inputs = list(dict.fromkeys(s for i in instructions for s in i.inputs if s not in produced))
        steps = [(self.kernel(i.op), i.op, i.inputs, i.outputs) for i in instructions]
        outputs = list(escapes)

        def run(*arrays: Any) -> tuple:
            slots = dict(zip(inputs, arrays))
            for kernel, op, ins, outs in steps:
                result = kernel(op, *[slots[s] for s in ins])  # type: ignore[misc]
                slots.update(zip(outs, result if len(outs) > 1 else (result,)))
            return tuple(self.to_host(slots[s]) for s in outputs)

        names = ", ".join(sorted({i.name for i in instructions}))
        description = f"{self.name}: instructions {indices[0]}..{indices[-1]} by kernel ({names})"
        return GuestRegion(run, inputs, outputs, "", description)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class Transfer:
    """The op of a transfer instruction: a value moves from engine `source` to `target`."""

    name = "transfer"
    params = ()
    __slots__ = ("source", "target", "copies")

    def __init__(self, source: Engine, target: Engine) -> None:
        self.source = source
        self.target = target
        self.copies = source.memory != target.memory

    def __call__(self, array: Any) -> Any:
        return self.target.from_host(self.source.to_host(array))

    def __repr__(self) -> str:
        return f"transfer[{self.source.name}→{self.target.name}]"
