"""Running a region's blocks: on the calling thread, or split between it and one worker.

A region's block function (regions.py) computes every op of the region on elements
[lo, hi) of its flat operands, into block-sized scratch arrays. numpy releases the GIL inside
each ufunc loop, so two threads walking different halves of the blocks, each with its own
scratch, run the region on two cores: measured 13.8 ms → 7.7 ms for the 41-op chain over
10^6 float64 on the idle 2-core benchmark machine. On a loaded machine the second thread
waits for a core and the split can be slower, so `Faster` (tf8/runtime/engines/adaptive.py)
runs whichever variant has been faster recently.

Each block is computed by the same function on the same elements whichever thread runs
it, and a fused sum's partial sums come back in block order: the results are bit for bit
the same either way.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from tf8.runtime.engines.adaptive import Faster

PARALLEL_MIN = 1 << 18  # elements: below this a region's blocks are too few to split
ALIGN = 64  # bytes: scratch arrays start on a cache line

_pool_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None  # (the process that made it, the pool)


def _worker() -> ThreadPoolExecutor:
    """The one worker thread, made on first use (again in a forked child, where the
    parent's thread does not exist)."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="tf8-blocks"))
        return _pool[1]


def scratch_arrays(size: int, dtypes: tuple[np.dtype, ...]) -> list[np.ndarray]:
    """Uninitialised 1-D arrays of `size` elements, one per dtype, carved from one allocation,
    each starting on a 64-byte boundary (a cache line: SIMD loads and stores never straddle
    two: misaligned blocks measured up to 10-15% slower in a loop micro-benchmark)."""
    spans = [-(-size * np.dtype(d).itemsize // ALIGN) * ALIGN for d in dtypes]
    raw = np.empty(sum(spans) + ALIGN, np.uint8)
    start = -raw.ctypes.data % ALIGN
    arrays = []
    for dtype, span in zip(dtypes, spans):
        arrays.append(raw[start : start + size * np.dtype(dtype).itemsize].view(dtype))
        start += span
    return arrays


class BlockRunner:
    """Calls a region's block function on each of `bounds` ((lo, hi) element ranges),
    returning the list of its results (a fused sum's partial sums, or Nones)."""

    __slots__ = ("block", "bounds", "width", "dtypes", "run")

    def __init__(
        self,
        block: Callable[..., Any],
        bounds: Sequence[tuple[int, int]],
        width: int,
        dtypes: tuple[np.dtype, ...],
    ) -> None:
        self.block, self.bounds, self.width, self.dtypes = block, tuple(bounds), width, dtypes
        size = bounds[-1][1] - bounds[0][0] if bounds else 0
        two = size >= PARALLEL_MIN and len(bounds) >= 4 and (os.cpu_count() or 1) > 1
        self.run = Faster(self.serial, self.split) if two else self.serial

    def __call__(self, fixed: tuple) -> list[Any]:
        return self.run(fixed)

    def serial(self, fixed: tuple) -> list[Any]:
        return self._blocks(self.bounds, fixed)

    def split(self, fixed: tuple) -> list[Any]:
        """The second half of the blocks on the worker thread, the first half here."""
        half = len(self.bounds) // 2
        later = _worker().submit(self._blocks, self.bounds[half:], fixed)
        try:
            first = self._blocks(self.bounds[:half], fixed)
        finally:
            rest = later.result()  # waited for even if this half raised
        return first + rest

    def _blocks(self, bounds: Sequence[tuple[int, int]], fixed: tuple) -> list[Any]:
        temps = scratch_arrays(self.width, self.dtypes)  # per call and thread: never shared
        block, width, results = self.block, self.width, []
        for lo, hi in bounds:
            if hi - lo == width:
                results.append(block(lo, hi, *fixed, *temps))
            else:  # a shorter block (the tail, a sum's segment) reads its temps' prefix
                results.append(block(lo, hi, *fixed, *[t[: hi - lo] for t in temps]))
        return results

    def __repr__(self) -> str:
        return f"<BlockRunner {len(self.bounds)} blocks of {self.width}: {self.run!r}>"
