"""Pytrees as in `jax.tree_util`: nested containers whose non-container parts are leaves.

Tuples, lists, dicts (children in sorted-key order), OrderedDicts and defaultdicts (insertion
order), namedtuples and `None` (a node without children) are nodes; `register_pytree_node`
adds more. Everything else is a leaf. A `PyTreeDef` is the immutable shape of a tree; it is a
`jit` cache key, so its hash is computed once, when it is built.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Callable, Hashable, Iterable
from typing import Any, NamedTuple

from tf8.errors import TreeStructureError

__all__ = [
    "PyTreeDef",
    "register_pytree_node",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
]

IsLeaf = Callable[[Any], bool] | None


class _NodeKind(NamedTuple):
    """How to take a node type apart (`flatten(x) -> (children, aux)`) and rebuild it."""

    type: type
    flatten: Callable[[Any], tuple[Iterable[Any], Hashable]]
    unflatten: Callable[[Any, tuple[Any, ...]], Any]


def _sorted_keys(d: dict[Any, Any]) -> tuple[Any, ...]:
    try:
        return tuple(sorted(d))
    except TypeError:  # keys of mixed types: any fixed order will do, this one is stable
        return tuple(sorted(d, key=lambda k: (type(k).__qualname__, repr(k))))


def _flatten_dict(d: dict[Any, Any]) -> tuple[list[Any], tuple[Any, ...]]:
    keys = _sorted_keys(d)
    return [d[k] for k in keys], keys


def _flatten_defaultdict(d: defaultdict[Any, Any]) -> tuple[list[Any], Hashable]:
    return list(d.values()), (d.default_factory, tuple(d))


_REGISTRY: dict[type, _NodeKind] = {
    kind.type: kind
    for kind in (
        _NodeKind(tuple, lambda t: (t, None), lambda _, c: tuple(c)),
        _NodeKind(list, lambda x: (x, None), lambda _, c: list(c)),
        _NodeKind(dict, _flatten_dict, lambda keys, c: dict(zip(keys, c))),
        _NodeKind(
            OrderedDict,
            lambda d: (list(d.values()), tuple(d)),
            lambda keys, c: OrderedDict(zip(keys, c)),
        ),
        _NodeKind(
            defaultdict, _flatten_defaultdict, lambda aux, c: defaultdict(aux[0], zip(aux[1], c))
        ),
        _NodeKind(type(None), lambda _: ((), None), lambda _, c: None),
    )
}
_NAMEDTUPLE_KINDS: dict[type, _NodeKind] = {}


def _node_kind(x: Any) -> _NodeKind | None:
    """The registered node kind of `x`, or None for a leaf (lookup by exact type, as JAX)."""
    cls = type(x)
    kind = _REGISTRY.get(cls)
    if kind is None and issubclass(cls, tuple) and hasattr(cls, "_fields"):
        kind = _NAMEDTUPLE_KINDS.get(cls)
        if kind is None:
            kind = _NodeKind(cls, lambda t: (t, None), lambda _, c, cls=cls: cls(*c))
            _NAMEDTUPLE_KINDS[cls] = kind
    return kind


def register_pytree_node(
    nodetype: type,
    flatten_fn: Callable[[Any], tuple[Iterable[Any], Hashable]],
    unflatten_fn: Callable[[Any, tuple[Any, ...]], Any],
) -> None:
    """Make `nodetype` a pytree node: `flatten_fn(x) -> (children, aux_data)` and
    `unflatten_fn(aux_data, children) -> x`. `aux_data` must be hashable and comparable."""
    if nodetype in _REGISTRY:
        raise TreeStructureError(f"{nodetype.__qualname__} is already registered as a pytree node")
    _REGISTRY[nodetype] = _NodeKind(nodetype, flatten_fn, unflatten_fn)


class PyTreeDef:
    """The immutable structure of a pytree: a node kind, its aux data and child structures."""

    __slots__ = ("_kind", "_aux", "_children", "num_leaves", "num_nodes", "_hash")
    _kind: _NodeKind | None
    _aux: Hashable
    _children: tuple[PyTreeDef, ...]
    num_leaves: int
    num_nodes: int
    _hash: int

    def __init__(self, kind: _NodeKind | None, aux: Hashable, children: tuple[PyTreeDef, ...]):
        num_leaves, num_nodes = (1 if kind is None else 0), 1
        for child in children:
            num_leaves += child.num_leaves
            num_nodes += child.num_nodes
        setattr_ = object.__setattr__
        setattr_(self, "_kind", kind)
        setattr_(self, "_aux", aux)
        setattr_(self, "_children", children)
        setattr_(self, "num_leaves", num_leaves)
        setattr_(self, "num_nodes", num_nodes)
        node_type = None if kind is None else kind.type
        try:
            setattr_(self, "_hash", hash((node_type, aux, children)))
        except TypeError:
            raise TreeStructureError(
                f"the aux data of a {node_type.__qualname__} node is not hashable: {aux!r}"
            ) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("PyTreeDef is immutable")

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, PyTreeDef) or self._hash != other._hash:
            return False
        same_type = (self._kind is None) == (other._kind is None) and (
            self._kind is None or self._kind.type is other._kind.type  # type: ignore[union-attr]
        )
        return same_type and self._aux == other._aux and self._children == other._children

    def __repr__(self) -> str:
        return f"PyTreeDef({_format(self)})"

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """Build a tree of this structure from `leaves`, in flattening order."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise TreeStructureError(
                f"tree_unflatten: {self!r} has {self.num_leaves} leaves, got {len(leaves)} leaves"
            )
        return _build(self, iter(leaves))

    def flatten_up_to(self, tree: Any) -> list[Any]:
        """The subtrees of `tree` at this structure's leaves; `tree` must share its nodes."""
        return _flatten_up_to(self, tree, "flatten_up_to: the tree")


