"""A region's blocks on one thread or split with a worker (blocks.py): the same bits."""

from __future__ import annotations

import os
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
