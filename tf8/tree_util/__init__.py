"""`tf8.tree_util`: pytrees as `jax.tree_util` has them.

A pytree is a nested structure of nodes (tuples, lists, dicts, OrderedDicts, defaultdicts,
namedtuples, None, `Partial` and registered types) whose other parts are leaves. Every tf8
transform flattens its arguments and results this way.

>>> from tf8 import tree_util
>>> tree_util.tree_map(lambda x: x + 1, {"a": (1, 2), "b": None})
{'a': (2, 3), 'b': None}

Differs from JAX: defaultdict children are in insertion order (JAX sorts their keys); errors
are tf8.errors exceptions (TreeStructureError is a ValueError); no proto serialization.
"""

from tf8.tree_util._keys import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    KeyEntry,
    KeyPath,
    SequenceKey,
    keystr,
)
from tf8.tree_util._ops import (
    all_leaves,
    tree_all,
    tree_broadcast,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_leaves_with_path,
    tree_map,
    tree_map_with_path,
    tree_reduce,
    tree_reduce_associative,
    tree_structure,
    tree_transpose,
    tree_unflatten,
    treedef_children,
    treedef_is_leaf,
    treedef_tuple,
)
from tf8.tree_util._partial import Partial
from tf8.tree_util._register import (
    register_dataclass,
    register_pytree_node,
    register_pytree_node_class,
    register_pytree_with_keys,
    register_pytree_with_keys_class,
    register_static,
)
from tf8.tree_util._registry import (
    PyTreeRegistry,
    default_registry,
    flatten_one_level,
    flatten_one_level_with_keys,
    is_tree_node,
)
from tf8.tree_util._treedef import PyTreeDef

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "Partial",
    "PyTreeDef",
    "PyTreeRegistry",
    "SequenceKey",
    "all_leaves",
    "default_registry",
    "flatten_one_level",
    "flatten_one_level_with_keys",
    "is_tree_node",
    "keystr",
    "register_dataclass",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_static",
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
