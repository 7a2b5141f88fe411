"""What transforms keep beside the graph: the value tables of recorded ops, and the nodes
by which tapes (tf8.ad.tape) follow the values they differentiate (each tape's own table,
`nodes`: id(value) -> (the value, or a weak reference to it; what it depends on; its tangent
or None))."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tf8.graph import ValueKey
from tf8.traced import TracedTensor

__all__ = ["known_value", "node_of", "remember_value", "tag"]


def node_of(t: TracedTensor, tape: Any) -> tuple | None:
    """`t`'s node for `tape`, or None when that tape does not follow `t`."""
    return tape.nodes.get(id(t))


def tag(t: TracedTensor, tape: Any, where: str, tangent: Any = None) -> None:
    """Let `tape` follow `t`, which depends on `where` (with `tangent`, in forward mode)."""
    tape.follow(t, where, tangent)


def remember_value(table: dict, key: ValueKey, value: np.ndarray) -> None:
    """Keep `value` for `key` in a transform's value table. One key computed twice with
    different results (named leaves bound to different arrays share a key) is forgotten:
    readers then evaluate it from the bindings of the graph they hold."""
    old = table.get(key)
    if old is None:
        table[key] = value
    elif old is not value and (old is _AMBIGUOUS or not np.array_equal(old, value, True)):
        table[key] = _AMBIGUOUS


def known_value(table: Mapping, key: ValueKey) -> np.ndarray | None:
    """The value a table holds for `key`, or None (unknown, or ambiguous)."""
    value = table.get(key)
    return None if value is _AMBIGUOUS else value


_AMBIGUOUS = object()  # a value-table entry computed twice with different results
