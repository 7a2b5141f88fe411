"""Registries of pytree node types: `PyTreeRegistry` and `default_registry`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tf8.errors import TreeStructureError
from tf8.tree_util._keys import GetAttrKey
from tf8.tree_util._kinds import (
    BUILTIN_KINDS,
    DEFAULT_KINDS,
    Flatten,
    FlattenWithKeys,
    NodeKind,
    Unflatten,
    kind_of_type,
)
from tf8.tree_util._treedef import IsLeaf, PyTreeDef, flatten, flatten_with_path

__all__ = [
    "PyTreeRegistry",
    "default_registry",
    "flatten_one_level",
    "flatten_one_level_with_keys",
    "is_tree_node",
]


class PyTreeRegistry:
    """A table of pytree node types. `default_registry` is the one every tf8 function uses;
    a new registry knows the built-in nodes (tuple, list, dict, OrderedDict, defaultdict,
    namedtuples, None, Partial) and nothing registered elsewhere.

    >>> from tf8.tree_util import PyTreeRegistry
    >>> registry = PyTreeRegistry()
    >>> registry.flatten({"b": 1, "a": (2, None)})
    ([2, 1], PyTreeDef({'a': (*, None), 'b': *}))

    Differs from JAX: the constructor takes only an optional starting table, not JAX's
    `enable_none`/`enable_tuple`/... flags.
    """

    def __init__(self, kinds: dict[type, NodeKind] | None = None) -> None:
        self.kinds: dict[type, NodeKind] = dict(BUILTIN_KINDS) if kinds is None else kinds

    def register_node(
        self,
        nodetype: type,
        flatten_func: Flatten,
        unflatten_func: Unflatten,
        flatten_with_keys_func: FlattenWithKeys | None = None,
    ) -> None:
        """Add `nodetype` (see `register_pytree_node`).

        >>> from tf8.tree_util import PyTreeRegistry
        >>> registry = PyTreeRegistry()
        >>> registry.register_node(complex, lambda z: ((z.real, z.imag), None),
        ...                        lambda _, c: complex(*c))
        >>> registry.flatten(1 + 2j)[0]
        [1.0, 2.0]
        """
        if nodetype in self.kinds:
            raise TreeStructureError(
                f"{nodetype.__qualname__} is already registered as a pytree node"
            )
        self.kinds[nodetype] = NodeKind(
            nodetype, flatten_func, unflatten_func, flatten_with_keys_func
        )

    def register_dataclass_node(
        self, nodetype: type, data_fields: Sequence[str], meta_fields: Sequence[str]
    ) -> None:
        """Add `nodetype` with `data_fields` as children and `meta_fields` as aux data.

        >>> import collections
        >>> from tf8.tree_util import PyTreeRegistry
        >>> registry, Span = PyTreeRegistry(), collections.namedtuple("Span", "lo hi")
        >>> registry.register_dataclass_node(Span, ["hi"], ["lo"])
        >>> registry.flatten(Span(1, 2))[0]
        [2]
        """
        data, meta = tuple(data_fields), tuple(meta_fields)

        def flatten_func(x: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
            return tuple(getattr(x, n) for n in data), tuple(getattr(x, n) for n in meta)

        def with_keys(x: Any) -> tuple[list[tuple[Any, Any]], tuple[Any, ...]]:
            return [(GetAttrKey(n), getattr(x, n)) for n in data], tuple(
                getattr(x, n) for n in meta
            )

        def unflatten_func(aux: tuple[Any, ...], children: Iterable[Any]) -> Any:
            return nodetype(**dict(zip(meta, aux)), **dict(zip(data, children)))

        self.register_node(nodetype, flatten_func, unflatten_func, with_keys)

    def is_node(self, typ: type) -> bool:
        """Whether instances of `typ` are nodes (registered, built-in or a namedtuple).

        >>> from tf8.tree_util import default_registry
        >>> default_registry.is_node(dict), default_registry.is_node(float)
        (True, False)
        """
        return kind_of_type(typ, self.kinds) is not None

    def flatten(self, tree: Any, is_leaf: IsLeaf = None) -> tuple[list[Any], PyTreeDef]:
        """`(leaves, treedef)` of `tree` under this registry (see `tree_flatten`).

        >>> from tf8.tree_util import default_registry
        >>> default_registry.flatten([1, (2,)])
        ([1, 2], PyTreeDef([*, (*,)]))
        """
        leaves: list[Any] = []
        return leaves, flatten(tree, is_leaf, leaves, self.kinds)

    def flatten_with_path(
        self, tree: Any, is_leaf: Callable[[tuple[Any, ...], Any], bool] | None = None
    ) -> tuple[list[tuple[tuple[Any, ...], Any]], PyTreeDef]:
        """`([(key path, leaf), ...], treedef)`; `is_leaf(path, x)` (see
        `tree_flatten_with_path`).

        >>> from tf8.tree_util import default_registry
        >>> default_registry.flatten_with_path({"a": 1})[0]
        [((DictKey(key='a'),), 1)]
        """
        out: list[tuple[tuple[Any, ...], Any]] = []
        return out, flatten_with_path(tree, is_leaf, (), out, self.kinds)

    def flatten_one_level(self, tree: Any) -> tuple[list[Any], Any] | None:
        """`(children, aux data)` of node `tree`, or None when `tree` is a leaf.

        >>> from tf8.tree_util import default_registry
        >>> default_registry.flatten_one_level({"b": 1, "a": 2})
        ([2, 1], ('a', 'b'))
        >>> default_registry.flatten_one_level(3) is None
        True
        """
        kind = kind_of_type(type(tree), self.kinds)
        if kind is None:
            return None
        children, aux = kind.flatten(tree)
        return list(children), aux

    def flatten_one_level_with_keys(self, tree: Any) -> tuple[list[tuple[Any, Any]], Any] | None:
        """`([(key, child), ...], aux data)` of node `tree`, or None when it is a leaf.

        >>> from tf8.tree_util import default_registry
        >>> default_registry.flatten_one_level_with_keys((5,))
        ([(SequenceKey(idx=0), 5)], None)
        """
        kind = kind_of_type(type(tree), self.kinds)
        return None if kind is None else kind.keyed(tree)


default_registry = PyTreeRegistry(DEFAULT_KINDS)


def is_tree_node(typ: type) -> bool:
    """Whether `typ` is a pytree node type (built-in, registered or a namedtuple).

    >>> from tf8.tree_util import is_tree_node
    >>> is_tree_node(list), is_tree_node(type(None)), is_tree_node(int)
    (True, True, False)
    """
    return default_registry.is_node(typ)


def flatten_one_level(tree: Any) -> tuple[list[Any], Any]:
    """`(children, aux data)` of the node `tree`: one level only. A leaf raises
    TreeStructureError (a ValueError, as JAX's).

    >>> from tf8.tree_util import flatten_one_level
    >>> flatten_one_level({"a": [1, 2], "b": {"c": 3}})
    ([[1, 2], {'c': 3}], ('a', 'b'))

    Differs from JAX: the children come as a list (JAX returns the node's own sequence).
    """
    out = default_registry.flatten_one_level(tree)
    if out is None:
        raise TreeStructureError(f"can't tree-flatten type: {type(tree)} (it is a leaf)")
    return out


def flatten_one_level_with_keys(tree: Any) -> tuple[list[tuple[Any, Any]], Any]:
    """`([(key, child), ...], aux data)` of the node `tree`; a leaf raises TreeStructureError.

    >>> from tf8.tree_util import flatten_one_level_with_keys
    >>> flatten_one_level_with_keys([1, (2,)])
    ([(SequenceKey(idx=0), 1), (SequenceKey(idx=1), (2,))], None)
    """
    out = default_registry.flatten_one_level_with_keys(tree)
    if out is None:
        raise TreeStructureError(f"can't tree-flatten type: {type(tree)} (it is a leaf)")
    return out
