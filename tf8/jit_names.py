"""What jit's programs call their inputs and outputs, and the order they take the inputs in.

An input is named by the Python parameter it comes from and its pytree path in that argument
(`params['W']`, `x`, `args[2]`; a keyword argument by its keyword), read from the function's
signature (through `__wrapped__`, so `grad(loss)` names `loss`'s parameters); inputs come in
argument order (keyword arguments as the signature lists them, not sorted). An output is
named by its role when the function says it (`value`, `grad[params['W']]`: tf8.ad.roles),
else by its pytree path (`result`, `result['loss']`, `result[1]`). Names are titles, display
metadata: they never enter a program's fingerprint or jit's cache key.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from tf8.errors import ConcretizationError
from tf8.jit_arguments import make_placeholder
from tf8.lax.control.checks import defined_at
from tf8.traced import TracedTensor
from tf8.tree import PyTreeDef, tree_flatten_with_path
from tf8.tree_util import keystr

__all__ = ["ArgumentNames", "input_titles", "named_placeholders", "output_titles"]

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class ArgumentNames:
    """The parameter names of a function, from its signature (None when it has none).

    >>> def loss(params, x, *rest, scale=1.0): ...
    >>> names = ArgumentNames(loss)
    >>> names.positional(0), names.positional(3), names.rank("scale")
    ('params', 'rest[1]', 3)
    """

    def __init__(self, fun: Callable[..., Any]) -> None:
        try:
            parameters = list(inspect.signature(fun).parameters.values())
        except (TypeError, ValueError):  # a builtin or C function without a signature
            parameters = []
        self.names = [p.name for p in parameters if p.kind in _POSITIONAL]
        varargs = [p.name for p in parameters if p.kind is inspect.Parameter.VAR_POSITIONAL]
        self.varargs = varargs[0] if varargs else "args"
        self.order = {p.name: i for i, p in enumerate(parameters)}

    def positional(self, index: int) -> str:
        """The name of positional argument `index` (`args[k]` past the named ones)."""
        if index < len(self.names):
            return self.names[index]
        return f"{self.varargs}[{index - len(self.names)}]"

    def rank(self, keyword: str) -> int:
        """Where keyword argument `keyword` comes in the signature (after all: not in it)."""
        return self.order.get(keyword, len(self.order))

    def positional_rank(self, index: int) -> int:
        """Where positional argument `index` comes in the signature (`*args` for the extra)."""
        if index < len(self.names):
            return index
        return self.order.get(self.varargs, len(self.order))


def _paths(treedef: PyTreeDef) -> list[tuple[Any, ...]] | None:
    """The key path of each leaf of `treedef` (None if a registered node's unflatten refuses
    the stand-in leaves it is rebuilt with)."""
    try:
        tree = treedef.unflatten(list(range(treedef.num_leaves)))
        return [path for path, _ in tree_flatten_with_path(tree)[0]]
    except Exception:  # a user's unflatten may check its leaves: names are not worth a failure
        return None


def input_titles(
    names: ArgumentNames, treedef: PyTreeDef, statics: Any
) -> tuple[list[str], list[int]]:
    """(the title of each dynamic argument leaf, in flattening order; the leaf indices in
    argument order). `treedef` is jit's: the positional arguments' tuple, or, with `statics`
    (static or keyword arguments), the pair (dynamic positional tuple, dynamic keyword dict).

    >>> from tf8.tree import tree_structure
    >>> def loss(params, x): ...
    >>> treedef = tree_structure((({"W": 1, "b": 2},), {"x": 3}))
    >>> input_titles(ArgumentNames(loss), treedef, ((), ()))
    (["params['W']", "params['b']", 'x'], [0, 1, 2])
    """
    paths = _paths(treedef)
    if paths is None:
        return [f"input {i}" for i in range(treedef.num_leaves)], list(range(treedef.num_leaves))
    static_positions = {i for i, _ in statics[0]} if statics else set()
    count = len(paths) + len(static_positions)
    positions = [i for i in range(count) if i not in static_positions]
    titles, ranks = [], []
    for leaf, path in enumerate(paths):
        if statics:
            part, path = path[0].idx, path[1:]
            if part == 1:  # a keyword argument: where its parameter is in the signature
                keyword = path[0].key
                titles.append(f"{keyword}{keystr(path[1:])}")
                ranks.append((names.rank(keyword), 0, leaf))
                continue
        index = positions[path[0].idx]
        titles.append(f"{names.positional(index)}{keystr(path[1:])}")
        ranks.append((names.positional_rank(index), index, leaf))
    return titles, [leaf for *_, leaf in sorted(ranks)]


def named_placeholders(
    names: ArgumentNames, treedef: PyTreeDef, statics: Any, avals: Any
) -> tuple[list[TracedTensor], list[int]]:
    """jit's placeholders for argument leaves of `avals` ((shape, dtype, weak) each, in
    flattening order), titled by `input_titles`, and the order the program takes them in."""
    titles, order = input_titles(names, treedef, statics)
    inputs = [make_placeholder(*aval, title) for aval, title in zip(avals, titles)]
    return inputs, order


def output_titles(fun: Callable[..., Any], names: ArgumentNames, out_tree: PyTreeDef) -> list[str]:
    """The name of each output leaf: its role when `fun` has `output_roles` (tf8.ad.roles),
    else `result` and its pytree path (`result`, `result['loss']`)."""
    paths = _paths(out_tree)
    if paths is None:
        return [f"output {i}" for i in range(out_tree.num_leaves)]
    roles = getattr(fun, "output_roles", None)
    titles = []
    for path in paths:
        title = None
        if roles is not None:
            try:
                title = roles(path, names.positional)
            except (
                AttributeError,
                IndexError,
                KeyError,
                TypeError,
            ):  # a structure it does not know
                title = None
        titles.append(title or f"result{keystr(path)}")
    return titles


def _depends_on(key: Any, inputs: Sequence[Any]) -> list[str]:
    """The titles of the `inputs` (placeholders) that the value of `key` depends on."""
    titles = {t.key: t.key.input_key.title for t in inputs}
    found, seen, stack = [], set(), [key]
    while stack:
        k = stack.pop()
        if k is None or id(k) in seen:
            continue
        seen.add(id(k))
        if k.is_input:
            if k in titles and titles[k] not in found:
                found.append(titles[k])
        else:
            stack.extend(k.operation.inputs)
    return sorted(found, key=list(titles.values()).index)


def explained(exc: Exception, fun: Callable[..., Any], inputs: Sequence[Any]) -> Exception:
    """`exc` (a ConcretizationError raised while jit traced `fun`) with JAX's context: the
    function, where it is defined, and the arguments the value depends on."""
    name = getattr(fun, "__name__", "the function")
    where = defined_at(fun)
    names = _depends_on(getattr(exc, "value_key", None), inputs)
    depends = (
        f" This value is not available in Python because it depends on the value of the "
        f"argument{'s' if len(names) > 1 else ''} {', '.join(names)}."
        if names
        else ""
    )
    return type(exc)(
        f"{exc}\nThe error occurred while tracing the function {name}{where} for jit.{depends}"
    )


class Explaining:
    """Around jit's call of `fun` on placeholders `inputs`: a ConcretizationError leaves it
    `explained`, with the same traceback (the user's line that needed the value)."""

    def __init__(self, fun: Callable[..., Any], inputs: Sequence[Any]) -> None:
        self.fun, self.inputs = fun, inputs

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        if isinstance(exc, ConcretizationError):
            raise explained(exc, self.fun, self.inputs).with_traceback(tb) from None
