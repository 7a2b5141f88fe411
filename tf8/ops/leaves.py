"""What a graph leaf is (`LeafKey`) and how the default arrays bound to leaves merge.

A leaf is a bound tensor, a placeholder, or an input a transform made; its key carries its
aval. Bindings are plain dicts from leaf keys to arrays, shared between tensors until two
differ; a key bound to two different arrays is marked `Conflict` (DuplicateBinding later).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tf8.ops.primitive import Aval

__all__ = ["Bindings", "Conflict", "LeafKey", "merge_binding_dicts"]


@dataclass(frozen=True, slots=True)
class LeafKey:
    """The input key of a leaf: a bound tensor, a placeholder, or an AD input (`kind`)."""

    uid: int | None  # None for named leaves: the name alone is the identity
    name: str | None
    aval: Aval
    kind: str = "tensor"  # tensor | placeholder | cut | argument | tangent | seed

    def label(self) -> str:
        return self.name if self.name is not None else f"{self.kind}{self.uid}"


class Conflict:
    """Marks a leaf key bound to two different arrays (reported as DuplicateBinding)."""

    __slots__ = ("arrays",)

    def __init__(self, arrays: tuple[np.ndarray, ...]) -> None:
        self.arrays = arrays


Bindings = dict  # dict[ValueKey, np.ndarray | Conflict]
_EMPTY: Bindings = {}


def merge_binding_dicts(dicts: Sequence[Bindings]) -> Bindings:
    """One bindings dict holding every entry of `dicts` (shared, not copied, when possible)."""
    merged: Bindings | None = None
    for b in dicts:
        if not b or b is merged:
            continue
        if merged is None:
            merged = b
            continue
        fresh = dict(merged)
        for key, array in b.items():
            old = fresh.get(key)
            if old is None or old is array:
                fresh[key] = array
            elif not _same_array(old, array):
                fresh[key] = Conflict(_arrays_of(old) + _arrays_of(array))
        merged = fresh
    return _EMPTY if merged is None else merged


def _arrays_of(value: Any) -> tuple[np.ndarray, ...]:
    return value.arrays if isinstance(value, Conflict) else (value,)


def _same_array(a: Any, b: Any) -> bool:
    if isinstance(a, Conflict) or isinstance(b, Conflict):
        return False
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))
