"""jit's caches: one traced signature (`Trace`), a fast-cache entry (`Entry`), and the caches of
one function (`Caches`), shared by every `jit(f)` of the same `f` with the same settings, as
JAX keys its cache on the function: `jit(f)(x)` written inside a loop traces once.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from tf8 import api, config
from tf8.compiler import CompiledGraph
from tf8.graph.caches import LRUCache
from tf8.runtime.engines import LAZY_ARRAYS
from tf8.tree import PyTreeDef


class Trace:
    """One traced signature: the compiled graph, its prepared program and how to feed it."""

    __slots__ = (
        "compiled",
        "run",
        "inputs",
        "out_tree",
        "weak",
        "single",
        "avals",
        "lazy",
        "direct",
        "weak_one",
    )

    def __init__(
        self,
        compiled: CompiledGraph | None,
        inputs: tuple[int, ...] | None,
        out_tree: PyTreeDef,
        weak: tuple[int, ...],
        engine: str | None = None,
        avals: tuple | None = None,
    ) -> None:
        self.compiled = compiled
        self.run = (
            no_outputs
            if compiled is None
            else api.runtime_for(engine).prepare(compiled).run_unchecked
        )
        self.inputs = inputs  # argument leaf of each program input; None: all leaves, in order
        self.out_tree = out_tree
        self.weak = weak  # the weakly typed outputs (JAX keeps an output's weak type)
        self.single = out_tree.num_nodes == 1 and out_tree.num_leaves == 1
        self.avals = avals  # the outputs' avals when every shape is static, else None
        if engine is None:  # the configured default, which the trace keeps for its life
            engine = config.tf8_default_engine
        self.lazy = engine in LAZY_ARRAYS  # a lazy engine's outputs stay lazy arrays
        self.direct = self.single and avals is not None and not self.lazy
        self.weak_one = weak != ()  # the one output is weak (on the direct path)


class Entry:
    """A fast-cache entry: a trace plus whether the raw leaves must be made arrays first."""

    __slots__ = ("trace", "convert")

    def __init__(self, trace: Trace, convert: bool) -> None:
        self.trace = trace
        self.convert = convert


def no_outputs(values: Sequence[Any]) -> list[np.ndarray]:
    return []


def effects_only(trace: Trace) -> Trace:
    """A trace whose program computes only effects' tokens (a jitted function that prints
    and returns None): it runs, handing back no values."""
    run = trace.run

    def effects(values: Sequence[Any]) -> list[np.ndarray]:
        run(values)
        return []

    trace.run = effects
    return trace


class Caches:
    """The caches of one jitted function: structure, raw leaf types -> entry; positional
    arrays' shapes, dtypes -> entry; shapes and dtypes -> trace. Each is LRU with its own lock."""

    __slots__ = ("entries", "array_entries", "traces", "trace_count", "__weakref__")

    def __init__(self, name: str) -> None:
        self.entries = LRUCache("jit", f"jit entries of {name}")
        self.array_entries = LRUCache("jit", f"jit array entries of {name}")
        self.traces = LRUCache("jit", f"jit traces of {name}")
        self.trace_count = 0

    def clear(self) -> None:
        self.entries.clear()
        self.array_entries.clear()
        self.traces.clear()


# function -> jit settings -> its caches; an entry goes when the function does
_SHARED: weakref.WeakKeyDictionary[Callable[..., Any], dict[Hashable, Caches]] = (
    weakref.WeakKeyDictionary()
)


def caches_for(fun: Callable[..., Any], settings: Hashable, name: str) -> Caches:
    """The caches `jit(fun)` with these settings shares with every other such `jit(fun)`
    (a function that cannot be weakly referenced or hashed gets caches of its own)."""
    try:
        per_function = _SHARED.get(fun)
        if per_function is None:
            per_function = _SHARED.setdefault(fun, {})
    except TypeError:
        return Caches(name)
    caches = per_function.get(settings)
    if caches is None:
        caches = per_function.setdefault(settings, Caches(name))
    return caches
