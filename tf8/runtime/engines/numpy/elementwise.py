"""Elementwise ops as numpy ufunc calls: what generated code calls instead of the kernels.

`ufunc_steps(op, dtypes)` gives the ufunc calls that compute `op` on operands of those dtypes
exactly as `tf8.ops.kernels` does (same ufuncs, same order, same dtypes), or None when the
kernel does something a ufunc cannot (integer division, negative integer powers, complex
sign...). Because every step is a ufunc, generated code may pass `out=`: write into a dead
operand's buffer, or into a cache-sized block of an elementwise region.
(A reduction's `ufunc.reduce` is its definition's `Fusion.reduce`.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.ops.definition import definition
from tf8.ops.fusion import PREVIOUS, Literal, Step, StepRule, Steps
from tf8.ops.fusion import scipy_direct as _scipy_direct

__all__ = ["PREVIOUS", "Literal", "Step", "StepRule", "Steps", "ufunc_steps"]


# Keyed by catalog name; each entry mirrors the kernel of the same name in tf8/ops/kernels.py.
UFUNC_RULES: dict[str, StepRule] = {
    "erf": _scipy_direct("erf", "f"),
    "erf_inv": _scipy_direct("erfinv", "f"),
    "ndtri": _scipy_direct("ndtri", "f"),
    "lgamma": _scipy_direct("gammaln", "f"),
    "digamma": _scipy_direct("psi", "f"),
    "igamma": _scipy_direct("gammainc", "f"),
    "igammac": _scipy_direct("gammaincc", "f"),
    "betainc": _scipy_direct("betainc", "f"),
    "bessel_i0e": _scipy_direct("i0e", "f"),
    "bessel_i1e": _scipy_direct("i1e", "f"),
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
