"""`tf8.tree`: `jax.tree`'s short names for the pytree functions of `tf8.tree_util`.

`tf8.tree.map` is `tf8.tree_util.tree_map`, `tf8.tree.flatten` is `tree_flatten`, and so on.
The long names (`tree_flatten`, `tree_map`, `PyTreeDef`, `register_pytree_node`, ...) stay
here too, as aliases.

>>> from tf8 import tree
>>> tree.map(lambda x: x * 10, {"a": 1, "b": [2, 3]})
{'a': 10, 'b': [20, 30]}
>>> tree.leaves({"a": 1, "b": [2, 3]}) == tree.tree_leaves({"a": 1, "b": [2, 3]})
True
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tf8.tree_util import (
    PyTreeDef,
    register_pytree_node,
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
)

__all__ = [
    "PyTreeDef",
    "all",
    "broadcast",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "reduce_associative",
    "register_pytree_node",
    "static",
    "structure",
    "transpose",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
    "unflatten",
]

all = tree_all  # noqa: A001 - jax.tree's name
broadcast = tree_broadcast
flatten = tree_flatten
flatten_with_path = tree_flatten_with_path
leaves = tree_leaves
leaves_with_path = tree_leaves_with_path
map = tree_map  # noqa: A001 - jax.tree's name
map_with_path = tree_map_with_path
reduce = tree_reduce
reduce_associative = tree_reduce_associative
structure = tree_structure
transpose = tree_transpose
unflatten = tree_unflatten


def static(**kwargs: Any) -> Any:
    """`dataclasses.field(**kwargs)` marked static (`metadata={"static": True, ...}`): a
    dataclass registered with `tf8.tree_util.register_dataclass` without field lists keeps it
    as aux data, not as a child.

    >>> import dataclasses
    >>> from tf8 import tree, tree_util
    >>> @tree_util.register_dataclass
    ... @dataclasses.dataclass
    ... class Op:
    ...     x: float
    ...     op: str = tree.static(default="add")
    >>> tree.flatten(Op(1.0))
    ([1.0], PyTreeDef(CustomNode(Op[('add',)], [*])))
    """
    metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)
