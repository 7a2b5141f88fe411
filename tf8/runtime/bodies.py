"""How a runtime runs the control-flow bodies of the programs it prepares.

A body (`ClosedProgram`) runs by itself as a function generated from its ops
(tf8.ops.evaluate). A runtime preparing a program that holds one hands it a runner of its own
instead (`ClosedProgram.use`): the body compiled and prepared once on a numpy runtime, whose
passes fold its views and constants, then `run_unchecked` per call (per iteration). Bodies run
on numpy whatever the outer program's engine, as before engines compiled loops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.compiler import GraphCompiler
from tf8.graph import materialize_merge
from tf8.lax.control import program_tensors
from tf8.ops.extension.control import ClosedProgram

__all__ = ["hand_bodies"]

_compiler = GraphCompiler()


def hand_bodies(program: Any, runtime: Any) -> None:
    """Hand every body of `program`'s control ops a runner prepared on `runtime`."""
    for inst in program.instructions:
        for body in getattr(inst.op, "subprograms", ()):
            body.use(lambda body, runtime=runtime: _runner(body, runtime))


def _runner(program: ClosedProgram, runtime: Any) -> Callable[[Sequence[np.ndarray]], list]:
    """The body compiled and prepared once (the prepare cache is keyed by fingerprint)."""
    ins, outs = program_tensors(program)
    if not outs:
        return lambda arrays: []
    reached = set(materialize_merge(None, list(program.outputs)).inputs)
    used = [i for i, k in enumerate(program.inputs) if k in reached]
    compiled = _compiler.compile_with_input_specs(outs, [ins[i] for i in used])
    run = runtime.prepare(compiled).run_unchecked
    if len(used) == len(ins):
        return run
    return lambda arrays: run([arrays[i] for i in used])
