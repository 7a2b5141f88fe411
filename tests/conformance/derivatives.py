"""A case's outputs as leaves, and its derivatives to second order, written once for either
library (`root` is the jax or the tf8 module): the recorder and the replay call the same code.

The differentiated arguments are the non-empty inexact arrays; the rest are closed over. The
differentiated outputs are the inexact leaves. Tangents are 0.5 and cotangents 0.25:
- `jvp`: the JVP's output tangents;
- `vjp`: the VJP's cotangents of the differentiated arguments;
- `jvp2`: the JVP of the JVP (forward over forward), with the same tangents;
- `vjp2`: the VJP of the VJP (reverse over reverse), with cotangents 0.25.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def leaves(out: Any, select: Sequence[int] | None = None) -> list[Any]:
    """An output's arrays, in order (tuples, lists and named tuples flattened)."""
    found: list[Any] = []

    def walk(x: Any) -> None:
        if isinstance(x, (tuple, list)):
            for item in x:
                walk(item)
        elif isinstance(x, dict):
            for key in sorted(x):
                walk(x[key])
        else:
            found.append(x)

    walk(out)
    return found if select is None else [found[k] for k in select]


def _inexact(x: Any) -> bool:
    return np.dtype(x.dtype).kind in "fc"


def differentiable(args: Sequence[Any]) -> list[int]:
    """The positions of the arguments a case differentiates."""
    return [
        k
        for k, a in enumerate(args)
        if hasattr(a, "dtype") and hasattr(a, "shape") and _inexact(a) and np.size(a) > 0
    ]


def _full(like: Any, value: float) -> np.ndarray:
    return np.full(np.shape(like), value, np.dtype(like.dtype))


def all_orders(
    root: Any,
    fn: Callable,
    args: Sequence[Any],
    keywords: dict,
    select: Sequence[int] | None,
    compile: Callable[[Callable], Callable] = lambda f: f,
) -> dict[str, list[Any] | Exception]:
    """The case's jvp, vjp, jvp2 and vjp2 (see the module's docstring), each a list of arrays
    or the exception it raised; {} where the case has no differentiable argument or no
    inexact output. `compile` wraps each order's function (the recorder passes `jax.jit`:
    one compilation instead of one per primitive)."""
    wrt = differentiable(args)
    if not wrt:
        return {}

    def g(*xs: Any) -> tuple:
        full = list(args)
        for k, x in zip(wrt, xs):
            full[k] = x
        return tuple(x for x in leaves(fn(*full, **keywords), select) if _inexact(x))

    primals = tuple(args[k] for k in wrt)
    tangents = tuple(_full(x, 0.5) for x in primals)
    outs = g(*primals)
    if not outs:
        return {}
    cts = tuple(_full(x, 0.25) for x in outs)

    def jvp(*xs: Any) -> tuple:
        return root.jvp(g, xs, tangents)[1]

    def vjp(*xs: Any) -> tuple:
        return tuple(root.vjp(g, *xs)[1](cts))

    def jvp2(*xs: Any) -> tuple:
        return root.jvp(jvp, xs, tangents)[1]

    def vjp2(*xs: Any) -> tuple:
        firsts, pullback = root.vjp(vjp, *xs)
        return pullback(tuple(_full(x, 0.25) for x in firsts))

    found: dict[str, list[Any] | Exception] = {}
    for key, order in {"jvp": jvp, "vjp": vjp, "jvp2": jvp2, "vjp2": vjp2}.items():
        try:
            found[key] = [np.asarray(x) for x in compile(order)(*primals)]
        except Exception as exc:  # noqa: BLE001 - a refusal is a fact to record or compare
            found[key] = exc
    return found
