"""The functions of `jax.tree_util` over trees and tree structures (default registry)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from tf8.errors import ParameterError, TreeStructureError
from tf8.tree_util._kinds import BUILTIN_KINDS
from tf8.tree_util._registry import default_registry
from tf8.tree_util._treedef import IsLeaf, PyTreeDef, flatten_up_to

__all__ = [
    "all_leaves",
    "tree_all",
    "tree_broadcast",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_reduce_associative",
    "tree_structure",
    "tree_transpose",
    "tree_unflatten",
    "treedef_children",
    "treedef_is_leaf",
    "treedef_tuple",
]

T = TypeVar("T")
KeyPath = tuple[Any, ...]


class _Unspecified:
    def __repr__(self) -> str:
        return "<unspecified>"


_UNSPECIFIED: Any = _Unspecified()


def tree_flatten(tree: Any, is_leaf: IsLeaf = None) -> tuple[list[Any], PyTreeDef]:
    """The leaves of `tree` in order, and its structure. `is_leaf(x)` True stops descent at
    `x` (it becomes a leaf). Dicts are flattened in sorted-key order; None has no leaves.

    >>> from tf8.tree_util import tree_flatten
    >>> tree_flatten({"b": (1, None), "a": [2]})
    ([2, 1], PyTreeDef({'a': [*], 'b': (*, None)}))
    >>> tree_flatten([(1, 2), 3], is_leaf=lambda x: isinstance(x, tuple))[0]
    [(1, 2), 3]
    """
    return default_registry.flatten(tree, is_leaf)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a tree of structure `treedef` from its `leaves` (in flattening order).

    >>> from tf8.tree_util import tree_structure, tree_unflatten
    >>> tree_unflatten(tree_structure({"a": 0, "b": [0]}), [1, 2])
    {'a': 1, 'b': [2]}
    """
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: IsLeaf = None) -> list[Any]:
    """The leaves of `tree`, in flattening order (`is_leaf` as in `tree_flatten`).

    >>> from tf8.tree_util import tree_leaves
    >>> tree_leaves({"b": [1, None], "a": 2})
    [2, 1]
    """
    return default_registry.flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: IsLeaf = None) -> PyTreeDef:
    """The structure (`PyTreeDef`) of `tree` (`is_leaf` as in `tree_flatten`).

    >>> from tf8.tree_util import tree_structure
    >>> tree_structure((1, {"x": 2}))
    PyTreeDef((*, {'x': *}))
    """
    return default_registry.flatten(tree, is_leaf)[1]


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: IsLeaf = None) -> Any:
    """`f` applied leafwise: `f(x, *ys)` for each leaf `x` of `tree`, where `ys` are the
    subtrees of each of `rest` at the same place (`tree` is a prefix of each of them).

    >>> from tf8.tree_util import tree_map
    >>> tree_map(lambda x: x * 2, {"a": 1, "b": (2, None)})
    {'a': 2, 'b': (4, None)}
    >>> tree_map(lambda x, y: (x, y), [1, 2], [[3, 4], {"k": 5}])
    [(1, [3, 4]), (2, {'k': 5})]

    Differs from JAX: a mismatch raises TreeStructureError (a ValueError) naming the place.
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten(f(x) for x in leaves)
    others = [
        flatten_up_to(treedef, r, f"tree_map: tree #{i} (the first is #0)")
        for i, r in enumerate(rest, 1)
    ]
    return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))


def tree_reduce(
    function: Callable[[T, Any], T],
    tree: Any,
    initializer: Any = _UNSPECIFIED,
    is_leaf: IsLeaf = None,
) -> T:
    """`functools.reduce(function, leaves of tree[, initializer])`.

    >>> from tf8.tree_util import tree_reduce
    >>> tree_reduce(lambda a, b: a + b, {"x": 1, "y": [2, 3]})
    6
    >>> tree_reduce(lambda a, b: a + b, [], 10)
    10
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _UNSPECIFIED:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def _parallel_reduce(seq: list[Any], op: Callable[[Any, Any], Any], identity: Any) -> Any:
    if not seq:
        if identity is _UNSPECIFIED:
            raise ParameterError(
                "tree_reduce_associative: the tree has no leaves; give an identity"
            )
        return identity
    if len(seq) == 1:
        return seq[0]
    mid = len(seq) // 2
    return op(_parallel_reduce(seq[:mid], op, identity), _parallel_reduce(seq[mid:], op, identity))


def tree_reduce_associative(
    operation: Callable[[T, T], T],
    tree: Any,
    *,
    identity: Any = _UNSPECIFIED,
    is_leaf: IsLeaf = None,
) -> T:
    """Reduce the leaves of `tree` with associative `operation`, as a balanced tree of calls
    (halves first). `identity` is the result for a tree without leaves.

    >>> from tf8.tree_util import tree_reduce_associative
    >>> tree_reduce_associative(lambda a, b: f"({a}+{b})", [1, 2, 3, 4])
    '((1+2)+(3+4))'

    Differs from JAX: no leaves and no identity raises ParameterError (a ValueError; JAX
    raises TypeError).
    """
    return _parallel_reduce(tree_leaves(tree, is_leaf), operation, identity)  # type: ignore[no-any-return]


