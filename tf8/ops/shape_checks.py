"""Shape checks shared by the shape rules: proven now, guarded at run time, or an error.

Errors name the op, the shapes and the dtypes involved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tf8.errors import AxisError, ShapeError
from tf8.ops.avals import Aval
from tf8.ops.shapes import Dim, ShapeGuard, dims_equal

Guards = list  # list[ShapeGuard]


def describe(avals: Sequence[Aval]) -> str:
    return ", ".join(str(a) for a in avals)


def require_equal(op: Any, a: Dim, b: Dim, what: str | Callable[[], str], guards: Guards) -> None:
    """a == b, proven now, or guarded at run time; ShapeError when provably different.

    `what` may be a function building the message: the common, proven case formats nothing.
    """
    same = dims_equal(a, b)
    if same is True:
        return
    text = what() if callable(what) else what
    if same is False:
        raise ShapeError(f"{op.name}: {text}: {a} != {b}")
    guards.append(ShapeGuard(a, b, f"{op.name}: {text}"))


def check_axis(op: Any, axis: int, ndim: int, scalar_as_vector: bool = False) -> int:
    """`axis` normalised into [0, ndim). With `scalar_as_vector`, a 0-d operand is read as one
    element along axis 0 or -1, as numpy's argmax and cumsum do."""
    rank = max(ndim, 1) if scalar_as_vector else ndim
    if not isinstance(axis, int) or isinstance(axis, bool) or not -rank <= axis < rank:
        raise AxisError(f"{op.name}: axis {axis} is out of range for rank {ndim}")
    return axis % rank
