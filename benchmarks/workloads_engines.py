"""Engine workloads (issue 17): what tf8's engines cost beside each other and beside JAX.

- hessian_rosen_jit: `tf8.jit(tf8.hessian(rosenbrock))` at a 100-d point on each engine,
  against numpy's closed form and `jax.jit(jax.hessian)`.
- jit_overhead: `jit(lambda x: x + 1)` on 16 float64 against numpy's `x + 1`: tf8's own
  call overhead (flatten, cache lookup, the generated run function, unflatten).
- firstcall_engine_chain: the dispatch chain (20 × acc = acc*x + x, then sum; n = 16), every
  call a first call (a new function, a cold prepare cache) with each engine selected: a
  first call runs the lean tier, so the numba engine must cost no more than numpy's there.

The dispatch/bandwidth chains, their gradients, the MLP and the RNN scan have one tf8 row per
engine in their own workloads ("tf8.jit[numba]"); the table's engine column names it.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from benchmarks.harness import BASELINE, Options, Variants, Workload, tf8_engines, tf8_variant
from benchmarks.workloads_basic import chain
from benchmarks.workloads_eager import jax_numpy, rosenbrock, rosenbrock_hessian_numpy


def hessian_rosen_jit(options: Options) -> Variants:
    import tf8
    import tf8.numpy as tnp

    x = np.random.default_rng(0).uniform(-1.0, 1.0, 10 if options.tiny else 100)
    variants: Variants = {BASELINE: lambda: rosenbrock_hessian_numpy(x)}
    for engine in tf8_engines():
        hessian = tf8.jit(tf8.hessian(lambda v: rosenbrock(tnp, v)), engine=engine)
        variants[tf8_variant(engine)] = functools.partial(hessian, x)
    if (found := jax_numpy()) is not None:
        jax, jnp = found
        jax_hessian = jax.jit(jax.hessian(lambda v: rosenbrock(jnp, v)))
        jx = jnp.asarray(x)
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_hessian(jx))
    return variants


def jit_overhead(options: Options) -> Variants:
    import tf8

    x = np.linspace(0.0, 1.0, 16)
    variants: Variants = {BASELINE: lambda: x + 1}
    for engine in tf8_engines():
        variants[tf8_variant(engine)] = functools.partial(
            tf8.jit(lambda v: v + 1, engine=engine), x
        )
    if (found := jax_numpy()) is not None:
        jax, jnp = found
        jax_fn, jx = jax.jit(lambda v: v + 1), jnp.asarray(x)
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_fn(jx))
    return variants


def _first_call(engine: str) -> Any:
    import tf8
    import tf8.api
    import tf8.numpy as tnp

    def call(x: np.ndarray) -> Any:
        tf8.api.runtime_for(engine).clear_cache()
        return tf8.jit(lambda v: chain(tnp, v), engine=engine)(x)

    return call


def firstcall_engine_chain(options: Options) -> Variants:
    x = np.random.default_rng(0).uniform(0.0, 0.5, 16)
    variants: Variants = {BASELINE: lambda: chain(np, x)}
    for engine in tf8_engines():
        variants[tf8_variant(engine, "tf8.jit first")] = functools.partial(_first_call(engine), x)
    return variants


WORKLOADS = [
    Workload(
        "hessian_rosen_jit",
        "jit(hessian) of the Rosenbrock function at a 100-d point, per engine",
        hessian_rosen_jit,
        rtol=1e-9,
    ),
    Workload(
        "jit_overhead", "jit(lambda x: x + 1) on 16 float64: tf8's call overhead", jit_overhead
    ),
    Workload(
        "firstcall_engine_chain",
        "first call of jit(chain), n = 16, with each engine selected (lean tier)",
        firstcall_engine_chain,
    ),
]
