"""A toy scalar op set for testing the graph engine on its own (as computegraph does).

`eval(ctx, inputs)`: when `ctx` is an int, results are reduced modulo it, so that property
tests can evaluate arbitrary random DAGs on exact integers without blowing up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar


def _reduce(ctx: Any, value: Any) -> Any:
    return value % ctx if isinstance(ctx, int) else value


@dataclass(frozen=True, slots=True)
class Add:
    """a + b."""

    input_count: ClassVar[int] = 2
    output_count: ClassVar[int] = 1

    def eval(self, ctx: Any, inputs: Sequence[Any]) -> tuple[Any]:
        return (_reduce(ctx, inputs[0] + inputs[1]),)


@dataclass(frozen=True, slots=True)
class Mul:
    """a * b."""

    input_count: ClassVar[int] = 2
    output_count: ClassVar[int] = 1

    def eval(self, ctx: Any, inputs: Sequence[Any]) -> tuple[Any]:
        return (_reduce(ctx, inputs[0] * inputs[1]),)


@dataclass(frozen=True, slots=True)
class Sub:
    """a - b."""

    input_count: ClassVar[int] = 2
    output_count: ClassVar[int] = 1

    def eval(self, ctx: Any, inputs: Sequence[Any]) -> tuple[Any]:
        return (_reduce(ctx, inputs[0] - inputs[1]),)


@dataclass(frozen=True, slots=True)
class Scale:
    """factor * a: a one-input op with a parameter that is part of its identity."""

    factor: float
    input_count: ClassVar[int] = 1
    output_count: ClassVar[int] = 1

    def eval(self, ctx: Any, inputs: Sequence[Any]) -> tuple[Any]:
        return (_reduce(ctx, self.factor * inputs[0]),)


@dataclass(frozen=True, slots=True)
class Const:
    """A constant: no inputs."""

    value: float
    input_count: ClassVar[int] = 0
    output_count: ClassVar[int] = 1

    def eval(self, ctx: Any, inputs: Sequence[Any]) -> tuple[Any]:
        return (_reduce(ctx, self.value),)


@dataclass(frozen=True, slots=True)
class SumDiff:
    """(a + b, a - b): a two-output op."""

    input_count: ClassVar[int] = 2
    output_count: ClassVar[int] = 2

    def eval(self, ctx: Any, inputs: Sequence[Any]) -> tuple[Any, Any]:
        return (_reduce(ctx, inputs[0] + inputs[1]), _reduce(ctx, inputs[0] - inputs[1]))


@dataclass(frozen=True, slots=True)
class Opaque:
    """An op without eval (like tf8's tensor ops): it builds and compiles but cannot run."""

    input_count: ClassVar[int] = 1
    output_count: ClassVar[int] = 1


@dataclass(frozen=True, slots=True)
class Sink:
    """An op with no outputs (a side effect, say): it still has a key."""

    input_count: ClassVar[int] = 1
    output_count: ClassVar[int] = 0


ADD, MUL, SUB = Add(), Mul(), Sub()
