"""Elementwise ops as numpy ufunc calls: what generated code calls instead of the kernels.

`ufunc_steps(op, dtypes)` (tf8.ops.lowering, whose derived functions write the same calls)
gives the ufunc calls that compute `op` on operands of those dtypes
exactly as its kernel does (same ufuncs, same order, same dtypes), or None when the
kernel does something a ufunc cannot (integer division, negative integer powers, complex
sign...). Because every step is a ufunc, generated code may pass `out=`: write into a dead
operand's buffer, or into a cache-sized block of an elementwise region.
(A reduction's `ufunc.reduce` is its definition's `Fusion.reduce`.)
"""

from __future__ import annotations

import numpy as np

from tf8.ops.fusion import PREVIOUS, Literal, Step, StepRule, Steps
from tf8.ops.lowering import step_argument, ufunc_steps

__all__ = ["PREVIOUS", "Literal", "Step", "StepRule", "Steps", "step_argument", "ufunc_steps"]


# np.maximum and np.minimum deprecate a positional output; every other ufunc takes one, and it
# costs about 40 ns less per call than `out=` (no keyword parsing): on 16 elements that is a
# seventh of the call.
_KEYWORD_OUT = frozenset({np.maximum, np.minimum})


def out_argument(ufunc: np.ufunc, out: str) -> str:
    """Source text passing `out` as the output of a call of `ufunc` (after its operands)."""
    return f"out={out}" if ufunc in _KEYWORD_OUT else out


def reads_after_first_step(steps: Steps) -> set[int]:
    """Operand positions read by steps after the first: a buffer holding one of them must not
    receive the first step's result (the later step would read clobbered data)."""
    return {a for step in steps[1:] for a in step.args if isinstance(a, int) and a >= 0}
