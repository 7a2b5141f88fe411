"""The user-facing wiring: one default compiler + runtime, installed as the evaluator.

Transforms (jit, grad, ...) live in tf8/jit.py and tf8/ad/; this module holds what they share:
how a list of bound traced values becomes numpy arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tf8 import config, traced
from tf8.ad.derive import set_lowering
from tf8.compiler import GraphCompiler
from tf8.graph import materialize_merge
from tf8.ops.extension.control import ClosedProgram, set_program_runner
from tf8.runtime import Runtime
from tf8.runtime.lowering import python_function
from tf8.traced import TracedTensor

default_compiler = GraphCompiler()
default_runtime = Runtime()
_RUNTIMES: dict[str, Runtime] = {"numpy": default_runtime}


def runtime_for(engine: str | None) -> Runtime:
    """The shared runtime of engine `engine` (None: `tf8.config.tf8_default_engine`), whose
    ops the engine lacks fall back to numpy. Raises EngineError for an unknown or
    uninstalled engine."""
    if engine is None:
        engine = config.tf8_default_engine
    runtime = _RUNTIMES.get(engine)  # type: ignore[arg-type]
    if runtime is None:
        runtime = _RUNTIMES[engine] = Runtime(engines=[engine])  # type: ignore[list-item]
    return runtime


def evaluate(tensors: Sequence[TracedTensor]) -> list[np.ndarray]:
    """Compute bound traced values with the default compiler and runtime (prepare-cached)."""
    compiled = default_compiler.compile(list(tensors))
    return default_runtime.prepare(compiled).run()


traced.set_evaluator(evaluate)


def _program_runner(program: ClosedProgram) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]]:
    """How a control op's kernel runs a closed sub-program: compiled and prepared once (the
    prepare cache is keyed by fingerprint), then `run_unchecked` per call (per iteration)."""
    ins = [TracedTensor(k, a, {}, unbound=True) for k, a in zip(program.inputs, program.in_avals)]
    outs = [
        TracedTensor(k, a, {}, unbound=True) for k, a in zip(program.outputs, program.out_avals)
    ]
    if not outs:
        return lambda arrays: []
    reached = set(materialize_merge(None, list(program.outputs)).inputs)
    used = [i for i, k in enumerate(program.inputs) if k in reached]
    compiled = default_compiler.compile_with_input_specs(outs, [ins[i] for i in used])
    run = default_runtime.prepare(compiled).run_unchecked
    if len(used) == len(ins):
        return run
    return lambda arrays: run([arrays[i] for i in used])


set_program_runner(_program_runner)
set_lowering(python_function)  # how the eager tape runs the rules it derives
