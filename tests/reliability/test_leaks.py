"""No leaks: building and dropping many small traced graphs, and many jitted functions with
distinct shapes, leaves memory flat; dropping a jitted function frees its programs.

Bounds (after a warm-up; the bounded caches are emptied with `tf8.clear_caches()` before
each measurement, their own bounds being tested in test_cache_bounds.py):
- traced Python memory (tracemalloc) grows by less than 256 KiB over 3 000 graphs and over
  1 000 jitted functions — a leak of one small object per graph or function would exceed it;
- the process's RSS grows by less than 32 MiB over GRAPHS more graphs: 100 000 under the
  `long` hypothesis profile (TF8_HYPOTHESIS_PROFILE=long), 20 000 under `ci` (about 1.5 s).
"""

from __future__ import annotations

import gc
import os
import resource
import tracemalloc
import weakref

import numpy as np

import tf8
import tf8.numpy as tnp
from tf8 import CompiledGraph, Prepared, api

LONG = os.environ.get("TF8_HYPOTHESIS_PROFILE") == "long"
GRAPHS = 100_000 if LONG else 20_000
TRACED_BOUND = 256 * 1024
RSS_BOUND = 32 * 1024 * 1024


def _graphs(count: int, start: int = 0) -> None:
    """Record and drop `count` three-op graphs on fresh constants."""
    for i in range(start, start + count):
        with tf8.recording():
            x = tf8.tensor(np.full(3, float(i)))
            y = tnp.sin(x) * 2.0 + x
        del x, y


def _jits(count: int, start: int) -> None:
    """Make, call and drop `count` jitted functions, each on arrays of a new length."""
    for n in range(start, start + count):
        f = tf8.jit(lambda v: tnp.sin(v) * 2.0 + 1.0)
        assert f(np.zeros(n)).shape == (n,)


def _traced_growth(work) -> int:
    tf8.clear_caches()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        work()
        tf8.clear_caches()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def _live(cls: type) -> int:
    return sum(1 for o in gc.get_objects() if type(o) is cls)


def _rss() -> int:
    """The resident set size now (Linux /proc), or the peak where /proc is missing."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def test_dropped_traced_graphs_leave_memory_flat():
    _graphs(2_000)  # warm-up: plans, shared primitives, avals
    growth = _traced_growth(lambda: _graphs(3_000, start=2_000))
    assert growth < TRACED_BOUND, f"{growth} bytes kept by 3000 dropped graphs"
    gc.collect()
    rss = _rss()
    _graphs(GRAPHS, start=5_000)
    gc.collect()
    grown = _rss() - rss
    assert grown < RSS_BOUND, f"RSS grew by {grown / 2**20:.1f} MiB over {GRAPHS} graphs"


def test_a_thousand_jitted_functions_with_distinct_shapes_leave_memory_flat(cache_sizes):
    cache_sizes(prepare=16)
    _jits(200, start=1)
    growth = _traced_growth(lambda: _jits(1_000, start=201))
    assert growth < TRACED_BOUND, f"{growth} bytes kept by 1000 dropped jitted functions"
    _jits(100, start=2_000)
    assert len(api.default_runtime.cache_stats) <= 16


def test_dropping_a_jitted_function_frees_its_programs():
    f = tf8.jit(lambda v: tnp.cos(v) + 1.0)
    f(np.ones(3))
    f(np.ones((2, 2)))
    traces = list(f._traces._data.values())
    programs = [weakref.ref(t.run.__self__.prepared) for t in traces]
    alive = weakref.ref(f)
    before = _live(CompiledGraph), _live(Prepared)  # (neither kind takes weak references)
    del f, traces
    gc.collect()
    assert alive() is None
    assert (_live(CompiledGraph), _live(Prepared)) == (before[0] - 2, before[1] - 2)
    # the runtime's cache shares a PreparedProgram between equal programs: it stays there,
    # bounded by tf8_prepare_cache_size, until evicted or cleared
    api.default_runtime.clear_cache()
    gc.collect()
    assert all(r() is None for r in programs)
