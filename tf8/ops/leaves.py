"""What a graph leaf is (`LeafKey`) and how the default arrays bound to leaves merge.

A leaf is a bound tensor, a placeholder, or an input a transform made; its key carries its
aval. Bindings are plain dicts from leaf keys to arrays, shared between tensors until two
differ; a key bound to two different arrays is marked `Conflict` (DuplicateBinding later).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tf8.errors import ConversionError, ShapeError
from tf8.graph import ValueKey
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval

__all__ = [
    "Bindings",
    "Conflict",
    "KIND_WORDS",
    "LeafKey",
    "aval_words",
    "concrete_array",
    "foreign_array",
    "merge_binding_dicts",
    "cut_key",
]


# What each kind of leaf is, in the words listings, pictures and errors use for a leaf that
# has neither a name nor a title (its uid is an identity, never shown).
KIND_WORDS = {
    "tensor": "array",
    "placeholder": "placeholder",
    "cut": "captured",  # a computed value a graph reads as a constant (tf8.traced: `key`)
    "argument": "differentiated argument",
    "tangent": "tangent",
    "cotangent": "cotangent",
    "seed": "gradient seed",  # grad's cotangent of its scalar output: 1 (a scalar, always)
    "vmap": "per-example value",
    "body": "sub-program input",
}


@dataclass(frozen=True, slots=True, repr=False)
class LeafKey:
    """The input key of a leaf: a bound tensor, a placeholder, or an AD input (`kind`).

    `title` is what listings call the leaf (jit gives a placeholder its parameter's name and
    pytree path, `params['W']`); it is display metadata, not identity: it takes no part in
    equality, hashing or fingerprints, so programs that differ only in titles are one program.
    """

    uid: int | None  # None for named leaves: the name alone is the identity
    name: str | None
    aval: Aval
    kind: str = "tensor"  # one of KIND_WORDS' kinds
    title: str | None = field(default=None, compare=False)

    def label(self) -> str:
        """The leaf's name, else its title, else what it is (`captured float64[3]`)."""
        if self.name is not None:
            return self.name
        if self.title is not None:
            return self.title
        words = KIND_WORDS.get(self.kind, self.kind)
        return words if self.kind == "seed" else f"{words} {aval_words(self.aval)}"

    def __repr__(self) -> str:  # what it is, never its uid (a counter: no name for users)
        return f"LeafKey({self.label()!r}, {self.kind}, {aval_words(self.aval)})"


def aval_words(aval: Aval) -> str:
    """An aval as JAX prints one in words: `float64[3]`, `float64[]`, `float32[n,4]`."""
    return f"{aval.dtype}[{','.join(str(d) for d in aval.shape)}]"


class Conflict:
    """Marks a leaf key bound to two different arrays (reported as DuplicateBinding)."""

    __slots__ = ("arrays",)

    def __init__(self, arrays: tuple[np.ndarray, ...]) -> None:
        self.arrays = arrays


Bindings = dict  # dict[ValueKey, np.ndarray | Conflict]
_EMPTY: Bindings = {}


class _Merged(dict):
    """A bindings dict made by merging others: it may grow in place (a leaf's own dict never
    does), so merging a small dict into a large one costs the small one's size, not a copy
    of the large one — a long chain of ops on fresh leaves stays linear."""

    __slots__ = ()


def merge_binding_dicts(dicts: Sequence[Bindings]) -> Bindings:
    """One bindings dict holding every entry of `dicts` (shared, not copied, when possible).

    The result may hold entries for leaves a particular value does not depend on: lookups
    are by the keys a program's graph reaches, so extra entries are never read."""
    merged: Bindings | None = None
    for b in dicts:
        if not b or b is merged:
            continue
        if merged is None:
            merged = b
            continue
        if type(b) is _Merged and (type(merged) is not _Merged or len(b) > len(merged)):
            merged, b = b, merged  # grow the larger derived dict
        entries = list(b.items())  # one C-level copy: another thread may grow `b` meanwhile
        if type(merged) is not _Merged or any(_named(k) and k not in merged for k, _ in entries):
            # A named leaf's key may be bound to other arrays elsewhere: adding it to a dict
            # other values share could make them conflict, so this merge gets its own copy.
            merged = _Merged(merged)
        for key, array in entries:
            old = merged.get(key)
            if old is None:
                merged[key] = array
            elif old is not array and not _same_array(old, array):
                merged = _Merged(merged)  # the conflict is this merge's own
                merged[key] = Conflict(_arrays_of(old) + _arrays_of(array))
    return _EMPTY if merged is None else merged


def _named(key: Any) -> bool:
    return getattr(key.input_key, "name", None) is not None


def _arrays_of(value: Any) -> tuple[np.ndarray, ...]:
    return value.arrays if isinstance(value, Conflict) else (value,)


def _same_array(a: Any, b: Any) -> bool:
    if isinstance(a, Conflict) or isinstance(b, Conflict):
        return False
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))


def foreign_array(obj: Any) -> np.ndarray | None:
    """The numpy array behind an array of another library — anything with `__array__`,
    `__array_interface__`, a CPU `__dlpack__` or the buffer protocol (a JAX array, an
    `array.array`, a memoryview) — or None when `obj` is none of these."""
    if isinstance(obj, (np.ndarray, np.generic, str, bytes, bytearray)):
        return None
    cls = type(obj)
    if hasattr(cls, "__array__") or hasattr(obj, "__array_interface__"):
        return np.asarray(obj)
    if hasattr(obj, "__dlpack__"):
        try:
            return np.from_dlpack(obj)
        except (BufferError, RuntimeError, TypeError, ValueError) as exc:
            raise ConversionError(
                f"cannot read {cls.__name__} through __dlpack__ (only CPU arrays can be "
                f"shared with numpy): {exc}"
            ) from None
    try:
        memoryview(obj)
    except TypeError:
        return None
    return np.asarray(obj)


def concrete_array(array: Any) -> np.ndarray:
    """`array` as a numpy array of a tf8 dtype (the data a leaf binds); arrays of other
    libraries are read through their array protocols."""
    foreign = foreign_array(array)
    if foreign is not None:
        array = foreign
    try:
        value = np.asarray(array)
    except ValueError as exc:  # ragged nested lists
        raise ShapeError(f"cannot make an array from {type(array).__name__}: {exc}") from None
    dtype = dt.canonical_dtype(value.dtype)
    if dtype != value.dtype:
        value = value.astype(dtype)
    return value


# Small constants are leaves by content: two traces that each capture a loop counter's start
# (0) read one leaf, so their graphs are equal and CSE merges them (a custom_vjp's primal
# and fwd trace the same loop). Equal bindings never conflict (`merge_binding_dicts`).
# (held weakly: a leaf lives as long as a graph or a value reads it)
_SMALL_ELEMENTS = 16
_SMALL: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def cut_key(value: Any, aval: Aval, uids: Iterator[int]) -> ValueKey:
    """The key of a computed `value` a graph reads as a constant (a "captured" leaf, numbered
    from `uids`): one per content for a small value, a new one for any other."""
    if type(value) is not np.ndarray or value.size > _SMALL_ELEMENTS or value.dtype == object:
        return ValueKey.input(LeafKey(next(uids), None, aval, "cut"))
    content = (value.dtype.str, value.shape, value.tobytes())
    key = _SMALL.get(content)
    if key is None or key.input_key.aval != aval:
        key = _SMALL[content] = ValueKey.input(LeafKey(next(uids), None, aval, "cut"))
    return key
