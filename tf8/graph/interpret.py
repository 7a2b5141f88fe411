"""The one interpreter: a walk over a graph's operations that hands each one touching an
environment to a step. Every transform (jvp, transpose, vmap), every graph rebuild
(substitution, closure conversion, inlining) and the evaluation of a graph on numpy
(tf8.ops.evaluate) is a step of it; the environment is a plain dict the caller owns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .keys import OperationKey, ValueKey

__all__ = ["Step", "interpret"]

Step = Callable[[OperationKey, list[Any]], Sequence[Any]]


def interpret(
    operations: Sequence[OperationKey],
    env: dict[ValueKey, Any],
    step: Step,
    *,
    backward: bool = False,
    constants: bool = False,
    every: bool = False,
) -> dict[ValueKey, Any]:
    """Walk `operations` once and run `step(op_key, values)` on each that touches `env`.

    Forward: `values` are the env entries of the op's inputs (None where absent) and the
    step's results become the env entries of its outputs (None: left out); with `constants`
    an op with no input (a literal, an iota) runs too, and with `every`, every op.
    Backward (transposition): `values` are the entries of its outputs, popped, and the
    results are *added* to its inputs' entries by the step itself (accumulation is the
    transform's business)."""
    pop, get = env.pop, env.get
    # (loops, not comprehensions: a comprehension is a call on Python 3.11, and this loop
    # runs for every op of every transform)
    if backward:
        for op_key in reversed(operations):
            values = []
            touched = False
            for k in op_key.outputs:
                v = pop(k, None)
                values.append(v)
                if v is not None:  # (not count(None): values define ==)
                    touched = True
            if touched:
                step(op_key, values)
        return env
    for op_key in operations:
        values = []
        touched = every
        for k in op_key.inputs:
            v = get(k)
            values.append(v)
            if v is not None:
                touched = True
        if not touched and not (constants and not values):
            continue
        for key, out in zip(op_key.outputs, step(op_key, values)):
            if out is not None:
                env[key] = out
    return env