def tree_all(tree: Any, *, is_leaf: IsLeaf = None) -> bool:
    """Whether every leaf of `tree` is truthy (`all(tree_leaves(tree))`).

    >>> from tf8.tree_util import tree_all
    >>> tree_all([True, {"a": 1}]), tree_all([True, (0,)]), tree_all(None)
    (True, False, True)
    """
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(
    outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: Any
) -> Any:
    """Turn a tree of structure `outer_treedef` whose leaves-level subtrees all have
    structure `inner_treedef` into an `inner` tree of `outer` trees. `inner_treedef=None`
    takes it from the first subtree.

    >>> from tf8.tree_util import tree_structure, tree_transpose
    >>> outer, inner = tree_structure([0, 0]), tree_structure((0, 0, 0))
    >>> tree_transpose(outer, inner, [(1, 2, 3), (4, 5, 6)])
    ([1, 4], [2, 5], [3, 6])

    Differs from JAX: a mismatch raises TreeStructureError (a ValueError; JAX: TypeError).
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    inner_size, outer_size = inner_treedef.num_leaves, outer_treedef.num_leaves
    expected = outer_treedef.compose(inner_treedef)
    if treedef != expected:
        raise TreeStructureError(
            f"tree_transpose: the tree has structure {treedef!r}, expected {expected!r}"
        )
    rows = [flat[i * inner_size : (i + 1) * inner_size] for i in range(outer_size)]
    return inner_treedef.unflatten(outer_treedef.unflatten(col) for col in zip(*rows))


def tree_broadcast(prefix_tree: Any, full_tree: Any, is_leaf: IsLeaf = None) -> Any:
    """`full_tree`'s structure with each leaf of `prefix_tree` repeated over the subtree of
    `full_tree` at its place (`prefix_tree` must be a prefix of `full_tree`).

    >>> from tf8.tree_util import tree_broadcast
    >>> tree_broadcast([1, {"a": 2}], [[3, 4], {"a": (5, 6)}])
    [[1, 1], {'a': (2, 2)}]
    """
    out: list[Any] = []
    prefix_leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
    subtrees = flatten_up_to(prefix_def, full_tree, "tree_broadcast: full_tree")
    for leaf, subtree in zip(prefix_leaves, subtrees):
        out.extend([leaf] * tree_structure(subtree).num_leaves)
    return tree_structure(full_tree).unflatten(out)


def all_leaves(iterable: Iterable[Any], is_leaf: IsLeaf = None) -> bool:
    """Whether every element of `iterable` is a leaf (with `is_leaf`: flattens to itself).

    >>> from tf8.tree_util import all_leaves
    >>> all_leaves([1, "a", 2.0]), all_leaves([1, [2]]), all_leaves([None])
    (True, False, False)
    """
    items = list(iterable)
    if is_leaf is None:
        return all(not default_registry.is_node(type(x)) for x in items)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(a is b for a, b in zip(items, leaves))


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The structures of the root's children (`treedef.children()`).

    >>> from tf8.tree_util import tree_structure, treedef_children
    >>> treedef_children(tree_structure([(1, 2), 3, {"a": 4}]))
    [PyTreeDef((*, *)), PyTreeDef(*), PyTreeDef({'a': *})]
    """
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """Whether `treedef` has a single node: a leaf, or a node without children (`None`).

    >>> from tf8.tree_util import tree_structure, treedef_is_leaf
    >>> treedef_is_leaf(tree_structure(1)), treedef_is_leaf(tree_structure([1]))
    (True, False)
    """
    return treedef.num_nodes == 1


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure of a tuple whose children have the structures `treedefs`.

    >>> from tf8.tree_util import tree_structure, treedef_tuple
    >>> treedef_tuple([tree_structure([1, 2]), tree_structure({"a": 3})])
    PyTreeDef(([*, *], {'a': *}))
    """
    return PyTreeDef(BUILTIN_KINDS[tuple], None, tuple(treedefs))


def tree_flatten_with_path(
    tree: Any, is_leaf: Callable[..., bool] | None = None, is_leaf_takes_path: bool = False
) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """`([(key path, leaf), ...], treedef)`: the leaves of `tree` with the key path of each
    (a tuple of `DictKey`, `SequenceKey`, `GetAttrKey`, `FlattenedIndexKey`, ...). `is_leaf`
    takes `(path, x)` when `is_leaf_takes_path`, else `x`.

    >>> from tf8.tree_util import keystr, tree_flatten_with_path
    >>> pairs, treedef = tree_flatten_with_path({"a": [1, 2]})
    >>> [(keystr(path), leaf) for path, leaf in pairs]
    [("['a'][0]", 1), ("['a'][1]", 2)]
    """
    fun = is_leaf
    if is_leaf is not None and not is_leaf_takes_path:
        fun = lambda _, x: is_leaf(x)  # noqa: E731
    return default_registry.flatten_with_path(tree, fun)


def tree_leaves_with_path(
    tree: Any, is_leaf: Callable[..., bool] | None = None, is_leaf_takes_path: bool = False
) -> list[tuple[KeyPath, Any]]:
    """The `(key path, leaf)` pairs of `tree` (see `tree_flatten_with_path`).

    >>> from tf8.tree_util import tree_leaves_with_path
    >>> tree_leaves_with_path([1, {"k": 2}])
    [((SequenceKey(idx=0),), 1), ((SequenceKey(idx=1), DictKey(key='k')), 2)]
    """
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(
    f: Callable[..., Any],
    tree: Any,
    *rest: Any,
    is_leaf: Callable[..., bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> Any:
    """`tree_map` where `f` also gets each leaf's key path first: `f(path, x, *ys)`.

    >>> from tf8.tree_util import keystr, tree_map_with_path
    >>> tree_map_with_path(lambda p, x: f"{keystr(p)}={x}", {"a": 1, "b": [2]})
    {'a': "['a']=1", 'b': ["['b'][0]=2"]}
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    others = [
        flatten_up_to(treedef, r, f"tree_map_with_path: tree #{i} (the first is #0)")
        for i, r in enumerate(rest, 1)
    ]
    return treedef.unflatten(f(p, x, *ys) for (p, x), *ys in zip(pairs, *others))
