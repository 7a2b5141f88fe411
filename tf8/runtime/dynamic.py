"""Programs with run-time sizes: an interpreter that learns sizes as it goes.

`dynamic_truncate` produces an axis whose size is known only when it runs. Later ops may have
that size in their parameters (a broadcast to it, a reshape), and shape guards may mention it.
Such programs skip code generation: this interpreter runs the instructions in order, binds
each new size from the first array that has it, specialises every op's parameters just
before it runs, and checks each guard as soon as all of its sizes are known — so a mismatch
is an error before any numpy broadcasting could hide it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tf8.ops.evaluate import bind_sizes, check_ready
from tf8.ops.shapes import dim_symbols

from .exec_program import ExecProgram


def run_time_symbols(program: ExecProgram) -> frozenset[str]:
    """Sizes that no input defines: they are learnt while the program runs."""
    known = frozenset().union(*(dim_symbols(a.shape) for a in program.input_avals))
    every = frozenset().union(*(dim_symbols(a.shape) for a in program.slot_avals))
    return every - known


def interpret(
    program: ExecProgram,
    kernel_of: Callable[[Any], Callable[..., Any]],
    specialize: Callable[[Any, Mapping[str, int]], Any],
    values: Sequence[Any],
    env: Mapping[str, int],
    quiet: Callable[[], Any],
) -> list[np.ndarray]:
    """Run `program` instruction by instruction, learning run-time sizes into `env`; `quiet`
    is the engine's context silencing floating-point warnings."""
    env = dict(env)
    pending = check_ready(list(program.guards), env)
    slots: dict[int, Any] = dict(enumerate(values))
    with quiet():
        for inst in program.instructions:
            op = specialize(inst.op, env)
            result = kernel_of(op)(op, *[slots[s] for s in inst.inputs])
            outputs = result if len(inst.outputs) > 1 else (result,)
            for slot, out in zip(inst.outputs, outputs):
                out = np.asarray(out)
                bind_sizes(env, program.slot_avals[slot].shape, out)
                slots[slot] = out
            if pending:
                pending = check_ready(pending, env)
    inputs = [slots[i] for i in range(program.n_inputs)]
    return fresh_outputs([slots[s] for s in program.output_slots], inputs)


def fresh_outputs(results: list[Any], inputs: Sequence[Any]) -> list[np.ndarray]:
    """Outputs as arrays the caller owns: never an input, a view, or one array twice."""
    fresh: list[np.ndarray] = []
    for out in results:
        if not isinstance(out, np.ndarray):
            fresh.append(np.asarray(out))  # a numpy scalar: a new 0-d array
            continue
        owned = out.flags.owndata and out.flags.writeable
        if not owned or any(out is i for i in inputs) or any(out is r for r in fresh):
            out = np.array(out)
        fresh.append(out)
    return fresh
