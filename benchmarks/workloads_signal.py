"""Signal processing: `tf8.scipy.signal` against scipy.signal (issue #34's target: `stft` of a
10⁶-sample float64 signal under `jit` at most 1.2× `scipy.signal.stft`).

- signal_stft_1e6: `stft(x)` with the defaults (window 'hann', nperseg 256, noverlap 128,
  boundary 'zeros', padded), x ∈ R^1 000 000 float64; the (f, t, Zxx) triple. Variants:
  "numpy" is `scipy.signal.stft`, "tf8.jit" (per engine) `tf8.jit(tf8.scipy.signal.stft)`,
  "jax.jit" `jax.jit(jax.scipy.signal.stft)` when JAX imports.
- signal_welch_1e6: `welch(x, nperseg=256)` (median averaging off), the same variants.

Under --tiny the signal has 4 096 samples.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.harness import (
    BASELINE,
    Options,
    Variants,
    Workload,
    optional_module,
    tf8_engines,
    tf8_variant,
)
from benchmarks.workloads_eager import jax_numpy

SIZE, TINY_SIZE = 1_000_000, 4_096


def _signal(options: Options) -> np.ndarray:
    return np.random.default_rng(0).standard_normal(TINY_SIZE if options.tiny else SIZE)


def _workload(name: str, description: str, call: Callable[[Any, Any], Any]) -> Workload:
    """`call(signal_module, x)` for scipy.signal, tf8.scipy.signal and jax.scipy.signal."""

    def build(options: Options) -> Variants:
        import scipy.signal

        import tf8
        import tf8.scipy.signal

        x = _signal(options)
        variants: Variants = {BASELINE: lambda: call(scipy.signal, x)}
        for engine in tf8_engines():
            jitted = tf8.jit(functools.partial(call, tf8.scipy.signal), engine=engine)
            variants[tf8_variant(engine)] = functools.partial(jitted, x)
        if jax_numpy() is not None and (jax_signal := optional_module("jax.scipy.signal")):
            import jax

            jitted_jax = jax.jit(functools.partial(call, jax_signal))
            jx = jax.numpy.asarray(x)
            variants["jax.jit"] = lambda: jax.block_until_ready(jitted_jax(jx))
        return variants

    return Workload(name, description, build, rtol=1e-9, atol=1e-12)


WORKLOADS: list[Workload] = [
    _workload(
        "signal_stft_1e6",
        "stft of 10⁶ float64 samples (hann, nperseg 256) under jit, against scipy.signal.stft",
        lambda signal, x: signal.stft(x),
    ),
    _workload(
        "signal_welch_1e6",
        "welch of 10⁶ float64 samples (hann, nperseg 256) under jit, against scipy.signal.welch",
        lambda signal, x: signal.welch(x, nperseg=256),
    ),
]
