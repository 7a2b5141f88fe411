"""Which arguments of a jitted function are static, and how to split a call on them.

Static arguments are Python values baked into a trace (and part of jit's cache key, so they
must be hashable); every other argument is dynamic data that becomes a placeholder.
`static_argnums` and `static_argnames` each imply the other for parameters that can be
passed either way, as in JAX.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from tf8.errors import TracingError

Statics = tuple[tuple[tuple[Any, ...], ...], tuple[tuple[Any, ...], ...]]


class StaticValue:
    """A static argument as part of jit's cache key: two are equal when they trace alike.

    `==` is not enough: 2 == 2.0 and 0.0 == -0.0, yet each bakes a different constant into
    the trace (an int or a float; a zero whose sign `x * -0.0` keeps), and nan != nan would
    retrace on every call. So the key is the value's type with floats read bit for bit.
    """

    __slots__ = ("value", "_token")

    def __init__(self, value: Any) -> None:
        self.value = value
        self._token = _token(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StaticValue) and self._token == other._token

    def __hash__(self) -> int:
        return hash(self._token)  # TypeError for an unhashable value, as jit expects

    def __repr__(self) -> str:
        return f"StaticValue({self.value!r})"


def _token(value: Any) -> Any:
    """`value`'s identity as a trace constant: its type, floats as their exact bits."""
    if isinstance(value, (float, np.floating)):
        return type(value), float(value).hex()
    if isinstance(value, (complex, np.complexfloating)):
        return type(value), float(value.real).hex(), float(value.imag).hex()
    if type(value) is tuple:
        return tuple, tuple(_token(v) for v in value)
    return type(value), value


class StaticArgs:
    """The static positions and names of one function, checked against its signature."""

    __slots__ = ("nums", "names", "function")

    def __init__(
        self,
        fun: Callable[..., Any],
        argnums: int | Iterable[int] = (),
        argnames: str | Iterable[str] = (),
    ) -> None:
        self.function = getattr(fun, "__qualname__", None) or repr(fun)
        self.nums, self.names = _resolve(fun, self.function, argnums, argnames)

    def __bool__(self) -> bool:
        return bool(self.nums or self.names)

    def split(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Statics]:
        """((dynamic args, dynamic kwargs), statics): statics is the cache-key part, each
        value wrapped as a `StaticValue` (2 and 2.0, 0.0 and -0.0 trace differently)."""
        nums, names = self.nums, self.names
        dynamic_args = tuple(a for i, a in enumerate(args) if i not in nums)
        positional = tuple((i, StaticValue(args[i])) for i in sorted(nums) if i < len(args))
        dynamic_kwargs = {k: v for k, v in kwargs.items() if k not in names}
        keyword = tuple(sorted((k, StaticValue(v)) for k, v in kwargs.items() if k in names))
        return (dynamic_args, dynamic_kwargs), (positional, keyword)

    @staticmethod
    def rebuild(dynamic: Any, statics: Statics) -> tuple[list[Any], dict[str, Any]]:
        """The call's (args, kwargs) from `split`'s parts (dynamic ones now traced)."""
        (dynamic_args, dynamic_kwargs), (positional, keyword) = dynamic, statics
        args = list(dynamic_args)
        for i, static in positional:
            args.insert(i, static.value)
        return args, {**dynamic_kwargs, **{k: static.value for k, static in keyword}}

    def unhashable_error(self, statics: Statics) -> TracingError:
        """The error for a static value that cannot key the cache, naming the argument."""
        positional, keyword = statics
        named = [(f"{i}", s.value) for i, s in positional]
        named += [(f"{k!r}", s.value) for k, s in keyword]
        for what, value in named:
            try:
                hash(value)
            except TypeError:
                return TracingError(
                    f"static argument {what} of {self.function} has unhashable type "
                    f"{type(value).__name__} ({value!r:.60}): static values key the jit cache, "
                    "so they must be hashable (pass a tuple instead of a list or array, or make "
                    "the argument dynamic)"
                )
        return TracingError(f"static arguments of {self.function} are not hashable")

    def dynamic_names(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[str, Any]]:
        """(name, value) of each dynamic argument in flattening order (positional, then
        keyword by sorted name), for error messages."""
        named = [(str(i), a) for i, a in enumerate(args) if i not in self.nums]
        return named + [(repr(k), v) for k, v in sorted(kwargs.items()) if k not in self.names]


def _resolve(
    fun: Callable[..., Any],
    function: str,
    argnums: int | Iterable[int],
    argnames: str | Iterable[str],
) -> tuple[frozenset[int], frozenset[str]]:
    try:
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        names = (argnames,) if isinstance(argnames, str) else tuple(argnames)
    except TypeError:
        raise TracingError(
            "static_argnums must be an int or ints and static_argnames a string or strings, "
            f"got static_argnums={argnums!r}, static_argnames={argnames!r}"
        ) from None
    for n in nums:
        if not isinstance(n, int) or isinstance(n, bool):
            raise TracingError(f"static_argnums must be ints, got {n!r}")
    for s in names:
        if not isinstance(s, str):
            raise TracingError(f"static_argnames must be strings, got {s!r}")
    if not nums and not names:  # nothing to check against the signature (most jits)
        return frozenset(), frozenset()
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):  # builtins without a signature: trust the caller
        if any(n < 0 for n in nums):
            raise TracingError("negative static_argnums need a function with a signature") from None
        return frozenset(nums), frozenset(names)
    kinds = inspect.Parameter
    positional = [
        p for p in params if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)
    ]
    var_positional = any(p.kind is kinds.VAR_POSITIONAL for p in params)
    var_keyword = any(p.kind is kinds.VAR_KEYWORD for p in params)
    resolved: set[int] = set()
    for n in nums:
        index = n + len(positional) if n < 0 and not var_positional else n
        if index < 0 or (index >= len(positional) and not var_positional):
            raise TracingError(
                f"static_argnums={nums}: {function} takes {len(positional)} positional "
                f"argument(s) {[p.name for p in positional]}, so argument {n} does not exist"
            )
        resolved.add(index)
    by_name = {p.name: i for i, p in enumerate(positional)}
    keyword_names = {p.name for p in params if p.kind is not kinds.POSITIONAL_ONLY}
    static_names = set(names)
    for s in names:
        if s not in keyword_names and not var_keyword:
            raise TracingError(
                f"static_argnames={names}: {function} has no parameter {s!r} that can be "
                f"passed by keyword (parameters: {[p.name for p in params]})"
            )
        if s in by_name:
            resolved.add(by_name[s])
    for i in resolved:
        if i < len(positional) and positional[i].kind is kinds.POSITIONAL_OR_KEYWORD:
            static_names.add(positional[i].name)
    return frozenset(resolved), frozenset(static_names)