def _format(td: PyTreeDef) -> str:
    kind = td._kind
    parts = [_format(c) for c in td._children]
    if kind is None:
        return "*"
    if kind.type is tuple:
        return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"
    if kind.type is list:
        return f"[{', '.join(parts)}]"
    if kind.type is type(None):
        return "None"
    if kind.type in (dict, OrderedDict, defaultdict):
        keys = td._aux[1] if kind.type is defaultdict else td._aux  # type: ignore[index]
        body = "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(keys, parts)) + "}"
        if kind.type is dict:
            return body
        if kind.type is OrderedDict:
            return f"OrderedDict({body})"
        factory = td._aux[0]  # type: ignore[index]
        return f"defaultdict({getattr(factory, '__name__', repr(factory))}, {body})"
    if kind.type in _NAMEDTUPLE_KINDS:
        fields = ", ".join(f"{f}={p}" for f, p in zip(kind.type._fields, parts))  # type: ignore[attr-defined]
        return f"{kind.type.__name__}({fields})"
    return f"CustomNode({kind.type.__name__}[{td._aux!r}], [{', '.join(parts)}])"


_LEAF = PyTreeDef(None, None, ())


def _flatten(x: Any, is_leaf: IsLeaf, leaves: list[Any]) -> PyTreeDef:
    kind = None if is_leaf is not None and is_leaf(x) else _node_kind(x)
    if kind is None:
        leaves.append(x)
        return _LEAF
    children, aux = kind.flatten(x)
    defs = []
    for child in children:
        # fast path: a child that is surely a leaf (namedtuples are tuples) needs no call
        if is_leaf is None and type(child) not in _REGISTRY and not isinstance(child, tuple):
            leaves.append(child)
            defs.append(_LEAF)
        else:
            defs.append(_flatten(child, is_leaf, leaves))
    return PyTreeDef(kind, aux, tuple(defs))


def _build(td: PyTreeDef, leaves: Iterable[Any]) -> Any:
    if td._kind is None:
        return next(leaves)  # type: ignore[call-overload]
    return td._kind.unflatten(td._aux, tuple(_build(c, leaves) for c in td._children))


def _shallow(kind: _NodeKind | None, aux: Hashable, num_children: int) -> str:
    """One node with its children shown as leaves, for mismatch messages."""
    if kind is None:
        return "*"
    return _format(PyTreeDef(kind, aux, (_LEAF,) * num_children))


def _describe(x: Any) -> str:
    kind = _node_kind(x)
    if kind is None:
        return f"a leaf of type {type(x).__qualname__}"
    children, aux = kind.flatten(x)
    return _shallow(kind, aux, len(tuple(children)))


def _flatten_up_to(td: PyTreeDef, tree: Any, what: str) -> list[Any]:
    out: list[Any] = []
    stack: list[tuple[PyTreeDef, Any, str]] = [(td, tree, "")]
    while stack:
        node, x, path = stack.pop()
        kind = node._kind
        if kind is None:
            out.append(x)
            continue
        got = _node_kind(x)
        children: tuple[Any, ...] = ()
        aux: Hashable = None
        if got is not None and got.type is kind.type:
            raw_children, aux = got.flatten(x)
            children = tuple(raw_children)
        if (
            got is None
            or got.type is not kind.type
            or aux != node._aux
            or (len(children) != len(node._children))
        ):
            raise TreeStructureError(
                f"{what} does not match the expected structure at tree{path or ' root'}: "
                f"expected {_shallow(kind, node._aux, len(node._children))}, "
                f"got {_describe(x)}\n"
                f"  expected structure: {td!r}\n  got structure:      {_structure_or_str(tree)}"
            )
        keys = node._aux if kind.type in (dict, OrderedDict) else None
        for i in reversed(range(len(children))):
            step = f"[{keys[i]!r}]" if keys is not None else f"[{i}]"  # type: ignore[index]
            stack.append((node._children[i], children[i], path + step))
    return out


def _structure_or_str(tree: Any) -> str:
    try:
        return repr(tree_structure(tree))
    except TreeStructureError:
        return repr(tree)


def tree_flatten(tree: Any, is_leaf: IsLeaf = None) -> tuple[list[Any], PyTreeDef]:
    """The leaves of `tree` in order, and its structure. `is_leaf(x)` True stops descent."""
    leaves: list[Any] = []
    return leaves, _flatten(tree, is_leaf, leaves)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a tree of structure `treedef` from its leaves."""
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: IsLeaf = None) -> list[Any]:
    """The leaves of `tree`, in flattening order."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: IsLeaf = None) -> PyTreeDef:
    """The structure of `tree`."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: IsLeaf = None) -> Any:
    """Apply `f` leafwise; the leaves of `tree` select the matching subtrees of each of `rest`."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten(f(x) for x in leaves)
    others = [
        _flatten_up_to(treedef, r, f"tree_map: tree #{i} (the first is #0)")
        for i, r in enumerate(rest, 1)
    ]
    return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))
