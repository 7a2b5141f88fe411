"""Faster (tf8/runtime/engines/adaptive.py): which variant runs, and how soon it re-probes."""

from __future__ import annotations

import time

from tf8.runtime.engines.adaptive import PROBES, RETRY, Faster


def test_a_variant_slowed_once_by_a_spike_is_probed_again_soon():
    calls = {"parallel": 0}

    def serial():
        time.sleep(0.005)
        return "serial"

    def parallel():
        calls["parallel"] += 1
        time.sleep(0.05 if calls["parallel"] == 1 else 0.0005)  # its first call: a spike
        return "parallel"

    faster = Faster(serial, parallel)
    results = [faster() for _ in range(PROBES * RETRY + 6)]
    assert faster.best == 1, faster  # ten times slower once, yet it is tried again in time
    assert results[-4:] == ["parallel"] * 4


def test_after_its_probes_a_slow_variant_is_tried_rarely():
    def serial():
        return "serial"

    def parallel():
        time.sleep(0.003)
        return "parallel"

    faster = Faster(serial, parallel)
    results = [faster() for _ in range(200)]
    assert results.count("parallel") <= PROBES + 2, faster
    assert faster.calls[1] >= PROBES
