"""Random-number workloads (issue 13): drawing with tf8.random beside numpy and JAX.

- random_normal: 10^6 float32 standard normals. numpy's `default_rng(0).standard_normal`
  (its ziggurat, a different stream) is the baseline; tf8 draws JAX's stream (Threefry-2x32
  bits, then XLA's float32 erf_inv polynomial) under `tf8.jit` on each engine and eagerly,
  against `jax.jit(jax.random.normal)` when JAX is installed (tf8's draws are checked
  against JAX's first, to 1e-6 relative). The streams differ from numpy's, so the agreement
  check compares the draws' mean and standard deviation.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from benchmarks.harness import BASELINE, Options, Variants, Workload, tf8_engines, tf8_variant
from benchmarks.workloads_eager import jax_numpy


def _moments(draws: Any) -> tuple[float, float]:
    draws = np.asarray(draws, np.float64)
    return float(np.mean(draws)), float(np.std(draws))


def random_normal(options: Options) -> Variants:
    import tf8
    import tf8.random

    size = 4096 if options.tiny else 10**6
    key = np.zeros(2, np.uint32)  # tf8.random.PRNGKey(0)

    def draw(k: Any) -> Any:
        return tf8.random.normal(k, (size,), dtype=np.float32)

    variants: Variants = {
        BASELINE: lambda: np.random.default_rng(0).standard_normal(size, dtype=np.float32)
    }
    for engine in tf8_engines():
        variants[tf8_variant(engine)] = functools.partial(tf8.jit(draw, engine=engine), key)
    variants["tf8 eager"] = lambda: np.asarray(draw(key))
    if (found := jax_numpy()) is not None:
        jax, jnp = found
        jax_draw = jax.jit(lambda k: jax.random.normal(k, (size,), dtype=jnp.float32))
        jax_key = jax.random.PRNGKey(0)
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_draw(jax_key))
        np.testing.assert_allclose(
            variants["tf8.jit"](), np.asarray(variants["jax.jit"]()), rtol=1e-6, atol=1e-7
        )
    return variants


WORKLOADS = [
    Workload(
        "random_normal",
        "10^6 float32 standard normals (tf8 and JAX: JAX's threefry stream; numpy: its own)",
        random_normal,
        atol=0.1,  # on the draws' mean and standard deviation (different streams)
        statistic=_moments,
    ),
]
