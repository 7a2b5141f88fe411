"""The frames a transform pushes around the code it traces (tf8.ops.frames):
`transform_scope` (jit, grad, vmap, ...), `recording` (ops recorded, never computed),
`value_scope` (values computed while tracing, kept by key) and `linear_scope` (ops on tangents
tagged Linearized).

Each pushes a frame for its extent and pops it after, so two threads (or asyncio tasks)
tracing at once never see each other's transforms; TracedTensor and tf8.lax.core read it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping

from tf8.graph import ValueKey
from tf8.ops.frames import Frame, current, frame_var
from tf8.traced import _refuse_tape

from .core import TransformFrame

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
    outer = current()
    changes: dict = {"depth": outer.depth + 1}
    if differentiated:
        changes["levels"] = (*outer.levels, dict(differentiated))
    if symbolic:
        changes["symbolic"] = True
    token = frame_var.set(outer.child(TransformFrame, **changes))
    try:
        yield
    finally:
        frame_var.reset(token)


@contextlib.contextmanager
def recording() -> Iterator[None]:
    """Record ops on concrete values as a graph instead of computing them, as jit does with
    its trace: for building programs by hand (GraphCompiler().compile, .pretty())."""
    _refuse_tape("tf8.recording()")
    token = frame_var.set(current().child(TransformFrame, symbolic=True))
    try:
        yield
    finally:
        frame_var.reset(token)


@contextlib.contextmanager
def value_scope() -> Iterator[dict]:
    """While open, values computed for recorded ops are kept by key (shared with an enclosing
    transform's), so a transform walking the graph reads them instead of evaluating again."""
    outer = current()
    if outer.values is not None:
        yield outer.values
        return
    table: dict = {}
    token = frame_var.set(outer.child(_kind(outer), values=table))
    try:
        yield table
    finally:
        frame_var.reset(token)


@contextlib.contextmanager
def linear_scope(linear_keys: Iterable[ValueKey]) -> Iterator[set]:
    """While open, ops on the `linear_keys` values (and on their results) are tagged
    Linearized; yields the growing key set, so the transform can add keys as it goes."""
    keys = set(linear_keys)
    outer = current()
    token = frame_var.set(outer.child(_kind(outer), linear=keys))
    try:
        yield keys
    finally:
        frame_var.reset(token)


def _kind(outer: Frame) -> type[Frame]:
    """The class of a frame that changes only state: the outer frame's (a transform's
    outside every transform)."""
    return TransformFrame if type(outer) is Frame else type(outer)
