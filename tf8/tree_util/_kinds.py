"""Node kinds: how each pytree node type is taken apart and rebuilt, and the built-in table.

Tuples, lists, dicts (children in sorted-key order), OrderedDicts and defaultdicts (insertion
order), namedtuples, `None` (a node without children) and `Partial` are nodes; registries add
more. Aux data may be anything comparable with `==`; `aux_hash` hashes what is unhashable.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Callable, Hashable, Iterable
from typing import Any, NamedTuple

from tf8.tree_util._keys import DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey
from tf8.tree_util._partial import Partial, flatten_partial, unflatten_partial

Flatten = Callable[[Any], tuple[Iterable[Any], Any]]
FlattenWithKeys = Callable[[Any], tuple[Iterable[tuple[Any, Any]], Any]]
Unflatten = Callable[[Any, Any], Any]


class NodeKind(NamedTuple):
    """How to take a node type apart (`flatten(x) -> (children, aux)`, or with a key per child)
    and rebuild it (`unflatten(aux, children)`)."""

    type: type
    flatten: Flatten
    unflatten: Unflatten
    flatten_with_keys: FlattenWithKeys | None = None

    def keyed(self, x: Any) -> tuple[list[tuple[Any, Any]], Any]:
        """`x`'s (key, child) pairs and aux data; children without keys get flat indices."""
        if self.flatten_with_keys is not None:
            pairs, aux = self.flatten_with_keys(x)
            return list(pairs), aux
        children, aux = self.flatten(x)
        return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], aux


def sorted_keys(d: dict[Any, Any]) -> tuple[Any, ...]:
    try:
        return tuple(sorted(d))
    except TypeError:  # keys of mixed types: any fixed order will do, this one is stable
        return tuple(sorted(d, key=lambda k: (type(k).__qualname__, repr(k))))


def _flatten_dict(d: dict[Any, Any]) -> tuple[list[Any], tuple[Any, ...]]:
    keys = sorted_keys(d)
    return [d[k] for k in keys], keys


def _dict_with_keys(d: dict[Any, Any]) -> tuple[list[tuple[Any, Any]], tuple[Any, ...]]:
    keys = sorted_keys(d)
    return [(DictKey(k), d[k]) for k in keys], keys


def _flatten_defaultdict(d: defaultdict[Any, Any]) -> tuple[list[Any], Hashable]:
    return list(d.values()), (d.default_factory, tuple(d))


def _sequence_with_keys(xs: Any) -> tuple[list[tuple[Any, Any]], None]:
    return [(SequenceKey(i), x) for i, x in enumerate(xs)], None


def _partial_with_keys(p: Partial) -> tuple[list[tuple[Any, Any]], Any]:
    return [(FlattenedIndexKey(0), p.args), (FlattenedIndexKey(1), p.keywords)], p.func


BUILTIN_KINDS: dict[type, NodeKind] = {
    kind.type: kind
    for kind in (
        NodeKind(tuple, lambda t: (t, None), lambda _, c: tuple(c), _sequence_with_keys),
        NodeKind(list, lambda x: (x, None), lambda _, c: list(c), _sequence_with_keys),
        NodeKind(dict, _flatten_dict, lambda keys, c: dict(zip(keys, c)), _dict_with_keys),
        NodeKind(
            OrderedDict,
            lambda d: (list(d.values()), tuple(d)),
            lambda keys, c: OrderedDict(zip(keys, c)),
            lambda d: ([(DictKey(k), v) for k, v in d.items()], tuple(d)),
        ),
        NodeKind(
            defaultdict,
            _flatten_defaultdict,
            lambda aux, c: defaultdict(aux[0], zip(aux[1], c)),
            lambda d: ([(DictKey(k), v) for k, v in d.items()], (d.default_factory, tuple(d))),
        ),
        NodeKind(type(None), lambda _: ((), None), lambda _, c: None, lambda _: ((), None)),
        NodeKind(Partial, flatten_partial, unflatten_partial, _partial_with_keys),
    )
}
# the table of `default_registry` (`register_pytree_node` adds to it)
DEFAULT_KINDS: dict[type, NodeKind] = dict(BUILTIN_KINDS)
DICT_TYPES = (dict, OrderedDict, defaultdict)
_NAMEDTUPLE_KINDS: dict[type, NodeKind] = {}


def is_namedtuple_type(cls: type) -> bool:
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


def namedtuple_kind(cls: type) -> NodeKind:
    """The node kind of namedtuple class `cls` (children are its fields, in order)."""
    kind = _NAMEDTUPLE_KINDS.get(cls)
    if kind is None:
        fields = cls._fields  # type: ignore[attr-defined]

        def with_keys(t: Any) -> tuple[list[tuple[Any, Any]], None]:
            return [(GetAttrKey(f), v) for f, v in zip(fields, t)], None

        kind = NodeKind(cls, lambda t: (t, None), lambda _, c: cls(*c), with_keys)
        _NAMEDTUPLE_KINDS[cls] = kind
    return kind


def is_namedtuple_kind(kind: NodeKind) -> bool:
    return _NAMEDTUPLE_KINDS.get(kind.type) is kind


def kind_of_type(cls: type, kinds: dict[type, NodeKind]) -> NodeKind | None:
    """The node kind of type `cls` in `kinds` (exact type, as JAX), or None for a leaf type."""
    kind = kinds.get(cls)
    if kind is None and is_namedtuple_type(cls):
        kind = namedtuple_kind(cls)
    return kind


def _freeze(x: Any) -> Hashable:
    """A hashable stand-in for unhashable `x` whose hash equals that of an equal hashable value
    where Python has one (set -> frozenset); raises TypeError where there is none."""
    if isinstance(x, (set, frozenset)):
        return frozenset(x)
    if isinstance(x, dict):
        return frozenset((k, _freeze_or_self(v)) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return tuple(_freeze_or_self(v) for v in x)
    raise TypeError(f"cannot hash {type(x).__qualname__}")


def _freeze_or_self(x: Any) -> Hashable:
    try:
        hash(x)
    except TypeError:
        return _freeze(x)
    return x  # type: ignore[no-any-return]


def aux_hash(aux: Any) -> int:
    """`hash(aux)`, or for unhashable aux data a hash that equal values share (0 at worst)."""
    try:
        return hash(aux)
    except TypeError:
        pass
    try:
        return hash(_freeze(aux))
    except TypeError:
        return 0


def aux_equal(a: Any, b: Any) -> bool:
    """`a == b` as a bool; values whose `==` is not a truth value (arrays) are equal only when
    they are the same object."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:
        return False
