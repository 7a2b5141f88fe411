"""The scopes a transform opens around the code it traces: `transform_scope` (jit, grad,
vmap, ...), `recording` (ops recorded, never computed), `value_scope` (values computed while
tracing, kept by key) and `linear_scope` (ops on tangents tagged Linearized).

Each sets tf8.traced's context variables for its extent and restores them after, so two
threads (or asyncio tasks) tracing at once never see each other's transforms; TracedTensor
and tf8.lax.core read those variables.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping

from tf8.graph import ValueKey
from tf8.traced import (
    _differentiated,
    _linear,
    _refuse_tape,
    _symbolic,
    _transform_depth,
    _values,
)

__all__ = ["linear_scope", "recording", "transform_scope", "value_scope"]


@contextlib.contextmanager
def transform_scope(
    differentiated: Mapping[ValueKey, str] | None = None, symbolic: bool = False
) -> Iterator[None]:
    """Marks code running inside a transform (jit, grad, ...): values are not cut to leaves.
    Values depending on the `differentiated` keys (key -> what they are, for messages), or on
    an enclosing transform's, refuse conversion to Python numbers and numpy arrays. Under a
    `symbolic` transform (jit's trace) ops are only recorded, never computed."""
    _refuse_tape("a nested transform")
    depth = _transform_depth.set(_transform_depth.get() + 1)
    outer = _differentiated.get()
    if differentiated and outer is not None:
        # Nested: the inner arguments join the enclosing map for good, so the inner
        # transform's later work (its jvp, its transpose) is still recorded, not computed as
        # constants, where the outer transform differentiates through it.
        outer.update(differentiated)
        diff = _differentiated.set(outer)
    elif differentiated:
        diff = _differentiated.set(dict(differentiated))
    else:
        diff = _differentiated.set(outer)
    sym = _symbolic.set(True) if symbolic else None
    try:
        yield
    finally:
        if sym is not None:
            _symbolic.reset(sym)
        _differentiated.reset(diff)
        _transform_depth.reset(depth)


@contextlib.contextmanager
def recording() -> Iterator[None]:
    """Record ops on concrete values as a graph instead of computing them, as jit does with
    its trace: for building programs by hand (GraphCompiler().compile, .pretty())."""
    _refuse_tape("tf8.recording()")
    token = _symbolic.set(True)
    try:
        yield
    finally:
        _symbolic.reset(token)


@contextlib.contextmanager
def value_scope() -> Iterator[dict]:
    """While open, values computed for recorded ops are kept by key (shared with an enclosing
    transform's), so a transform walking the graph reads them instead of evaluating again."""
    table = _values.get()
    if table is not None:
        yield table
        return
    table = {}
    token = _values.set(table)
    try:
        yield table
    finally:
        _values.reset(token)


@contextlib.contextmanager
def linear_scope(linear_keys: Iterable[ValueKey]) -> Iterator[set]:
    """While open, ops on the `linear_keys` values (and on their results) are tagged
    Linearized; yields the growing key set, so the transform can add keys as it goes."""
    keys = set(linear_keys)
    token = _linear.set(keys)
    try:
        yield keys
    finally:
        _linear.reset(token)
