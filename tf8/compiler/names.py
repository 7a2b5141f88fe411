"""What a program calls its parts, in listings (`pretty()`), pictures (tf8.compiler.dot) and
errors: its inputs (jit's parameter names and pytree paths, or what a constant is), its
outputs (jit's roles: `value`, `grad[params['W']]`, pytree paths) and its sub-programs (the
control op's own words, `scan body`, with `(forward)` / `(backward)` in gradient programs).

Names are display metadata: a leaf's title and a program's output names take no part in
identity or fingerprints (tf8.ops.leaves.LeafKey), so equal structures stay one program.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

from tf8.graph import PRIMARY
from tf8.ops.leaves import LeafKey

__all__ = [
    "LINEAR_LEAVES",
    "derivative_steps",
    "input_listing",
    "input_text",
    "pass_word",
    "subprogram_descriptions",
]

LINEAR_LEAVES = ("tangent", "cotangent", "seed")  # kinds of leaves holding (co)tangents


def input_text(leaf: Any, index: int, bound: bool, value: Any = None) -> str:
    """What input `index` is: its name or title (`params['W']`, `W (bound)`), `input 2` for
    an unnamed placeholder, else what it is (`captured float64[] = 1.0`: a constant the
    program holds, with its value when it has one element).

    >>> import numpy as np
    >>> from tf8.ops.avals import Aval
    >>> seed = LeafKey(7, None, Aval((), np.dtype("float64")), "seed")
    >>> input_text(seed, 3, True, np.ones(()))
    'gradient seed = 1.0'
    """
    if not isinstance(leaf, LeafKey):
        return f"input {index}"
    if leaf.name is not None or leaf.title is not None:
        return leaf.label() + (" (bound)" if bound else "")
    if leaf.kind == "placeholder" and not bound:
        return f"input {index}"
    text = leaf.label()
    size = getattr(value, "size", None)
    if size == 1:
        text += f" = {value.reshape(())}"
    return text


def input_listing(leaf: Any, index: int, bound: bool, value: Any = None) -> str:
    """`input_text` as a listing's comment says it: `input x`, `constant: gradient seed = 1.0`."""
    text = input_text(leaf, index, bound, value)
    named = isinstance(leaf, LeafKey) and (leaf.name is not None or leaf.title is not None)
    if bound and not named:
        return f"constant: {text}"
    return text if text.startswith("input ") else f"input {text}"


def derivative_steps(
    linear: Iterable[Hashable],
    steps: Iterable[tuple[Sequence[Hashable], Sequence[Hashable], Any]],
) -> list[bool]:
    """For each step (inputs, outputs, role), in order: whether it computes derivatives — the
    linearization emitted it (a role other than PRIMARY), or it reads a tangent or cotangent
    (a value in `linear`, the tangent and seed inputs, or one a derivative step wrote)."""
    seen = set(linear)
    flags = []
    for inputs, outputs, role in steps:
        flag = role is not PRIMARY or any(v in seen for v in inputs)
        if flag:
            seen.update(outputs)
        flags.append(flag)
    return flags


def pass_word(derivative: bool, any_derivative: bool, gradient: bool) -> str:
    """The pass a step belongs to, as a title's suffix: ` (backward)` for a derivative step of
    a gradient program (one with a seed), ` (tangents)` for one of another program,
    ` (forward)` for a primal step beside derivative ones, '' in a program without any."""
    if derivative:
        return " (backward)" if gradient else " (tangents)"
    return " (forward)" if any_derivative else ""


def subprogram_descriptions(op: Any) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """Each sub-program of a control op: (title, input roles, output roles), in the op's own
    words (ControlOp.describe_subprograms: `scan body`, `cond: true_fun`, ...)."""
    subs = getattr(op, "subprograms", ())
    describe = getattr(op, "describe_subprograms", None)
    if describe is not None:
        return list(describe())
    return [
        (
            f"{op.name} sub-program {i}",
            tuple(f"in[{k}]" for k in range(len(sub.inputs))),
            tuple(f"out[{k}]" for k in range(len(sub.outputs))),
        )
        for i, sub in enumerate(subs)
    ]
