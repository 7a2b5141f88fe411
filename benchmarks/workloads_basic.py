"""Forward-only workloads: per-op dispatch overhead and memory bandwidth.

Both run the same chain, 20 × `acc = acc * x + x` then a sum (41 ops): on 16 elements the
time is all per-op overhead (Python dispatch, kernel calls); on 10^6 float64 it is memory
traffic, where the runtime's buffer reuse and blocking matter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.harness import Options, Variants, Workload, array_module_variants

STEPS = 20


def chain(xp: Any, x: Any) -> Any:
    """20 × (acc * x + x), then a sum, written against any numpy-like module `xp`."""
    acc = x
    for _ in range(STEPS):
        acc = acc * x + x
    return xp.sum(acc)


def _data(n: int) -> np.ndarray:
    # values in [0, 0.5): the chain stays bounded (acc < 1), so float64 results agree tightly
    return np.random.default_rng(0).uniform(0.0, 0.5, n)


def dispatch(options: Options) -> Variants:
    return array_module_variants(chain, _data(16))


def bandwidth(options: Options) -> Variants:
    return array_module_variants(chain, _data(1_000 if options.tiny else 1_000_000))


WORKLOADS = [
    Workload("dispatch", "20 × acc = acc*x + x, then sum; n = 16 (per-op overhead)", dispatch),
    Workload(
        "bandwidth",
        "20 × acc = acc*x + x, then sum; n = 1 000 000 float64 (memory bandwidth)",
        bandwidth,
        rtol=1e-9,
    ),
]
