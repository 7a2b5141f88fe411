"""Pausing Python's cyclic garbage collector while a large graph is built.

Tracing, transforming and compiling a program allocate many container objects (keys,
tensors, tuples) that all stay alive until the program is built and that free by reference
counting alone (keys form no cycles). The cyclic collector can free none of them, yet each of
its full collections walks every live object, and as the graph grows they come round again
and again: they took a quarter of a 5 000-op `jit(grad)` first call, and made it grow faster
than the op count. `paused()` turns automatic collection off for its duration (nested and
concurrent uses share one pause) and back on afterwards if it was on; cycles made meanwhile
are collected later as usual.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

__all__ = ["paused"]

_lock = threading.Lock()
_holders = 0  # how many `paused()` blocks are running (all threads)
_resume = False  # whether the first of them found automatic collection on


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Automatic cyclic garbage collection off while the block runs (see the module doc)."""
    global _holders, _resume
    with _lock:
        if _holders == 0:
            _resume = gc.isenabled()
            if _resume:
                gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _resume:
                gc.enable()
