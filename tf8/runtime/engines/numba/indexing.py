"""Structural ops as index arithmetic: how an element of the result reads its operands.

The indexed code generator (nests.py) computes every value element by element inside loop
nests, so a structural op costs no array of its own: its element at the index `idx` (a
tuple of index expressions, one per result axis) is an expression of its operands' elements
at other indices. The rows say how, in their homes (`tf8.ops.fusion.Fusion`): a view
(broadcast_in_dim, slice, transpose, reverse, reshape) maps the index (`Fusion.index`); pad
and concatenate choose between operands with a conditional, and iota is its index
(`Fusion.element`). `indexed(op)` is either as `(op, shapes, out, idx, read) -> source`;
`read(position, index)` is the operand's element expression at `index`, and `shapes` are
the operands' shapes.

Reductions along axes and dot_general need a loop per element (`Fusion.loop`, a `Loop`):
`loop_code` writes it.

`reads_per_element(op, shapes, out, position)` says how often the result reads each
element of an operand (a broadcast or a contraction reads it more than once,
`Fusion.reads`): the code generator computes such an operand once into an array instead of
recomputing it per read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tf8.ops.definition import definition
from tf8.ops.fusion import ElementCode, Index, IndexRule, Read, Shape

__all__ = ["Index", "Read", "Shape", "indexed", "is_loop", "loop_code", "reads_per_element"]


def view_index(op: Any) -> IndexRule | None:
    """A view's index map (`Fusion.index`), or None: `op` is not a view."""
    return definition(op).fusion.index


def _through(remap: IndexRule) -> ElementCode:
    return lambda op, shapes, out, idx, read: read(0, remap(op, shapes[0], out, idx))


def indexed(op: Any) -> ElementCode | None:
    """The element of a structural op as index arithmetic, or None (not a structural op)."""
    fusion = definition(op).fusion
    if fusion.index is not None:
        return _through(fusion.index)
    return fusion.element


def is_loop(op: Any) -> bool:
    """Whether an element of `op` is a loop of its own (a reduction along axes, a
    contraction)."""
    return definition(op).fusion.loop is not None


def loop_code(
    op: Any, shapes: Sequence[Shape], out: Shape, idx: Index, read: Read, name: str
) -> tuple[list[str], str]:
    """The statements computing one element of a reduction or dot_general at `idx` (loops
    over the reduced or contracted axes, variables prefixed `name`), and the expression of
    the element afterwards."""
    loop: Callable[..., Any] = definition(op).fusion.loop  # type: ignore[assignment]
    spec = loop(op, shapes, idx, read, name)
    acc = f"{name}acc"
    lines = [f"{acc} = {spec.init}"]
    depth = 0
    for k, n in enumerate(spec.sizes):
        lines.append("    " * depth + f"for {name}{k} in range({n}):")
        depth += 1
    lines.append("    " * depth + spec.fold.format(acc=acc, e=f"{name}e"))
    lines.insert(len(lines) - 1, "    " * depth + f"{name}e = {spec.element}")
    return lines, acc


def reads_per_element(op: Any, shapes: Sequence[Shape], out: Shape, position: int) -> float:
    """How many result elements read each element of operand `position` (on average)."""
    reads = definition(op).fusion.reads
    return 1.0 if reads is None else reads(op, shapes, out, position)
