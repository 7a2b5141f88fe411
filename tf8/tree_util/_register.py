"""The `register_*` functions of `jax.tree_util`: they add to `default_registry`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, TypeVar

from tf8.errors import TreeStructureError
from tf8.tree_util._kinds import Flatten, FlattenWithKeys, Unflatten
from tf8.tree_util._registry import default_registry

__all__ = [
    "register_dataclass",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_static",
]

T = TypeVar("T", bound=type)


def register_pytree_node(
    nodetype: type,
    flatten_func: Flatten,
    unflatten_func: Unflatten,
    flatten_with_keys_func: FlattenWithKeys | None = None,
) -> None:
    """Make `nodetype` a pytree node type.

    Parameters: `flatten_func(x) -> (children, aux_data)`; `unflatten_func(aux_data,
    children) -> x`; optionally `flatten_with_keys_func(x) -> ([(key, child), ...],
    aux_data)` for key paths (children get `FlattenedIndexKey(i)` without it). `aux_data` is
    static: compared by `==`; it need not be hashable. Registering a type twice raises
    TreeStructureError.

    >>> from tf8.tree_util import register_pytree_node, tree_flatten
    >>> class Pair:
    ...     def __init__(self, a, b, tag):
    ...         self.a, self.b, self.tag = a, b, tag
    >>> register_pytree_node(
    ...     Pair, lambda p: ((p.a, p.b), {"tag": p.tag}), lambda aux, c: Pair(*c, aux["tag"])
    ... )
    >>> tree_flatten(Pair(1, [2], "t"))
    ([1, 2], PyTreeDef(CustomNode(Pair[{'tag': 't'}], [*, [*]])))

    Differs from JAX: a second registration raises TreeStructureError (a ValueError).
    """
    default_registry.register_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)


def register_pytree_node_class(cls: T) -> T:
    """Class decorator: `cls` is a node flattened by its method `tree_flatten()` and rebuilt
    by its classmethod `tree_unflatten(aux_data, children)`. Returns `cls`.

    >>> from tf8.tree_util import register_pytree_node_class, tree_leaves
    >>> @register_pytree_node_class
    ... class Scaled:
    ...     def __init__(self, x, scale):
    ...         self.x, self.scale = x, scale
    ...     def tree_flatten(self):
    ...         return (self.x,), self.scale
    ...     @classmethod
    ...     def tree_unflatten(cls, scale, children):
    ...         return cls(children[0], scale)
    >>> tree_leaves([Scaled(1.0, 2), Scaled(3.0, 4)])
    [1.0, 3.0]
    """
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)  # type: ignore[attr-defined]
    return cls


def register_pytree_with_keys(
    nodetype: type,
    flatten_with_keys: FlattenWithKeys,
    unflatten_func: Unflatten,
    flatten_func: Flatten | None = None,
) -> None:
    """Make `nodetype` a pytree node type whose children have keys.

    Parameters: `flatten_with_keys(x) -> ([(key, child), ...], aux_data)`;
    `unflatten_func(aux_data, children) -> x`; optionally a faster `flatten_func(x) ->
    (children, aux_data)` giving the same children and aux data.

    >>> from tf8.tree_util import GetAttrKey, keystr, register_pytree_with_keys
    >>> from tf8.tree_util import tree_leaves_with_path
    >>> class Vec:
    ...     def __init__(self, x, y):
    ...         self.x, self.y = x, y
    >>> register_pytree_with_keys(
    ...     Vec, lambda v: ([(GetAttrKey("x"), v.x), (GetAttrKey("y"), v.y)], None),
    ...     lambda _, c: Vec(*c))
    >>> [(keystr(p), leaf) for p, leaf in tree_leaves_with_path({"v": Vec(1, 2)})]
    [("['v'].x", 1), ("['v'].y", 2)]
    """
    if flatten_func is None:

        def flatten_func(x: Any) -> tuple[list[Any], Any]:
            pairs, aux = flatten_with_keys(x)
            return [c for _, c in pairs], aux

    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls: T) -> T:
    """Class decorator: `cls` is flattened by its method `tree_flatten_with_keys()` (and
    `tree_flatten()` when it has one) and rebuilt by classmethod `tree_unflatten`.

    >>> from tf8.tree_util import GetAttrKey, register_pytree_with_keys_class, keystr
    >>> from tf8.tree_util import tree_flatten_with_path
    >>> @register_pytree_with_keys_class
    ... class Special:
    ...     def __init__(self, x, y):
    ...         self.x, self.y = x, y
    ...     def tree_flatten_with_keys(self):
    ...         return ((GetAttrKey("x"), self.x), (GetAttrKey("y"), self.y)), None
    ...     @classmethod
    ...     def tree_unflatten(cls, aux_data, children):
    ...         return cls(*children)
    >>> [keystr(path) for path, _ in tree_flatten_with_path(Special(1, 2))[0]]
    ['.x', '.y']
    """
    flat = (lambda x: x.tree_flatten()) if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(
        cls,
        lambda x: x.tree_flatten_with_keys(),
        cls.tree_unflatten,  # type: ignore[attr-defined]
        flat,
    )
    return cls


def _dataclass_fields(nodetype: type, drop_fields: Sequence[str]) -> tuple[list[str], list[str]]:
    if not dataclasses.is_dataclass(nodetype):
        raise TreeStructureError(
            f"register_dataclass: data_fields and meta_fields are required when nodetype is "
            f"not a dataclass; got {nodetype.__qualname__}"
        )
    fields = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields]
    data = [f.name for f in fields if not f.metadata.get("static", False)]
    meta = [f.name for f in fields if f.metadata.get("static", False)]
    return data, meta


def register_dataclass(
    nodetype: T,
    data_fields: Sequence[str] | None = None,
    meta_fields: Sequence[str] | None = None,
    drop_fields: Sequence[str] = (),
) -> T:
    """Make `nodetype` (a dataclass, or any class built by keyword arguments) a pytree node:
    `data_fields` are its children, `meta_fields` its aux data (static, compared by `==`).
    Without both field lists, a dataclass's `init` fields are data unless declared with
    `dataclasses.field(metadata=dict(static=True))` (see `tf8.tree.static`); `drop_fields`
    are left out. Returns `nodetype`, so it works as a decorator.

    >>> import dataclasses
    >>> from tf8.tree_util import register_dataclass, tree_flatten
    >>> @register_dataclass
    ... @dataclasses.dataclass
    ... class Layer:
    ...     w: object
    ...     b: object
    ...     act: str = dataclasses.field(default="relu", metadata=dict(static=True))
    >>> tree_flatten(Layer(1.0, 2.0))
    ([1.0, 2.0], PyTreeDef(CustomNode(Layer[('relu',)], [*, *])))

    Differs from JAX: its errors are TreeStructureError (a ValueError), where JAX raises
    TypeError for a missing field list.
    """
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TreeStructureError(
                "register_dataclass: data_fields and meta_fields must both be given when either "
                f"is; got data_fields={data_fields!r}, meta_fields={meta_fields!r}"
            )
        data_fields, meta_fields = _dataclass_fields(nodetype, drop_fields)
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        given = {*data_fields, *meta_fields}
        if given != init:
            raise TreeStructureError(
                f"register_dataclass({nodetype.__qualname__}): data_fields and meta_fields must "
                f"list every init=True field and only those; missing {sorted(init - given)}, "
                f"unexpected {sorted(given - init)} (drop_fields leaves fields out)"
            )
    if overlap := set(data_fields) & set(meta_fields):
        raise TreeStructureError(
            f"register_dataclass: data_fields and meta_fields overlap: {sorted(overlap)}"
        )
    default_registry.register_dataclass_node(nodetype, data_fields, meta_fields)
    return nodetype


def register_static(cls: T) -> T:
    """Make `cls` a pytree node without children: an instance is its own aux data, so it is
    static under `jit` (compared by `==`, hashed when it can be). Returns `cls`.

    >>> from tf8.tree_util import register_static, tree_flatten
    >>> @register_static
    ... class Mode(str):
    ...     pass
    >>> tree_flatten([1, Mode("train")])
    ([1], PyTreeDef([*, CustomNode(Mode['train'], [])]))
    """
    register_pytree_with_keys(cls, lambda x: ((), x), lambda x, _: x, lambda x: ((), x))
    return cls
