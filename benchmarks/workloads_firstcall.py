"""First calls: what the first call of a newly jitted function costs (trace, compile, run).

Every timed call builds a NEW Python function and a NEW jitted function from it, so no trace
cache can answer. tf8's runtime also caches prepared programs by fingerprint across jitted
functions (an identical function jitted again would find its program there); each tf8 call
clears that cache first, so every sample is a true first call in a warm process (modules
imported, kernels loaded by the agreement check). jax.jit of a new function object retraces
and recompiles it (measured here: every such call costs what the first one does), so jax's
caches are left alone.

- firstcall_chain: `jit(f)` with f the 41-op chain of workloads_basic (20 × acc = acc*x + x,
  then sum; n = 16): numpy runs the chain; tf8.jit and jax.jit first calls.
- firstcall_grad_chain: `jit(grad(f))` of the same chain: numpy's hand-written gradient
  (workloads_ad's chain_grad_numpy); tf8.jit(tf8.grad) and jax.jit(jax.grad) first calls.
- firstcall_grad_sin_{100,1000,5000}: `tf8.jit(tf8.grad(g))` with g a chain of about N ops,
  ⌊(N − 1) / 3⌋ × `x = sin(x) * x + x` and then a sum, on 8 float64 in [−2, −0.5) (where
  the recurrence contracts towards 0, so values and gradients stay well-conditioned); numpy
  carries the derivative forward by hand. A note under the table gives the log-log slope of
  tf8's median first-call time over the three op counts (1: linear in the op count).
  Calls take up to seconds, so the larger chains take few samples. No jax rows: timed once
  on this machine, jax.jit(jax.grad)'s first call took 1.9 s at 1 000 ops and 22 s at 5 000
  (and XLA segfaulted at 15 000), too slow to sample within the suite's time budget.

Under --tiny the sin chains have 10, 30 and 100 ops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks.harness import BASELINE, Options, Result, Variants, Workload
from benchmarks.workloads_ad import chain_grad_numpy
from benchmarks.workloads_basic import chain
from benchmarks.workloads_eager import jax_numpy

SIN_CHAIN_OPS = (100, 1_000, 5_000)
TINY_SIN_CHAIN_OPS = (10, 30, 100)
TF8_GRAD = "tf8.jit(grad)"


def _tf8_first_call(make_function: Callable[[], Callable[..., Any]]) -> Callable[..., Any]:
    """A call that jits `make_function()` (a new function each time) on a cold program cache."""
    import tf8
    import tf8.api

    def call(*args: Any) -> Any:
        tf8.api.default_runtime.clear_cache()
        return tf8.jit(make_function())(*args)

    return call


def _chain_data() -> np.ndarray:
    return np.random.default_rng(0).uniform(0.0, 0.5, 16)


def firstcall_chain(options: Options) -> Variants:
    import tf8.numpy as tnp

    x = _chain_data()
    tf8_call = _tf8_first_call(lambda: lambda v: chain(tnp, v))
    variants: Variants = {BASELINE: lambda: chain(np, x), "tf8.jit": lambda: tf8_call(x)}
    if (found := jax_numpy()) is not None:
        jax, jnp = found
        device_x = jnp.asarray(x)
        variants["jax.jit"] = lambda: jax.block_until_ready(
            jax.jit(lambda v: chain(jnp, v))(device_x)
        )
    return variants


def firstcall_grad_chain(options: Options) -> Variants:
    import tf8
    import tf8.numpy as tnp

    x = _chain_data()
    tf8_call = _tf8_first_call(lambda: tf8.grad(lambda v: chain(tnp, v)))
    variants: Variants = {BASELINE: lambda: chain_grad_numpy(x), TF8_GRAD: lambda: tf8_call(x)}
    if (found := jax_numpy()) is not None:
        jax, jnp = found
        device_x = jnp.asarray(x)
        variants["jax.jit(grad)"] = lambda: jax.block_until_ready(
            jax.jit(jax.grad(lambda v: chain(jnp, v)))(device_x)
        )
    return variants


# --- first-call scaling ------------------------------------------------------------------------


def sin_chain_ops(options: Options) -> tuple[int, ...]:
    return TINY_SIN_CHAIN_OPS if options.tiny else SIN_CHAIN_OPS


def sin_chain_repeats(ops: int) -> int:
    return (ops - 1) // 3


def sin_chain(xp: Any, x: Any, repeats: int) -> Any:
    for _ in range(repeats):
        x = xp.sin(x) * x + x
    return xp.sum(x)


def sin_chain_grad_numpy(x: np.ndarray, repeats: int) -> np.ndarray:
    """d/dx sum(sin_chain(x)), elementwise: d(sin(x) x + x) = (cos(x) x + sin(x) + 1) dx."""
    dx = np.ones_like(x)
    for _ in range(repeats):
        dx = (np.cos(x) * x + np.sin(x) + 1.0) * dx
        x = np.sin(x) * x + x
    return dx


def _sin_chain_workload(index: int) -> Workload:
    def build(options: Options) -> Variants:
        import tf8
        import tf8.numpy as tnp

        ops = sin_chain_ops(options)[index]
        repeats = sin_chain_repeats(ops)
        x = np.random.default_rng(0).uniform(-2.0, -0.5, 8)
        tf8_call = _tf8_first_call(lambda: tf8.grad(lambda v: sin_chain(tnp, v, repeats)))
        return {
            BASELINE: lambda: sin_chain_grad_numpy(x, repeats),
            TF8_GRAD: lambda: tf8_call(x),
        }

    ops = SIN_CHAIN_OPS[index]
    return Workload(
        f"firstcall_grad_sin_{ops}",
        f"first call of jit(grad) of {ops} ops: (x = sin(x)*x + x) × {sin_chain_repeats(ops)}, sum",
        build,
        rtol=1e-9,
        single_call=True,
        max_rounds=(None, 7, 3)[index],
        note=sin_chain_slope,
    )


def sin_chain_slope(results: Sequence[Result]) -> str | None:
    """The log-log slope of tf8's first-call time over the sin chains (when all three ran)."""
    names = [f"firstcall_grad_sin_{ops}" for ops in SIN_CHAIN_OPS]
    found = {r.workload.name: r for r in results if r.workload.name in names}
    if len(found) != len(names):
        return None
    ops = sin_chain_ops(found[names[0]].options)
    times = [found[name].median(TF8_GRAD) for name in names]
    slope = float(np.polyfit(np.log(ops), np.log(times), 1)[0])
    return (
        f"first call of tf8.jit(tf8.grad) on the sin chains: log-log slope {slope:.2f} of the "
        f"median time over {', '.join(f'{n:,}' for n in ops)} ops (1.00 = linear in ops)"
    )


WORKLOADS = [
    Workload(
        "firstcall_chain",
        "first call of jit(f), f = 20 × acc = acc*x + x, then sum; n = 16 (new function each)",
        firstcall_chain,
        rtol=1e-12,
        single_call=True,
    ),
    Workload(
        "firstcall_grad_chain",
        "first call of jit(grad(f)), f the 41-op chain above (new function each)",
        firstcall_grad_chain,
        rtol=1e-9,
        single_call=True,
    ),
    *(_sin_chain_workload(index) for index in range(len(SIN_CHAIN_OPS))),
]
