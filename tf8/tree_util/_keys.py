"""Key paths: the entries that name a child inside its parent (`jax.tree_util`'s key types).

A leaf's key path is the tuple of entries on the way from the root to it; `keystr` prints it.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "SequenceKey",
    "keystr",
]

KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]


@dataclass(frozen=True, slots=True)
class SequenceKey:
    """The key of a child of a tuple, list or other sequence node: its index `idx`.

    >>> from tf8.tree_util import SequenceKey
    >>> key = SequenceKey(1)
    >>> key, str(key), key.idx
    (SequenceKey(idx=1), '[1]', 1)
    """

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"


@dataclass(frozen=True, slots=True)
class DictKey:
    """The key of a child of a dict, OrderedDict or defaultdict node: the dict key `key`.

    >>> from tf8.tree_util import DictKey
    >>> key = DictKey("w")
    >>> key, str(key), key.key
    (DictKey(key='w'), "['w']", 'w')
    """

    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"


@dataclass(frozen=True, slots=True)
class GetAttrKey:
    """The key of a child that is an attribute `name` (namedtuple fields, dataclass fields).

    >>> from tf8.tree_util import GetAttrKey
    >>> key = GetAttrKey("x")
    >>> key, str(key), key.name
    (GetAttrKey(name='x'), '.x', 'x')
    """

    name: str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclass(frozen=True, slots=True)
class FlattenedIndexKey:
    """The key of the `key`-th child of a custom node registered without key functions.

    >>> from tf8.tree_util import FlattenedIndexKey
    >>> key = FlattenedIndexKey(0)
    >>> key, str(key), key.key
    (FlattenedIndexKey(key=0), '[<flat index 0>]', 0)
    """

    key: int

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


def _simple(entry: Any) -> str:
    if isinstance(entry, SequenceKey):
        return str(entry.idx)
    if isinstance(entry, DictKey):
        return str(entry.key)
    if isinstance(entry, GetAttrKey):
        return str(entry.name)
    if isinstance(entry, FlattenedIndexKey):
        return str(entry.key)
    return str(entry)


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """The key path `keys` as a string: each entry's `str`, joined by `separator`.

    `simple=True` prints each entry as its bare key (`0`, `w`, `x`) instead of `[0]`, `['w']`,
    `.x`; it is shorter but ambiguous (a list index 0 and a dict key "0" print alike). Entries
    that are not key objects are printed with `str`. As `jax.tree_util.keystr`.

    >>> from tf8.tree_util import keystr, tree_leaves_with_path
    >>> params = {"foo": {"bar": {"baz": 1, "bat": [2, 3]}}}
    >>> [keystr(path) for path, _ in tree_leaves_with_path(params)]
    ["['foo']['bar']['bat'][0]", "['foo']['bar']['bat'][1]", "['foo']['bar']['baz']"]
    >>> [keystr(path, simple=True, separator="/") for path, _ in tree_leaves_with_path(params)]
    ['foo/bar/bat/0', 'foo/bar/bat/1', 'foo/bar/baz']
    """
    str_fn = _simple if simple else str
    return separator.join(str_fn(entry) for entry in keys)
