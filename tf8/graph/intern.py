"""The intern tables behind structural keys: structure -> weak reference to the live key.

A key's weakref callback removes its entry when the key dies, so dropped graphs free their
keys by refcounting alone; `_intern` settles the race when two threads make one key at once.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

_Key = TypeVar("_Key")


class _InternRef(weakref.ref):  # type: ignore[type-arg]
    """Weak reference that remembers its intern-table entry (a leaner weakref.KeyedRef)."""

    __slots__ = ("key",)
    key: Any


# Intern tables: structure -> weak reference to the unique live key with that structure;
# the weakref callback removes the entry when the key dies. An operation's structure is the
# flat tuple (op, role, *inputs), which the key also keeps as its own storage.
_input_table: dict[tuple[type, Hashable], _InternRef] = {}
_operation_table: dict[tuple[Any, ...], _InternRef] = {}


def _forgetter(table: dict[Any, _InternRef]) -> Callable[[_InternRef], None]:
    """Weakref callback for `table`: drop a dead key's entry (unless already replaced)."""

    def forget(ref: _InternRef) -> None:
        if table.get(ref.key) is ref:
            try:
                del table[ref.key]
            except KeyError:  # another thread's callback (or a cache clear) removed it first
                pass

    return forget


_forget_input = _forgetter(_input_table)
_forget_operation = _forgetter(_operation_table)


def _intern(table: dict, structure: Any, key: _Key, forget: Callable[[_InternRef], None]) -> _Key:
    """Register a new key under `structure`; if another thread got there first, use its key."""
    ref = _InternRef(key, forget)
    ref.key = structure
    existing = table.setdefault(structure, ref)
    if existing is not ref:
        winner = existing()
        if winner is not None:
            return winner
        table[structure] = ref  # the previous key is dead, its callback not yet run
    return key
