"""Faster (tf8/runtime/engines/adaptive.py): which variant runs, and how soon it re-probes."""

from __future__ import annotations

import itertools

from tf8.runtime.engines import adaptive
from tf8.runtime.engines.adaptive import PROBES, RETRY, Faster


def _clocked(monkeypatch, serial_times, parallel_times):
    """A Faster whose variants take the given times (ms, repeating) on a fake clock."""
    clock = [0.0]
    monkeypatch.setattr(adaptive, "perf_counter", lambda: clock[0])

    def variant(name, times):
        calls = itertools.count()

        def run():
            clock[0] += times[next(calls) % len(times)] / 1e3
            return name

        return run

    return Faster(variant("serial", serial_times), variant("parallel", parallel_times))


def test_a_variant_slowed_once_by_a_spike_is_probed_again_soon(monkeypatch):
    faster = _clocked(monkeypatch, [5.0], [50.0] + [0.5] * 99)  # its first call: a spike
    results = [faster() for _ in range(PROBES * RETRY + 6)]
    assert faster.best == 1, faster  # ten times slower once, yet it is tried again in time
    assert results[-4:] == ["parallel"] * 4


def test_after_its_probes_a_slow_variant_is_tried_rarely(monkeypatch):
    faster = _clocked(monkeypatch, [0.01], [3.0])
    results = [faster() for _ in range(200)]
    assert results.count("parallel") <= PROBES + 2, faster
    assert faster.calls[1] >= PROBES


def test_a_variant_fast_now_and_then_but_slow_mostly_is_not_preferred(monkeypatch):
    """On a loaded machine two threads sometimes both get a core: a lucky minimum must not
    outweigh a slow median (a running minimum ran the parallel variant 66 times here)."""
    faster = _clocked(monkeypatch, [3.0], [0.5, 9.0, 9.0])
    results = [faster() for _ in range(300)]
    assert results.count("parallel") <= 20, faster


def test_a_variant_faster_mostly_but_slowed_now_and_then_is_preferred(monkeypatch):
    faster = _clocked(monkeypatch, [7.0], [4.0, 4.5, 4.0, 30.0, 4.2])
    results = [faster() for _ in range(300)]
    assert results.count("parallel") >= 260, faster  # serial: re-tried now and then
