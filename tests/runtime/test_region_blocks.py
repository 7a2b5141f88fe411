"""A region's blocks on one thread or shared with a worker (blocks.py): the same bits."""

from __future__ import annotations

import contextvars
import os
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import tf8
from tf8.runtime.engines.numpy import blocks
from tf8.runtime.engines.numpy.blocks import BlockRunner


def _runner(size, width):
    """A block function squaring x into out, returning each block's sum."""

    def block(lo, hi, x, out, t0):
        np.multiply(x[lo:hi], x[lo:hi], t0)
        out[lo:hi] = t0
        return float(np.add.reduce(t0))

    bounds = [(lo, min(lo + width, size)) for lo in range(0, size, width)]
    return BlockRunner(block, bounds, width, (np.dtype(np.float64),))


def test_split_and_serial_blocks_give_the_same_results_in_block_order():
    size, width = 10 * 4096 + 77, 4096  # a tail shorter than the width
    x = np.random.default_rng(0).normal(size=size)
    runner = _runner(size, width)
    out_serial, out_split = np.empty(size), np.empty(size)
    parts_serial = runner.serial((x, out_serial))
    parts_split = runner.split((x, out_split))
    assert parts_serial == parts_split and len(parts_split) == 11
    assert out_serial.tobytes() == out_split.tobytes() == (x * x).tobytes()


def test_an_error_in_a_block_reaches_the_caller_and_the_worker_stays_usable():
    def block(lo, hi, x, t0):
        if lo >= 4 * 1024:
            raise FloatingPointError("from the second half")
        return lo

    bounds = [(lo, lo + 1024) for lo in range(0, 8 * 1024, 1024)]
    runner = BlockRunner(block, bounds, 1024, (np.dtype(np.float64),))
    with pytest.raises(FloatingPointError, match="second half"):
        runner.split((np.zeros(8 * 1024),))
    ok = _runner(8192, 1024)
    assert len(ok.split((np.ones(8192), np.empty(8192)))) == 8


def test_large_regions_choose_between_the_variants_and_small_ones_stay_serial():
    from tf8.runtime.engines.adaptive import Faster

    if (os.cpu_count() or 1) > 1:
        assert isinstance(_runner(blocks.PARALLEL_MIN, 4096).run, Faster)
    small = _runner(4096 * 3, 4096)  # too few elements to split
    assert small.run == small.serial


def test_a_jitted_chain_is_bit_for_bit_op_by_op_whichever_variant_runs():
    n = blocks.PARALLEL_MIN + 12_345
    x = np.random.default_rng(1).uniform(0.0, 0.5, n)

    def chain(x):
        acc = x
        for _ in range(6):
            acc = acc * x + x
        return acc, tf8.numpy.sum(acc)

    want_acc = x
    for _ in range(6):
        want_acc = want_acc * x + x
    f = tf8.jit(chain)
    results = [f(x) for _ in range(12)]  # the optimised tier; Faster tries both variants
    for acc, total in results:
        assert np.asarray(acc).tobytes() == want_acc.tobytes()
        assert np.asarray(total).tobytes() == np.asarray(np.sum(want_acc)).tobytes()


def test_threads_sharing_one_program_get_their_own_scratch():
    n = blocks.PARALLEL_MIN + 1
    f = tf8.jit(lambda x: (x * 2.0 + 1.0) * x)
    inputs = [np.full(n, float(i)) for i in range(4)]
    f(inputs[0]), f(inputs[0])  # compiled and optimised before the threads start

    def work(i):
        want = (inputs[i] * 2.0 + 1.0) * inputs[i]
        return all(np.array_equal(np.asarray(f(inputs[i])), want) for _ in range(5))

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, range(4)))


def _recording_runner(size, width):
    """A runner whose blocks note the thread that computed them."""
    threads = {}

    def block(lo, hi, x, t0):
        threads[lo] = threading.get_ident()
        np.multiply(x[lo:hi], 2.0, t0[: hi - lo])
        return float(np.add.reduce(t0[: hi - lo]))

    bounds = [(lo, min(lo + width, size)) for lo in range(0, size, width)]
    return BlockRunner(block, bounds, width, (np.dtype(np.float64),)), threads


