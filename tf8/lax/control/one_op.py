"""A transform's whole trace as one op that tapes follow.

A transform that traces its function — vmap — cannot run op by op, so under tapes (op-by-op
grad, jvp) it used to hand the whole differentiation to the graph path, which ran the user's
function a second time. `as_one_op` traces instead with the tapes hidden, as a control-flow
body is traced: the values the tapes follow that the trace reads become operands of one
`Checkpoint` op (tf8.lax.control.closure), which the tapes write down and differentiate by
its rules, like any op.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tf8 import tree
from tf8.ops.extension.control import Checkpoint
from tf8.ops.frames import current
from tf8.traced import TracedTensor

from .checks import as_operand
from .closure import Closure

__all__ = ["as_one_op", "as_program_op", "under_tapes"]


def under_tapes() -> bool:
    """True while op-by-op tapes are recording (where `as_one_op` is needed)."""
    return bool(current().tapes)


def as_one_op(fun: Callable[[], Any]) -> Any:
    """`fun()` (a pytree of traced values) traced with the tapes hidden and applied as one
    op on the values they follow: the same values, which the tapes now depend on."""
    call, out_def = as_program_op(fun, [])
    return tree.tree_unflatten(out_def, call())


def as_program_op(
    fun: Callable[..., Any], args: Sequence[TracedTensor]
) -> tuple[Callable[..., list[TracedTensor]], Any]:
    """`fun(*args)` traced once with the tapes hidden, on leaves standing for `args`:
    (`call`, the output's treedef), where `call(*values)` applies it as one op to values
    like `args` and gives its output leaves. A transform that needs the function more than
    once (linearize: the value now, the tangent map later) calls `call`, never `fun`."""
    closure = Closure()
    leaves = closure.arguments([a.aval for a in args], [a._weak for a in args])

    def body() -> tuple[Any, list[TracedTensor]]:
        out_leaves, out_def = tree.tree_flatten(fun(*leaves))
        return out_def, closure.close(leaves, [as_operand(o) for o in out_leaves])

    out_def, closed = closure.trace(body)
    op = Checkpoint(closure.program(leaves, closed))
    captures = list(closure.outer)

    def call(*values: TracedTensor) -> list[TracedTensor]:
        return closure.apply(op, [*captures, *values])

    return call, out_def
