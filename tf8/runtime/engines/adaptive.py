"""Serial or parallel, measured: a large loop runs on one thread or on two (the numba
engine's prange loops, the numpy engine's blocked regions).

On an idle machine a loop of a million elements runs about twice as fast on two cores; on a
loaded one (other processes on the cores) a parallel loop waits for its slowest thread and
can run several times slower than the serial one. Which wins changes with the load, so it
is measured on the calls themselves: `Faster` calls the variant with the lower median time
over its last RECENT calls and tries the other now and then — the slower it has been, the
more rarely, so that a variant ten times slower costs a fraction of a percent. Each
variant's first PROBES calls come every RETRY calls whatever it measured: one call slowed by
a load spike (or by first-use costs) would otherwise set it aside for hundreds of calls.
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter
from typing import Any

RECENT = 5  # a variant's time: the median of its last RECENT calls
RETRY = 4  # calls between tries of the other variant, times (its time / the best's)²
RETRY_MAX = 1024
PROBES = 3  # calls of each variant before its time decides how rarely it is tried


class Faster:
    """Calls whichever of `serial` and `parallel` (the same function, compiled both ways)
    has run faster recently; `.times` holds their recent median times (s, 0.0 before the
    first call), `.calls` the number of calls to each."""

    __slots__ = ("variants", "recent", "times", "calls", "best", "last_try", "count")

    def __init__(self, serial: Callable[..., Any], parallel: Callable[..., Any]) -> None:
        self.variants = (serial, parallel)
        self.recent: tuple[list[float], list[float]] = ([], [])  # newest last
        self.times = [0.0, 0.0]
        self.calls = [0, 0]
        self.best = 0
        self.last_try = 0  # the call that last ran the other variant
        self.count = 0

    def __call__(self, *args: Any) -> Any:
        self.count += 1
        best = self.best
        ratio = self.times[1 - best] / self.times[best] if self.times[best] else 0.0
        if self.calls[1 - best] < PROBES:
            ratio = min(ratio, 1.0)
        k = best
        if self.count - self.last_try >= min(RETRY_MAX, RETRY * ratio * ratio):
            k, self.last_try = 1 - best, self.count
        start = perf_counter()
        result = self.variants[k](*args)
        elapsed = perf_counter() - start
        # the median, not the minimum: on a loaded machine two threads sometimes both get a
        # core (a fast minimum) while most of their calls wait for one (a slow median)
        recent = self.recent[k]
        recent.append(elapsed)
        if len(recent) > RECENT:
            del recent[0]
        self.times[k] = sorted(recent)[(len(recent) - 1) // 2]
        self.calls[k] += 1
        if self.times[k] < self.times[1 - k] or not self.times[1 - k]:
            self.best = k
        return result

    def __repr__(self) -> str:
        return (
            f"<Faster serial {self.times[0] * 1e3:.2f} ms ({self.calls[0]} calls), "
            f"parallel {self.times[1] * 1e3:.2f} ms ({self.calls[1]} calls)>"
        )
