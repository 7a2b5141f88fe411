"""`PyTreeDef`, the immutable structure of a pytree, and flattening/unflattening.

A `PyTreeDef` is a `jit` cache key, so its hash is computed once, when it is built; aux data
that cannot be hashed is hashed by `aux_hash` (equality stays `==`).
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from tf8.errors import TreeStructureError
from tf8.tree_util._kinds import (
    DEFAULT_KINDS,
    DICT_TYPES,
    NodeKind,
    aux_equal,
    aux_hash,
    is_namedtuple_kind,
    kind_of_type,
)

IsLeaf = Callable[[Any], bool] | None


class PyTreeDef:
    """The immutable structure of a pytree: a node kind, its aux data and child structures.

    Attributes `num_leaves` and `num_nodes` count leaves and nodes (leaves included). Build
    one with `tree_structure`; compare with `==` (aux data by `==`); use it as a dict key.

    >>> from tf8.tree_util import tree_structure
    >>> treedef = tree_structure({"a": [1, 2], "b": None})
    >>> treedef
    PyTreeDef({'a': [*, *], 'b': None})
    >>> treedef.num_leaves, treedef.num_nodes
    (2, 5)
    >>> treedef.unflatten([7, 8])
    {'a': [7, 8], 'b': None}

    Differs from JAX: the repr of namedtuple, OrderedDict and defaultdict nodes reads
    `Point(x=*, y=*)`, `OrderedDict({'a': *})`, `defaultdict(list, {'a': *})` (JAX prints
    them as `CustomNode(...)`); there is no proto serialization.
    """

    __slots__ = ("_kind", "_aux", "_children", "num_leaves", "num_nodes", "_hash")
    _kind: NodeKind | None
    _aux: Any
    _children: tuple[PyTreeDef, ...]
    num_leaves: int
    num_nodes: int
    _hash: int

    def __init__(self, kind: NodeKind | None, aux: Any, children: tuple[PyTreeDef, ...]):
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
        setattr_(self, "_hash", hash((node_type, aux_hash(aux), children)))

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
        return same_type and aux_equal(self._aux, other._aux) and self._children == other._children

    def __repr__(self) -> str:
        return f"PyTreeDef({_format(self)})"

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """Build a tree of this structure from `leaves`, in flattening order.

        >>> from tf8.tree_util import tree_structure
        >>> tree_structure((0, [0])).unflatten("ab")
        ('a', ['b'])
        """
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise TreeStructureError(
                f"tree_unflatten: {self!r} has {self.num_leaves} leaves, got {len(leaves)} leaves"
            )
        return _build(self, iter(leaves))

    def flatten_up_to(self, tree: Any) -> list[Any]:
        """The subtrees of `tree` at this structure's leaves; `tree` must share its nodes.

        >>> from tf8.tree_util import tree_structure
        >>> tree_structure([0, 0]).flatten_up_to([(1, 2), {"k": 3}])
        [(1, 2), {'k': 3}]
        """
        return flatten_up_to(self, tree, "flatten_up_to: the tree")

    def children(self) -> list[PyTreeDef]:
        """The structures of this node's children (`[]` for a leaf).

        >>> from tf8.tree_util import tree_structure
        >>> tree_structure([(1, 2), 3]).children()
        [PyTreeDef((*, *)), PyTreeDef(*)]
        """
        return list(self._children)

    def node_data(self) -> tuple[type, Any] | None:
        """`(node type, aux data)` of the root node, or None for a leaf. A dict's aux data is
        its list of sorted keys, as JAX's.

        >>> from tf8.tree_util import tree_structure
        >>> tree_structure({"b": 1, "a": 2}).node_data()
        (<class 'dict'>, ['a', 'b'])
        >>> tree_structure(3).node_data() is None
        True
        """
        if self._kind is None:
            return None
        aux = list(self._aux) if self._kind.type is dict else self._aux
        return self._kind.type, aux

    @staticmethod
    def from_node_data_and_children(
        registry: Any, node_data: tuple[type, Any] | None, children: Iterable[PyTreeDef]
    ) -> PyTreeDef:
        """The structure whose root is `node_data` (as `node_data()` returns it, looked up in
        `registry`, e.g. `default_registry`) over the structures `children`.

        >>> from tf8.tree_util import PyTreeDef, default_registry, tree_structure
        >>> leaf = tree_structure(0)
        >>> PyTreeDef.from_node_data_and_children(default_registry, (list, None), [leaf, leaf])
        PyTreeDef([*, *])
        """
        children = tuple(children)
        if node_data is None:
            if children:
                raise TreeStructureError("from_node_data_and_children: a leaf has no children")
            return LEAF
        node_type, aux = node_data
        kind = kind_of_type(node_type, registry.kinds)
        if kind is None:
            raise TreeStructureError(
                f"from_node_data_and_children: {node_type.__qualname__} is not a pytree node type"
            )
        return PyTreeDef(kind, tuple(aux) if node_type is dict else aux, children)

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        """This structure with `inner` in place of each of its leaves.

        >>> from tf8.tree_util import tree_structure
        >>> tree_structure([0, 0]).compose(tree_structure((0, 0)))
        PyTreeDef([(*, *), (*, *)])
        """
        if self._kind is None:
            return inner
        return PyTreeDef(self._kind, self._aux, tuple(c.compose(inner) for c in self._children))

    def walk(
        self,
        f_node: Callable[[tuple[Any, ...], Any], Any],
        f_leaf: Callable[[Any], Any] | None,
        leaves: Iterable[Any],
    ) -> Any:
        """Fold `leaves` up this structure: `f_leaf(leaf)` at each leaf (identity when None),
        `f_node(children_results, aux_data)` at each node.

        >>> from tf8.tree_util import tree_structure
        >>> tree_structure([1, (2, 3)]).walk(lambda xs, aux: sum(xs), None, [1, 2, 3])
        6
        """
        it = iter(leaves)

        def go(td: PyTreeDef) -> Any:
            if td._kind is None:
                leaf = next(it)
                return leaf if f_leaf is None else f_leaf(leaf)
            return f_node(tuple(go(c) for c in td._children), td._aux)

        return go(self)


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
    if kind.type in DICT_TYPES:
        keys = td._aux[1] if kind.type is defaultdict else td._aux
        body = "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(keys, parts)) + "}"
        if kind.type is dict:
            return body
        if kind.type is OrderedDict:
            return f"OrderedDict({body})"
        factory = td._aux[0]
        return f"defaultdict({getattr(factory, '__name__', repr(factory))}, {body})"
    if is_namedtuple_kind(kind):
        fields = ", ".join(f"{f}={p}" for f, p in zip(kind.type._fields, parts))  # type: ignore[attr-defined]
        return f"{kind.type.__name__}({fields})"
    return f"CustomNode({kind.type.__name__}[{td._aux!r}], [{', '.join(parts)}])"


LEAF = PyTreeDef(None, None, ())


def node_kind(x: Any, kinds: dict[type, NodeKind]) -> NodeKind | None:
    return kind_of_type(type(x), kinds)


def flatten(x: Any, is_leaf: IsLeaf, leaves: list[Any], kinds: dict[type, NodeKind]) -> PyTreeDef:
    kind = None if is_leaf is not None and is_leaf(x) else node_kind(x, kinds)
    if kind is None:
        leaves.append(x)
        return LEAF
    children, aux = kind.flatten(x)
    defs = []
    for child in children:
        # fast path: a child that is surely a leaf (namedtuples are tuples) needs no call
        if is_leaf is None and type(child) not in kinds and not isinstance(child, tuple):
            leaves.append(child)
            defs.append(LEAF)
        else:
            defs.append(flatten(child, is_leaf, leaves, kinds))
    return PyTreeDef(kind, aux, tuple(defs))


def flatten_with_path(
    x: Any,
    is_leaf: Callable[[tuple[Any, ...], Any], bool] | None,
    path: tuple[Any, ...],
    out: list[tuple[tuple[Any, ...], Any]],
    kinds: dict[type, NodeKind],
) -> PyTreeDef:
    """Like `flatten`, collecting `(key path, leaf)` pairs; `is_leaf(path, x)`."""
    kind = None if is_leaf is not None and is_leaf(path, x) else node_kind(x, kinds)
    if kind is None:
        out.append((path, x))
        return LEAF
    pairs, aux = kind.keyed(x)
    defs = tuple(flatten_with_path(c, is_leaf, (*path, k), out, kinds) for k, c in pairs)
    return PyTreeDef(kind, aux, defs)


def _build(td: PyTreeDef, leaves: Iterator[Any]) -> Any:
    if td._kind is None:
        return next(leaves)
    return td._kind.unflatten(td._aux, tuple(_build(c, leaves) for c in td._children))


def _shallow(kind: NodeKind | None, aux: Any, num_children: int) -> str:
    """One node with its children shown as leaves, for mismatch messages."""
    if kind is None:
        return "*"
    return _format(PyTreeDef(kind, aux, (LEAF,) * num_children))


def _describe(x: Any, kinds: dict[type, NodeKind]) -> str:
    kind = node_kind(x, kinds)
    if kind is None:
        return f"a leaf of type {type(x).__qualname__}"
    children, aux = kind.flatten(x)
    return _shallow(kind, aux, len(tuple(children)))


def flatten_up_to(td: PyTreeDef, tree: Any, what: str) -> list[Any]:
    """The subtrees of `tree` at the leaves of `td`; TreeStructureError naming `what` and the
    first mismatching place otherwise. Nodes are looked up by the type `td` recorded."""
    out: list[Any] = []
    stack: list[tuple[PyTreeDef, Any, str]] = [(td, tree, "")]
    while stack:
        node, x, path = stack.pop()
        kind = node._kind
        if kind is None:
            out.append(x)
            continue
        got = kind if type(x) is kind.type else None
        children: tuple[Any, ...] = ()
        aux: Any = None
        if got is not None:
            raw_children, aux = got.flatten(x)
            children = tuple(raw_children)
        if got is None or not aux_equal(aux, node._aux) or len(children) != len(node._children):
            raise TreeStructureError(
                f"{what} does not match the expected structure at tree{path or ' root'}: "
                f"expected {_shallow(kind, node._aux, len(node._children))}, "
                f"got {_describe(x, DEFAULT_KINDS)}\n"
                f"  expected structure: {td!r}\n  got structure:      {_structure_or_str(tree)}"
            )
        keys = node._aux if kind.type in (dict, OrderedDict) else None
        for i in reversed(range(len(children))):
            step = f"[{keys[i]!r}]" if keys is not None else f"[{i}]"
            stack.append((node._children[i], children[i], path + step))
    return out


def _structure_or_str(tree: Any) -> str:
    try:
        return repr(flatten(tree, None, [], DEFAULT_KINDS))
    except TreeStructureError:
        return repr(tree)
