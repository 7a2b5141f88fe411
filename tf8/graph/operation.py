"""What the graph engine asks of an operation, and how messages name operations and values.

An operation is any hashable, ==-comparable object with non-negative int `input_count` and
`output_count` (and optionally `eval(ctx, inputs)`). keys.py checks the common case inline
when it makes a key; the errors for everything else are built here.
"""

from __future__ import annotations

import reprlib
from typing import Any

from tf8.errors import GraphError

__all__ = ["check_counts", "not_a_role", "not_an_operation", "operation_name", "short_repr"]

short_repr = reprlib.Repr()  # values in messages: a long repr cut short
short_repr.maxstring = 40
short_repr.maxother = 40


def operation_name(op: object) -> str:
    """Short name of an operation for messages and reprs: its `name` if a str, else its type."""
    name = getattr(op, "name", None)
    return name if isinstance(name, str) else type(op).__name__


def not_an_operation(op: Any) -> GraphError:
    """The error for an object without `input_count` and `output_count`."""
    return GraphError(
        f"{short_repr.repr(op)} is not an operation: it needs input_count and output_count"
    )


def check_counts(op: Any, input_count: object, output_count: object) -> None:
    """Slow path: accept int subclasses, reject anything that is not a non-negative int."""
    for what, count in (("input_count", input_count), ("output_count", output_count)):
        if not isinstance(count, int) or count < 0:
            raise GraphError(
                f"{operation_name(op)}.{what} must be a non-negative int, got {count!r}"
            )


def not_a_role(op: Any, role: object) -> GraphError:
    """The error for an operation given a role that is not an OperationRole."""
    return GraphError(
        f"role of {operation_name(op)} must be an OperationRole, got {short_repr.repr(role)}"
    )
