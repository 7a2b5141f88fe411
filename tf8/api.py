"""The user-facing wiring: the default compiler and the shared runtime of each engine, which
jit runs its programs on, and `evaluate`, which runs bound traced values through them.

Nothing here is installed into a lower layer: tracing evaluates a pending value by its ops'
kernels (tf8.ops.evaluate), and a control-flow body runs as one generated function.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tf8 import config
from tf8.compiler import GraphCompiler
from tf8.runtime import Runtime
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
