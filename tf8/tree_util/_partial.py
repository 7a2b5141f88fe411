"""`Partial`: a `functools.partial` that is a pytree (its arguments are leaves)."""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["Partial"]


class _HashableCallableShim:
    """Wraps a `functools.partial` given to `Partial` so that it is not merged into it."""

    def __init__(self, fun: Any) -> None:
        self.fun = fun

    def __call__(self, *args: Any, **kw: Any) -> Any:
        return self.fun(*args, **kw)

    def __hash__(self) -> int:
        return hash(self.fun)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _HashableCallableShim):
            return bool(self.fun == other.fun)
        return bool(self.fun == other)

    def __repr__(self) -> str:
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """`functools.partial(func, *args, **kwargs)` that is a pytree node: the bound `args` and
    `kwargs` are its children (their leaves are traced by `jit`, `grad`, ...), `func` is its aux
    data (static, compared by `==`). Pass functions with bound arrays through transforms this
    way; a plain `functools.partial` is a leaf.

    Parameters: `func`, the callable; `*args`, `**kwargs`, the bound arguments. A `Partial` of
    a `functools.partial` keeps the inner one whole (as aux data), as JAX does.

    >>> import tf8, tf8.numpy as tnp
    >>> from tf8.tree_util import Partial, tree_leaves
    >>> add_one = Partial(tnp.add, 1.0)
    >>> float(add_one(2.0))
    3.0
    >>> tree_leaves(add_one)
    [1.0]
    >>> call = tf8.jit(lambda f, x: f(x))
    >>> float(call(add_one, 2.0))
    3.0
    """

    def __new__(cls, func: Any, *args: Any, **kw: Any) -> Partial:
        # functools.partial would merge a partial `func` into this one; box it so that exactly
        # the arguments given here are this node's children.
        if isinstance(func, functools.partial):
            original = func
            shim = _HashableCallableShim(original)
            out = super().__new__(cls, shim, *args, **kw)
            shim.func = original.func  # type: ignore[attr-defined]
            shim.args = original.args  # type: ignore[attr-defined]
            shim.keywords = original.keywords  # type: ignore[attr-defined]
            return out
        return super().__new__(cls, func, *args, **kw)


def flatten_partial(p: Partial) -> tuple[tuple[Any, Any], Any]:
    return (p.args, p.keywords), p.func


def unflatten_partial(func: Any, children: Any) -> Partial:
    args, keywords = children
    return Partial(func, *args, **keywords)
