"""Elementwise ops as numpy ufunc calls: what generated code calls instead of the kernels.

`ufunc_steps(op, dtypes)` gives the ufunc calls that compute `op` on operands of those dtypes
exactly as `tf8.ops.kernels` does (same ufuncs, same order, same dtypes), or None when the
kernel does something a ufunc cannot (integer division, negative integer powers, complex
sign...). Because every step is a ufunc, generated code may pass `out=`: write into a dead
operand's buffer, or into a cache-sized block of an elementwise region.

`reduction(op)` is the same for reductions: `(ufunc, pass_dtype)` for `ufunc.reduce`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.ops.definition import definition
from tf8.ops.fusion import PREVIOUS, Literal, Step, StepRule, Steps
from tf8.ops.fusion import by_dtype as _logical
from tf8.ops.fusion import direct as _direct
from tf8.ops.kernels import COMPARISONS

__all__ = ["PREVIOUS", "Literal", "Step", "StepRule", "Steps", "ufunc_steps"]


def _compare(op: Any, dtypes: Sequence[np.dtype]) -> Steps:
    return (Step(COMPARISONS[op["direction"]], (0, 1)),)


def _clamp(op: Any, dtypes: Sequence[np.dtype]) -> Steps:  # min(max(x, lo), hi)
    return (Step(np.maximum, (1, 0)), Step(np.minimum, (PREVIOUS, 2)))


# Keyed by catalog name; each entry mirrors the kernel of the same name in tf8/ops/kernels.py.
UFUNC_RULES: dict[str, StepRule] = {
    "add": _direct(np.add),
    "sub": _direct(np.subtract),
    "mul": _direct(np.multiply),
    "div": _direct(np.true_divide, "fc"),
    "rem": _direct(np.remainder, "iuf"),
    "pow": _direct(np.power, "fc"),
    "neg": _direct(np.negative),
    "conj": _direct(np.conjugate),
    "abs": _direct(np.absolute),
    "sign": _direct(np.sign, "iuf"),
    "maximum": _direct(np.maximum),
    "minimum": _direct(np.minimum),
    "clamp": _clamp,
    "compare": _compare,
    "and": _logical(np.logical_and, np.bitwise_and),
    "or": _logical(np.logical_or, np.bitwise_or),
    "not": _logical(np.logical_not, np.invert),
    "xor": _logical(np.logical_xor, np.bitwise_xor),
    "shift_left": _direct(np.left_shift, "iu"),
    "shift_right_logical": _direct(np.right_shift, "u"),  # signed operands: a view, no ufunc
    "shift_right_arithmetic": _direct(np.right_shift, "i"),
    "floor": _direct(np.floor),
    "ceil": _direct(np.ceil),
    "round": _direct(np.rint, "f"),  # np.round with decimals=0 is rint (half to even)
}


def ufunc_steps(op: Any, dtypes: Sequence[np.dtype]) -> Steps | None:
    """The ufunc calls computing primitive `op` on operands of `dtypes`, or None."""
    found = definition(op)
    rule = found.fusion.ufunc or UFUNC_RULES.get(found.rule_key)
    return None if rule is None else rule(op, dtypes)


def step_argument(arg: int | Literal, operands: Sequence[str], previous: str) -> str:
    """Source text of one step argument: an operand's expression, `previous`, or a literal."""
    if isinstance(arg, Literal):
        return repr(arg.value)
    return previous if arg == PREVIOUS else operands[arg]


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


# reduce_* kernels: np.sum/np.prod(x, axis, dtype=x.dtype) and np.max/np.min(x, axis) are
# exactly these ufuncs' reduce methods (numpy's own implementation calls them).
REDUCTIONS: dict[str, tuple[np.ufunc, bool]] = {
    "reduce_sum": (np.add, True),
    "reduce_prod": (np.multiply, True),
    "reduce_max": (np.maximum, False),
    "reduce_min": (np.minimum, False),
}
