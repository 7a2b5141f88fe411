"""The value tables transforms keep beside the graph: the values of recorded ops computed
while a transform ran, by key. (Tapes follow their values in tables of their own:
tf8.ad.tape, tf8.ad.forward.)"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tf8.graph import ValueKey

__all__ = ["known_value", "remember_value"]


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
