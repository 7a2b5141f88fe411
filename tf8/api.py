"""The user-facing wiring: one default compiler + runtime, installed as the evaluator.

Transforms (jit, grad, ...) live in tf8/jit.py and tf8/ad/; this module holds what they share:
how a list of bound traced values becomes numpy arrays.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tf8 import traced
from tf8.compiler import GraphCompiler
from tf8.runtime import Runtime
from tf8.traced import TracedTensor

default_compiler = GraphCompiler()
default_runtime = Runtime()


def evaluate(tensors: Sequence[TracedTensor]) -> list[np.ndarray]:
    """Compute bound traced values with the default compiler and runtime (prepare-cached)."""
    compiled = default_compiler.compile(list(tensors))
    return default_runtime.prepare(compiled).run()


traced.set_evaluator(evaluate)
