"""Transpose folding: `dot_general(transpose(x), y)` reads x directly, with renumbered axes.

Axis a of `transpose(x, p)` is axis p[a] of x, so the dot's contracting and batch axes map
through p. dot_general orders its result as (batch, lhs free axes in increasing order, rhs
free axes), so the fold only applies when p keeps the free axes in increasing order: then
the result is the same array, and matmul reads the strided operand instead of a transposed
copy. Likewise a transpose that swaps a dot's two groups of free axes is the dot of the
swapped operands (as (A B)ᵀ = Bᵀ Aᵀ), computed directly in the transposed layout. Rules as
data, applied by the generic matcher (which re-infers the new op's aval).
"""

from __future__ import annotations

from typing import Any

from tf8.ops.primitive import Primitive
from tf8.runtime.exec_program import ExecProgram
from tf8.runtime.rewrite import Emit, Match, Op, Rule, V, rewrite_to_fixpoint

NAME = "transpose_folding"


def _fold(side: int):
    def rewrite(m: Match) -> Emit | None:
        permutation = m.insts["t"].op["permutation"]
        ndim = len(permutation)
        (lc, rc), (lb, rb) = m.root.op["contracting"], m.root.op["batch"]
        contracting, batch = [list(lc), list(rc)], [list(lb), list(rb)]
        axes = [a % ndim for a in contracting[side]], [a % ndim for a in batch[side]]
        free = [a for a in range(ndim) if a not in axes[0] and a not in axes[1]]
        mapped_free = [permutation[a] for a in free]
        if mapped_free != sorted(mapped_free):
            return None  # the result's free axes would come out in another order
        contracting[side] = [permutation[a] for a in axes[0]]
        batch[side] = [permutation[a] for a in axes[1]]
        op = Primitive(
            "dot_general",
            2,
            contracting=(tuple(contracting[0]), tuple(contracting[1])),
            batch=(tuple(batch[0]), tuple(batch[1])),
        )
        inputs = (m["x"], m["y"]) if side == 0 else (m["y"], m["x"])
        return Emit(op, inputs)

    return rewrite


def _swap_operands(m: Match) -> Emit | None:
    """transpose(dot_general(x, y)) that puts y's free axes before x's is dot_general(y, x)."""
    if m.readers("dot") != 1:
        return None  # the dot is needed anyway: its transpose is cheaper than a second dot
    dot = m.insts["dot"].op
    (lc, rc), (lb, rb) = dot["contracting"], dot["batch"]
    x_rank, y_rank = (m.program.slot_avals[m[name]].ndim for name in ("x", "y"))
    x_free = x_rank - len(lc) - len(lb)
    y_free = y_rank - len(rc) - len(rb)
    batch = list(range(len(lb)))
    swapped = batch + [len(lb) + x_free + i for i in range(y_free)]
    swapped += [len(lb) + i for i in range(x_free)]
    if list(m.root.op["permutation"]) != swapped:
        return None
    op = Primitive("dot_general", 2, contracting=(rc, lc), batch=(rb, lb))
    return Emit(op, (m["y"], m["x"]))


RULES: tuple[Rule, ...] = (
    Rule(
        "dot_general(transpose(x), y) → dot_general(x, y)",
        Op("dot_general", Op("transpose", V("x"), bind="t"), V("y")),
        _fold(0),
    ),
    Rule(
        "dot_general(y, transpose(x)) → dot_general(y, x)",
        Op("dot_general", V("y"), Op("transpose", V("x"), bind="t")),
        _fold(1),
    ),
    Rule(
        "transpose(dot_general(x, y)) → dot_general(y, x)",
        Op("transpose", Op("dot_general", V("x"), V("y"), bind="dot")),
        _swap_operands,
    ),
)


def run(program: ExecProgram, ctx: dict[str, Any]) -> int:
    return rewrite_to_fixpoint(program, RULES)
