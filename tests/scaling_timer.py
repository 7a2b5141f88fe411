"""Timing checks that hold on a loaded machine (shared by the suite's linear-time tests).

A scaling test times a small and a large size and asserts the ratio stays linear. On a busy
2-core machine one measurement can be slowed many times over by another process, so each
size is measured as the best of `repeats` runs, small and large interleaved (a burst of load
hits both), each run at least `min_seconds` long (a timer tick or a scheduler slice is then
small beside it). The bound allows `margin` (>= 3) times the expected ratio, and a failed
comparison is measured again up to `attempts` times before the test fails: a real quadratic
slows down every attempt, a transient load only one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable


def best_seconds(measure: Callable[[int], float], n: int, min_seconds: float) -> float:
    """Seconds per call of `measure(n)` (which returns the seconds it timed), averaged over
    as many calls as fill `min_seconds`."""
    calls, total = 0, 0.0
    while total < min_seconds or calls == 0:
        total += measure(n)
        calls += 1
    return total / calls


def wall(run: Callable[[int], object]) -> Callable[[int], float]:
    """`run(n)` as a `measure`: the wall time of the whole call."""

    def measure(n: int) -> float:
        start = time.perf_counter()
        run(n)
        return time.perf_counter() - start

    return measure


def assert_linear(
    measure: Callable[[int], float],
    small: int,
    large: int,
    margin: float = 3.0,
    repeats: int = 3,
    attempts: int = 3,
    min_seconds: float = 0.02,
    slack: float = 0.0,
) -> tuple[float, float]:
    """Assert `measure(large)` < margin * (large / small) * `measure(small)` + slack.

    `measure(n)` returns the seconds of the part to time. Returns the best (small, large)."""
    assert margin >= 3.0, "keep a margin of at least 3x the expected ratio"
    bound = margin * large / small
    seen = []
    for _ in range(attempts):
        best_small = best_large = math.inf
        for _ in range(repeats):
            best_small = min(best_small, best_seconds(measure, small, min_seconds))
            best_large = min(best_large, best_seconds(measure, large, min_seconds))
        seen.append((best_small, best_large))
        if best_large < bound * best_small + slack:
            return best_small, best_large
    raise AssertionError(
        f"{large} costs more than {bound:.0f}x {small} (linear: {large / small:.0f}x) in every "
        f"attempt: " + ", ".join(f"{s * 1e3:.2f} ms vs {g * 1e3:.2f} ms" for s, g in seen)
    )


def assert_faster(
    fast: Callable[[], float],
    slow: Callable[[], float],
    factor: float,
    repeats: int = 5,
    attempts: int = 3,
) -> None:
    """Assert the best of `fast()` < factor * the best of `slow()` (each returns seconds),
    interleaved, measured again up to `attempts` times before failing."""
    seen = []
    for _ in range(attempts):
        best_fast = best_slow = math.inf
        for _ in range(repeats):
            best_fast = min(best_fast, fast())
            best_slow = min(best_slow, slow())
        seen.append((best_fast, best_slow))
        if best_fast < factor * best_slow:
            return
    raise AssertionError(
        f"not {factor}x faster in any attempt: "
        + ", ".join(f"{f * 1e3:.2f} ms vs {s * 1e3:.2f} ms" for f, s in seen)
    )
