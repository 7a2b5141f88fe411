"""The user-facing wiring: one default compiler + runtime, installed as the evaluator.

Transforms (jit, grad, ...) live in tf8/jit.py and tf8/ad/; this module holds what they share:
how a list of traced values becomes numpy arrays, and how results are handed back to users.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8 import traced
from tf8.compiler import CompiledGraph, GraphCompiler
from tf8.runtime import Runtime
from tf8.traced import TracedTensor

default_compiler = GraphCompiler()
default_runtime = Runtime()


def evaluate(tensors: Sequence[TracedTensor]) -> list[np.ndarray]:
    """Compute bound traced values with the default compiler and runtime (prepare-cached)."""
    compiled = default_compiler.compile(list(tensors))
    return default_runtime.prepare(compiled).run()


traced.set_evaluator(evaluate)


def to_user(value: Any) -> Any:
    """A result as users receive it: numpy arrays outside transforms (numpy scalars for 0-d),
    TracedTensors inside another transform so transforms nest."""
    if not isinstance(value, TracedTensor):
        return value
    if traced.in_transform() or not value.is_concrete:
        return value
    array = np.asarray(value)
    return array[()] if array.ndim == 0 else array


def compile_outputs(outputs: Sequence[TracedTensor]) -> CompiledGraph:
    return default_compiler.compile(list(outputs))
