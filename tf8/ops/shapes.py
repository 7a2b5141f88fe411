"""Dimensions and shapes: the helpers every layer uses on them, and run-time shape guards.

A dimension (`Dim`) is a plain `int` or a symbolic `DimExpr` (`tf8.ops.dim_expr`, re-exported
here with its helpers, so this stays the one module to import dimensions and shapes from).
This module adds building dimensions and shapes (`sym`, `as_dim`, `as_shape`), questions
about them (`dims_equal`, `is_symbolic`, `shape_str`, `evaluate_shape`) and `ShapeGuard`:
what tracing could not prove (`n == m`?), checked at run time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tf8.errors import ParameterError, ShapeGuardError
from tf8.ops.dim_expr import (
    Dim,
    DimExpr,
    _coerce,
    dim_key,
    dim_max,
    dim_min,
    dim_symbols,
    evaluate_dim,
)

__all__ = [
    "Dim",
    "DimExpr",
    "ShapeGuard",
    "as_dim",
    "as_shape",
    "dim_key",
    "dim_max",
    "dim_min",
    "dim_symbols",
    "dims_equal",
    "evaluate_dim",
    "evaluate_shape",
    "has_symbolic",
    "is_symbolic",
    "shape_str",
    "sym",
]


def sym(name: str) -> DimExpr:
    """The dimension named `name`; shorthand for `DimExpr.symbol(name)`."""
    return DimExpr.symbol(name)


def as_dim(x: Any) -> Dim:
    """`x` as a dimension: a non-negative integer (numpy's too), a name, or a DimExpr."""
    if type(x) is int and x >= 0 or isinstance(x, DimExpr):
        return x
    if isinstance(x, str):
        return DimExpr.symbol(x)
    value = None if isinstance(x, bool) else _coerce(x)
    if value is None:
        raise ParameterError(
            f"a dimension must be an int, a name or a DimExpr, got {x!r} of type "
            f"{type(x).__qualname__}"
        )
    if value < 0:  # type: ignore[operator]
        raise ParameterError(f"a dimension must be non-negative, got {x!r}")
    return value


def as_shape(shape: Iterable[Any]) -> tuple[Dim, ...]:
    """Each entry of `shape` through `as_dim`."""
    return tuple(as_dim(d) for d in shape)


def evaluate_shape(shape: Iterable[Dim], env: Mapping[str, int]) -> tuple[int, ...]:
    """Each dimension of `shape` evaluated under `env`."""
    return tuple(evaluate_dim(d, env) for d in shape)


def has_symbolic(value: Any) -> bool:
    """Whether an op parameter (or a tuple of them, at any depth) holds a symbolic size."""
    if isinstance(value, DimExpr):
        return True
    if isinstance(value, tuple):
        return any(has_symbolic(v) for v in value)
    return False


def is_symbolic(shape_or_dim: Dim | Iterable[Dim]) -> bool:
    """Whether a dimension, or any dimension of a shape, is a DimExpr."""
    if isinstance(shape_or_dim, DimExpr):
        return True
    if type(shape_or_dim) is int:
        return False
    return any(isinstance(d, DimExpr) for d in shape_or_dim)  # type: ignore[union-attr]


def dims_equal(a: Dim, b: Dim) -> bool | None:
    """True if provably equal, False if provably different, None if only run time can tell."""
    if type(a) is int and type(b) is int:
        return a == b
    difference = a - b
    return difference == 0 if type(difference) is int else None


def shape_str(shape: Iterable[Dim]) -> str:
    """A shape as text: `(n, 3)`, `(n,)`, `()`."""
    dims = [str(d) for d in shape]
    return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"


@dataclass(frozen=True, slots=True)
class ShapeGuard:
    """A constraint `lhs == rhs` that tracing could not prove; checked at run time."""

    lhs: Dim
    rhs: Dim
    reason: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "lhs", as_dim(self.lhs))
        object.__setattr__(self, "rhs", as_dim(self.rhs))

    def check(self, env: Mapping[str, int]) -> None:
        """Raise ShapeGuardError unless `lhs == rhs` under `env`."""
        lhs, rhs = evaluate_dim(self.lhs, env), evaluate_dim(self.rhs, env)
        if lhs != rhs:
            raise ShapeGuardError(
                f"shape guard failed: {self.reason}: {self.lhs} = {lhs} but {self.rhs} = {rhs}"
            )
