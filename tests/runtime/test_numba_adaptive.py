"""The numba engine's serial/parallel choice (adaptive.py): a large elementwise loop is
compiled both ways and each call runs the variant that has been faster recently."""

from __future__ import annotations

import time

import numpy as np
import pytest

import tf8
from tf8.api import runtime_for

pytest.importorskip("numba", reason="the numba engine needs its extra: pip install numba")

from tf8.runtime.engines.adaptive import Faster  # noqa: E402
from tf8.runtime.engines.numba import TOLERANCE  # noqa: E402
from tf8.runtime.engines.numba.codegen import PARALLEL_MIN  # noqa: E402


def _slow(label):
    def run():
        time.sleep(0.003)
        return label

    return run


@pytest.mark.parametrize("slow", ["serial", "parallel"])
def test_faster_runs_the_faster_variant_and_seldom_tries_the_slower(slow):
    variants = {"serial": lambda: "serial", "parallel": lambda: "parallel"}
    variants[slow] = _slow(slow)
    faster = Faster(variants["serial"], variants["parallel"])
    results = [faster() for _ in range(80)]
    fast = "parallel" if slow == "serial" else "serial"
    assert results.count(fast) >= 75, faster  # the slower one: tried once, then rarely
    assert results.count(slow) >= 1  # but it was measured
    assert faster.times[faster.best] < faster.times[1 - faster.best]
    assert "ms" in repr(faster)


def test_faster_switches_when_the_other_variant_becomes_faster():
    state = {"serial_slow": False}

    def serial():
        if state["serial_slow"]:
            time.sleep(0.003)
        return "serial"

    faster = Faster(serial, _slow("parallel"))
    for _ in range(10):
        faster()
    assert faster.best == 0
    state["serial_slow"] = True  # the load changed: serial is now as slow as parallel...
    results = [faster() for _ in range(400)]
    assert "parallel" in results  # ...and the parallel variant is tried again in time
    assert faster.calls[1] >= 2


def test_a_large_elementwise_loop_is_compiled_serial_and_parallel_with_equal_results():
    def f(x):
        return (x * x + 1.0) * x - x / 3.0

    x = np.random.default_rng(0).uniform(-1.0, 1.0, PARALLEL_MIN)
    jitted = tf8.jit(f, engine="numba")
    jitted(x)
    got = jitted(x)
    (region,) = runtime_for("numba").prepare(jitted.lower(x)).prepared.guest_regions
    assert isinstance(region.function, Faster), region.description
    assert "prange(" in region.source and "parallel=True" in region.source
    serial, parallel = region.function.variants
    results = []
    for variant in (serial, parallel):
        region.function.variants = (variant, variant)  # this variant, whichever is chosen
        results.append(jitted(x))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-15)
    np.testing.assert_allclose(got, f(x), rtol=TOLERANCE["float64"])