def test_the_caller_computes_every_block_when_the_worker_is_busy():
    """Blocks are dealt out as threads ask: a stalled worker costs the caller nothing."""
    runner, threads = _recording_runner(64 * 1024, 4096)
    x = np.arange(64 * 1024, dtype=np.float64)
    release, started = threading.Event(), threading.Event()

    class Stall:  # a job that holds the worker until released
        context = contextvars.copy_context()

        def help(self):
            started.set()
            release.wait(30)

    blocks._jobs().put(Stall())
    assert started.wait(30)
    try:
        parts = runner.split((x,))  # returns although the worker never takes a block
    finally:
        release.set()
    assert set(threads.values()) == {threading.get_ident()}
    assert parts == [float(np.add.reduce(x[lo:hi] * 2.0)) for lo, hi in runner.bounds]


def test_shared_blocks_are_each_computed_once_in_block_order():
    runner, threads = _recording_runner(blocks.PARALLEL_MIN + 999, 4096)
    x = np.random.default_rng(2).normal(size=blocks.PARALLEL_MIN + 999)
    for _ in range(20):
        threads.clear()
        assert runner.split((x,)) == runner.serial((x,))
        assert sorted(threads) == [lo for lo, _ in runner.bounds]


def test_the_worker_runs_in_the_callers_numpy_error_state():
    def block(lo, hi, x, t0):
        np.divide(x[lo:hi], 0.0, t0[: hi - lo])  # divide by zero in every block
        return lo

    bounds = [(lo, lo + 1024) for lo in range(0, 16 * 1024, 1024)]
    runner = BlockRunner(block, bounds, 1024, (np.dtype(np.float64),))
    x = np.ones(16 * 1024)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="ignore"):  # the engine's quiet state: silent in both threads
            for _ in range(10):
                assert runner.split((x,)) == [lo for lo, _ in bounds]
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        runner.split((x,))


def test_a_jitted_division_by_zero_is_quiet_in_both_variants():
    n = blocks.PARALLEL_MIN + 5
    f = tf8.jit(lambda x: (x / 0.0) * x)
    x = np.ones(n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = [np.asarray(f(x)) for _ in range(12)]  # Faster tries both variants
    assert all(np.isposinf(r).all() for r in results)


def test_scratch_is_lent_to_one_call_at_a_time_and_kept_up_to_a_bound(monkeypatch):
    scratch = blocks._Scratch()
    dtypes = (np.dtype(np.float64), np.dtype(np.int32))
    first = scratch.take(1000, dtypes)
    nested = scratch.take(1000, dtypes)  # while `first` is lent: other arrays
    assert not any(np.shares_memory(a, b) for a in first for b in nested)
    scratch.give_back(1000, dtypes, first)
    scratch.give_back(1000, dtypes, nested)  # one set per key is kept
    again = scratch.take(1000, dtypes)
    assert all(a is b for a, b in zip(again, first))
    monkeypatch.setattr(blocks, "SCRATCH_BYTES", 1000)
    scratch.give_back(1000, dtypes, again)  # 12 kB: over the bound, not kept
    assert scratch.kept == {} and scratch.bytes == 0


def test_one_usable_core_keeps_large_regions_serial(monkeypatch):
    if hasattr(os, "sched_getaffinity"):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    else:
        monkeypatch.setattr(os, "cpu_count", lambda: 1)
    runner = _runner(blocks.PARALLEL_MIN, 4096)
    assert runner.run == runner.serial


def test_the_worker_outlives_a_failure_outside_any_block(monkeypatch):
    """A scratch allocation failing on the worker reaches the caller; the worker keeps
    serving later calls (none is left waiting in its queue)."""
    real_take = blocks._Scratch.take
    failed = []

    def take(self, width, dtypes):
        if threading.current_thread().name == "tf8-blocks" and not failed:
            failed.append(True)
            raise MemoryError("scratch for the worker")
        return real_take(self, width, dtypes)

    monkeypatch.setattr(blocks._Scratch, "take", take)
    runner = _runner(64 * 4096, 4096)
    x = np.random.default_rng(3).normal(size=64 * 4096)
    for _ in range(50):  # until the worker has taken a job (it may be slow to start)
        try:
            runner.split((x, np.empty_like(x)))
        except MemoryError:
            break
    assert failed
    for _ in range(5):
        out = np.empty_like(x)
        assert runner.split((x, out)) == runner.serial((x, np.empty_like(x)))
        assert out.tobytes() == (x * x).tobytes()
    assert any(t.name == "tf8-blocks" and t.is_alive() for t in threading.enumerate())
    assert _drained(blocks._jobs())


def _drained(jobs) -> bool:
    """The worker empties its queue within a second (it may still be taking the last job)."""
    deadline = time.monotonic() + 1.0
    while jobs.qsize() and time.monotonic() < deadline:
        time.sleep(0.01)
    return jobs.qsize() == 0
