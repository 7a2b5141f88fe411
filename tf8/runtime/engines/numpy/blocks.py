"""Running a region's blocks: on the calling thread, or shared between it and one worker.

A region's block function (regions.py) computes every op of the region on elements
[lo, hi) of its flat operands, into block-sized scratch arrays. numpy releases the GIL inside
each ufunc loop, so two threads taking blocks from one shared queue, each with its own
scratch, run the region on two cores. The blocks are dealt out as the threads ask for them,
not in fixed halves: on a loaded machine the worker waits for a core, and the calling thread
then computes the blocks the worker has not taken instead of waiting for it. With both
threads on one core (the 41-op chain over 10^6 float64, median of 30), fixed halves took
1.32x one thread's time and shared blocks 1.10x. Whichever variant has been faster recently
runs (`Faster`, tf8/runtime/engines/adaptive.py).

Each block is computed by the same function on the same elements whichever thread runs
it, and a fused sum's partial sums are stored by block index: the results are bit for bit
the same either way. The worker runs each call in a copy of the caller's context (numpy's
error state lives there: the engine's quiet errstate holds in both threads).

Scratch arrays are kept per thread between calls (`_Scratch`, at most SCRATCH_BYTES each):
the same cache-resident buffers serve every call, with no allocation or page faults.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from queue import SimpleQueue
from typing import Any

import numpy as np

from tf8.runtime.engines.adaptive import Faster

PARALLEL_MIN = 1 << 18  # elements: below this a region's blocks are too few to share
ALIGN = 64  # bytes: scratch arrays start on a cache line
SCRATCH_BYTES = 16 << 20  # per thread: scratch kept between calls (a gradient's is ~6 MB)

_worker_lock = threading.Lock()
_worker: tuple[int, SimpleQueue] | None = None  # (the process that started it, its jobs)


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


class _Scratch(threading.local):
    """This thread's scratch arrays by (width, dtypes), lent out for one call at a time
    (`take` removes them, so a nested call on the same thread gets its own)."""

    def __init__(self) -> None:
        self.kept: dict[tuple, list[np.ndarray]] = {}
        self.bytes = 0

    def take(self, width: int, dtypes: tuple[np.dtype, ...]) -> list[np.ndarray]:
        temps = self.kept.pop((width, dtypes), None)
        if temps is None:
            return scratch_arrays(width, dtypes)
        self.bytes -= sum(t.nbytes for t in temps)
        return temps

    def give_back(self, width: int, dtypes: tuple[np.dtype, ...], temps: list) -> None:
        size = sum(t.nbytes for t in temps)
        if self.bytes + size <= SCRATCH_BYTES and (width, dtypes) not in self.kept:
            self.kept[(width, dtypes)] = temps
            self.bytes += size


_scratch = _Scratch()


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _jobs() -> SimpleQueue:
    """The worker's job queue; the worker thread is started on first use (again in a forked
    child, where the parent's thread does not exist)."""
    global _worker
    with _worker_lock:
        if _worker is None or _worker[0] != os.getpid():
            jobs: SimpleQueue = SimpleQueue()
            threading.Thread(target=_serve, args=(jobs,), name="tf8-blocks", daemon=True).start()
            _worker = (os.getpid(), jobs)
        return _worker[1]


def _serve(jobs: SimpleQueue) -> None:
    while True:
        job = jobs.get()
        try:
            job.context.run(job.help)  # (`help` hands its errors to the caller)
        except BaseException:  # noqa: BLE001, S110 - the worker must outlive any one job
            pass
        del job  # not kept alive (with its operands) until the next job comes


class _Job:
    """One shared call: the blocks not yet taken, and the results by block index. The worker
    takes and computes each block holding `lock`; the caller takes blocks without it, then
    acquires it once to wait for the worker's block in flight."""

    __slots__ = ("runner", "fixed", "todo", "results", "lock", "error", "context")

    def __init__(self, runner: BlockRunner, fixed: tuple) -> None:
        self.runner, self.fixed = runner, fixed
        self.todo: Iterator[tuple[int, tuple[int, int]]] = iter(enumerate(runner.bounds))
        self.results: list[Any] = [None] * len(runner.bounds)
        self.lock = threading.Lock()
        self.error: BaseException | None = None
        self.context = contextvars.copy_context()

    def help(self) -> None:
        """The worker's part: blocks until none are left (or one raised)."""
        runner, fixed, results, todo, lock = (
            self.runner, self.fixed, self.results, self.todo, self.lock,
        )  # fmt: skip
        temps = None
        try:
            temps = _scratch.take(runner.width, runner.dtypes)
            while self.error is None:
                with lock:
                    item = next(todo, None)
                    if item is None:
                        return
                    index, (lo, hi) = item
                    results[index] = runner.compute(lo, hi, fixed, temps)
        except BaseException as error:  # handed to the caller, which raises it
            self.error = error
        finally:
            if temps is not None:
                _scratch.give_back(runner.width, runner.dtypes, temps)


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
        two = size >= PARALLEL_MIN and len(bounds) >= 4 and usable_cores() > 1
        self.run = Faster(self.serial, self.split) if two else self.serial
        if two:
            _jobs()  # the worker starts now, not inside the first timed call

    def __call__(self, fixed: tuple) -> list[Any]:
        return self.run(fixed)

    def compute(self, lo: int, hi: int, fixed: tuple, temps: list[np.ndarray]) -> Any:
        """One block, into `temps` (a shorter block — the tail, a sum's segment — into
        their prefixes)."""
        if hi - lo == self.width:
            return self.block(lo, hi, *fixed, *temps)
        return self.block(lo, hi, *fixed, *[t[: hi - lo] for t in temps])

    def serial(self, fixed: tuple) -> list[Any]:
        temps = _scratch.take(self.width, self.dtypes)
        try:
            return [self.compute(lo, hi, fixed, temps) for lo, hi in self.bounds]
        finally:
            _scratch.give_back(self.width, self.dtypes, temps)

    def split(self, fixed: tuple) -> list[Any]:
        """The blocks shared with the worker thread: each thread takes the next block not
        yet taken, so neither waits for the other except for its last block."""
        job = _Job(self, fixed)
        _jobs().put(job)
        temps = _scratch.take(self.width, self.dtypes)
        compute, results = self.compute, job.results
        try:
            for index, (lo, hi) in job.todo:
                results[index] = compute(lo, hi, fixed, temps)
        finally:
            for _ in job.todo:  # after an error here: none left for the worker
                pass
            with job.lock:  # the worker's block in flight is done; it takes no more
                pass
            _scratch.give_back(self.width, self.dtypes, temps)
        if job.error is not None:
            raise job.error
        return results

    def __repr__(self) -> str:
        return f"<BlockRunner {len(self.bounds)} blocks of {self.width}: {self.run!r}>"
