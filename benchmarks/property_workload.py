"""Random differentiable functions for the `property_nojit` workload, built once for any xp.

`random_programs` draws, from one seeded generator, programs of 5-30 steps on a float64
(4, 3) array. A step is one of sin, cos, tanh, exp(h / 10), h * v, h + v, h - v (v: an
earlier value of the chain, the input included), a sum over one axis of length > 1 kept as a
length-1 axis, or h @ M for a fixed 3 × 3 matrix M (drawn only while the last axis has 3).
A summed value keeps going on its smaller shape until a binary step broadcasts it back
against a larger value, so shapes are always among (4, 3), (1, 3), (4, 1), (1, 1), any two of
which broadcast together. Each step is evaluated with numpy while drawing and redrawn if an
entry would exceed BOUND in magnitude, so the derivatives stay well-conditioned for
finite-difference checks. A program is data; `build` turns it into a function of x written
against a numpy-like module (numpy, tf8.numpy, autograd.numpy), so every library runs the
same op sequence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

SHAPE = (4, 3)
MIN_STEPS, MAX_STEPS = 5, 30
BOUND = 10.0

Step = tuple[str, int]  # (op, argument): an earlier value's index, an axis, or 0
Program = tuple[Step, ...]

UNARY: dict[str, Callable[[Any, Any], Any]] = {
    "sin": lambda xp, h: xp.sin(h),
    "cos": lambda xp, h: xp.cos(h),
    "tanh": lambda xp, h: xp.tanh(h),
    "exp": lambda xp, h: xp.exp(h / 10.0),
}
BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "mul": lambda h, v: h * v,
    "add": lambda h, v: h + v,
    "sub": lambda h, v: h - v,
}
OPS = (*UNARY, *BINARY, "sum", "matmul")


def apply_step(xp: Any, step: Step, values: list[Any], matrix: np.ndarray) -> Any:
    """The value `step` computes from the chain so far (`values[-1]` is the current one)."""
    op, argument = step
    h = values[-1]
    if op in UNARY:
        return UNARY[op](xp, h)
    if op in BINARY:
        return BINARY[op](h, values[argument])
    if op == "sum":
        return xp.sum(h, axis=argument, keepdims=True)
    return h @ matrix


def build(xp: Any, program: Program, matrix: np.ndarray) -> Callable[[Any], Any]:
    """`program` as a function of x against the numpy-like module `xp`."""

    def f(x: Any) -> Any:
        values = [x]
        for step in program:
            values.append(apply_step(xp, step, values, matrix))
        return values[-1]

    return f


def _draw_step(rng: np.random.Generator, values: list[np.ndarray]) -> Step:
    shape = values[-1].shape
    allowed = [
        op for op in OPS if (op != "matmul" or shape[-1] == 3) and (op != "sum" or max(shape) > 1)
    ]
    op = allowed[rng.integers(len(allowed))]
    if op in BINARY:
        return op, int(rng.integers(len(values)))
    if op == "sum":
        axes = [axis for axis, length in enumerate(shape) if length > 1]
        return op, axes[rng.integers(len(axes))]
    return op, 0


def random_programs(count: int, seed: int = 0) -> tuple[list[Program], np.ndarray, np.ndarray]:
    """`count` programs, the point x they are checked at and the matmul matrix, all drawn
    from one generator seeded with `seed` (the same programs for every library)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, SHAPE)
    matrix = rng.standard_normal((3, 3)) / np.sqrt(3.0)
    programs = []
    for _ in range(count):
        values = [x]
        steps: list[Step] = []
        for _ in range(rng.integers(MIN_STEPS, MAX_STEPS + 1)):
            while True:  # redraw a step that would leave the bound
                step = _draw_step(rng, values)
                value = apply_step(np, step, values, matrix)
                if np.max(np.abs(value)) <= BOUND:
                    break
            steps.append(step)
            values.append(value)
        programs.append(tuple(steps))
    return programs, x, matrix


def check_tf8(functions: list[Callable[[Any], Any]], x: np.ndarray) -> list[np.ndarray]:
    """tf8.check_grads (order 2, forward and reverse) of each function, then the values."""
    import tf8

    for f in functions:
        tf8.check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    return [np.asarray(f(x)) for f in functions]


def check_autograd(functions: list[Callable[[Any], Any]], x: np.ndarray) -> list[np.ndarray]:
    """autograd.test_util.check_grads (order 2, fwd and rev) of each function, then values."""
    from autograd.test_util import check_grads

    np.random.seed(0)  # autograd's checker draws its directions from numpy's global generator
    for f in functions:
        check_grads(f, modes=["fwd", "rev"], order=2)(x)
    return [np.asarray(f(x)) for f in functions]
