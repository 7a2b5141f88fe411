"""Structured control flow: reverse mode through `tf8.lax.scan` and `tf8.lax.fori_loop` under jit.

- control_rnn_{200,1000}: value and gradient in W (32 × 32) of the RNN of workloads_eager
  (h ← tanh(W @ h + x_t) from h = 0, loss Σ_t sum(h_t) + sum(h_T²)) written with
  `tf8.lax.scan`: numpy's forward + hand-written BPTT (`rnn_value_and_grad_numpy`),
  `tf8.jit(tf8.value_and_grad(loss))`, and `jax.jit(jax.value_and_grad)` of `jax.lax.scan`.
  Steady state (one jitted function, called again and again).
- firstcall_control_rnn_{200,1000}: the same, every call a first call: a new function and a new
  jit (tf8 also clears its prepared-program cache; jax retraces and recompiles a new function).
- control_rk4 / firstcall_control_rk4: 1 000 fixed RK4 steps (dt = 0.01) of
  dy/dt = W2 @ tanh(W1 @ y + b1), y ∈ R², W1 32 × 2, b1 ∈ R³², W2 2 × 32, from y0 = (1, 0);
  loss sum(y_T²); `tf8.jit(tf8.grad(loss, argnums=(0, 1, 2)))` through `tf8.lax.fori_loop`,
  against numpy's forward + hand-written discrete adjoint (backprop through every RK4 stage)
  and jax's fori_loop; steady state and first call.
- firstcall_scan_{10,10000}: c ← tanh(a * c + x_t) (c, a ∈ R⁴), loss sum(c_T), under
  `tf8.jit(tf8.value_and_grad)`: "tf8.jit" is the steady state, "tf8.jit first" a first call.
  A note gives (first − steady) at 10 000 steps over (first − steady) at 10 steps: what
  tracing and compiling a scan costs should not grow with its trip count (target ≤ 1.5).
  It uses the fastest sample of each variant: at 10 000 steps a call takes ~0.1 s and the
  medians' jitter (several ms) is larger than the ~2 ms being measured.

Under --tiny the RNN runs 5 and 10 steps, RK4 10 steps and the scan 10 and 100 steps.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks.harness import (
    BASELINE,
    Options,
    Result,
    Variants,
    Workload,
    tf8_engines,
    tf8_variant,
)
from benchmarks.workloads_eager import HIDDEN, jax_numpy, rnn_value_and_grad_numpy
from benchmarks.workloads_firstcall import _tf8_first_call

RNN_STEPS, TINY_RNN_STEPS = (200, 1_000), (5, 10)
RK4_STEPS, TINY_RK4_STEPS, RK4_DT = 1_000, 10, 0.01
SCAN_STEPS, TINY_SCAN_STEPS = (10, 10_000), (10, 100)
FIRST = "tf8.jit first"


def _rnn_loss(lax: Any, xp: Any) -> Callable[[Any, Any], Any]:
    def loss(w: Any, xs: Any) -> Any:
        def body(h: Any, x: Any) -> tuple[Any, Any]:
            h = xp.tanh(w @ h + x)
            return h, xp.sum(h)

        h, ys = lax.scan(body, xp.zeros(w.shape[0]), xs)
        return xp.sum(ys) + xp.sum(h * h)

    return loss


def _rnn_workload(index: int, first_call: bool) -> Workload:
    def build(options: Options) -> Variants:
        import tf8
        import tf8.numpy as tnp

        steps = (TINY_RNN_STEPS if options.tiny else RNN_STEPS)[index]
        rng = np.random.default_rng(0)
        w = rng.standard_normal((HIDDEN, HIDDEN)) * (0.5 / np.sqrt(HIDDEN))
        xs = rng.standard_normal((steps, HIDDEN)) * 0.5
        make = lambda: tf8.value_and_grad(_rnn_loss(tf8.lax, tnp))  # noqa: E731
        variants: Variants = {BASELINE: lambda: rnn_value_and_grad_numpy(w, xs)}
        if first_call:
            call = _tf8_first_call(make)
            variants["tf8.jit"] = lambda: call(w, xs)
        else:
            for engine in tf8_engines():
                jitted = tf8.jit(make(), engine=engine)
                variants[tf8_variant(engine)] = functools.partial(jitted, w, xs)
        if (found := jax_numpy()) is not None:
            jax, jnp = found
            jw, jxs = jnp.asarray(w), jnp.asarray(xs)
            jax_make = lambda: jax.jit(jax.value_and_grad(_rnn_loss(jax.lax, jnp)))  # noqa: E731
            steady = jax_make()
            variants["jax.jit"] = lambda: jax.block_until_ready(
                (jax_make() if first_call else steady)(jw, jxs)
            )
        return variants

    steps = RNN_STEPS[index]
    kind = "first call of" if first_call else "steady"
    return Workload(
        f"{'firstcall_' if first_call else ''}control_rnn_{steps}",
        f"{kind} jit(value_and_grad) of a 32-unit RNN through lax.scan, T = {steps:,}",
        build,
        rtol=1e-9,
        single_call=first_call,
        max_rounds=(5 if first_call else 15),
    )


# --- RK4 through fori_loop ---------------------------------------------------------------------


def _rk4_loss(lax: Any, xp: Any, steps: int) -> Callable[..., Any]:
    def loss(w1: Any, b1: Any, w2: Any) -> Any:
        def f(y: Any) -> Any:
            return w2 @ xp.tanh(w1 @ y + b1)

        def step(_: Any, y: Any) -> Any:
            k1 = f(y)
            k2 = f(y + RK4_DT / 2 * k1)
            k3 = f(y + RK4_DT / 2 * k2)
            k4 = f(y + RK4_DT * k3)
            return y + RK4_DT / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

        y = lax.fori_loop(0, steps, step, xp.asarray(np.array([1.0, 0.0])))
        return xp.sum(y * y)

    return loss


def rk4_grad_numpy(w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, steps: int) -> tuple:
    """Forward RK4 keeping each stage's input and tanh, then the discrete adjoint."""
    h = RK4_DT
    y, tape = np.array([1.0, 0.0]), []
    for _ in range(steps):
        us, zs, ks = [], [], []
        for c in (0.0, h / 2, h / 2, h):
            u = y + c * ks[-1] if ks else y
            z = np.tanh(w1 @ u + b1)
            us.append(u)
            zs.append(z)
            ks.append(w2 @ z)
        tape.append((us, zs))
        y = y + h / 6 * (ks[0] + 2 * ks[1] + 2 * ks[2] + ks[3])
    gw1, gb1, gw2 = np.zeros_like(w1), np.zeros_like(b1), np.zeros_like(w2)
    gy = 2 * y
    for us, zs in reversed(tape):
        gk = [h / 6 * gy, h / 3 * gy, h / 3 * gy, h / 6 * gy]
        new_gy = gy.copy()
        for stage, c in zip((3, 2, 1, 0), (h, h / 2, h / 2, 0.0)):
            gw2 += np.outer(gk[stage], zs[stage])
            ga = (w2.T @ gk[stage]) * (1.0 - zs[stage] ** 2)
            gw1 += np.outer(ga, us[stage])
            gb1 += ga
            gu = w1.T @ ga  # u = y + c k_{stage-1}
            new_gy += gu
            if stage:
                gk[stage - 1] = gk[stage - 1] + c * gu
        gy = new_gy
    return gw1, gb1, gw2


def _rk4_workload(first_call: bool) -> Workload:
    def build(options: Options) -> Variants:
        import tf8
        import tf8.numpy as tnp

        steps = TINY_RK4_STEPS if options.tiny else RK4_STEPS
        rng = np.random.default_rng(1)
        w1, b1 = rng.standard_normal((32, 2)) * 0.5, rng.standard_normal(32) * 0.1
        w2 = rng.standard_normal((2, 32)) * 0.2
        args = (w1, b1, w2)
        make = lambda: tf8.grad(_rk4_loss(tf8.lax, tnp, steps), argnums=(0, 1, 2))  # noqa: E731
        variants: Variants = {BASELINE: lambda: rk4_grad_numpy(*args, steps)}
        if first_call:
            call = _tf8_first_call(make)
            variants["tf8.jit"] = lambda: call(*args)
        else:
            jitted = tf8.jit(make())
            variants["tf8.jit"] = lambda: jitted(*args)
        if (found := jax_numpy()) is not None:
            jax, jnp = found
            jargs = [jnp.asarray(a) for a in args]
            jax_make = lambda: jax.jit(  # noqa: E731
                jax.grad(_rk4_loss(jax.lax, jnp, steps), argnums=(0, 1, 2))
            )
            steady = jax_make()
            variants["jax.jit"] = lambda: jax.block_until_ready(
                (jax_make() if first_call else steady)(*jargs)
            )
        return variants

    kind = "first call of" if first_call else "steady"
    return Workload(
        f"{'firstcall_' if first_call else ''}control_rk4",
        f"{kind} jit(grad) through 1,000 RK4 steps (fori_loop) of a 2-32-2 tanh ODE",
        build,
        rtol=1e-8,
        atol=1e-12,
        single_call=first_call,
        max_rounds=(5 if first_call else 11),
    )


# --- scan: first-call overhead against the trip count ------------------------------------------


def _scan_loss(lax: Any, xp: Any) -> Callable[[Any, Any], Any]:
    def loss(a: Any, xs: Any) -> Any:
        c, _ = lax.scan(lambda c, x: (xp.tanh(a * c + x), None), xp.zeros(a.shape[0]), xs)
        return xp.sum(c)

    return loss


def scan_value_and_grad_numpy(a: np.ndarray, xs: np.ndarray) -> tuple[float, np.ndarray]:
    cs = [np.zeros_like(a)]
    for x in xs:
        cs.append(np.tanh(a * cs[-1] + x))
    ga, gc = np.zeros_like(a), np.ones_like(a)
    for t in range(len(xs), 0, -1):
        gpre = gc * (1.0 - cs[t] ** 2)
        ga += gpre * cs[t - 1]
        gc = gpre * a
    return float(np.sum(cs[-1])), ga


def _scan_workload(index: int) -> Workload:
    def build(options: Options) -> Variants:
        import tf8
        import tf8.numpy as tnp

        steps = (TINY_SCAN_STEPS if options.tiny else SCAN_STEPS)[index]
        rng = np.random.default_rng(2)
        a, xs = rng.uniform(0.2, 0.8, 4), rng.standard_normal((steps, 4)) * 0.5
        make = lambda: tf8.value_and_grad(_scan_loss(tf8.lax, tnp))  # noqa: E731
        jitted, call = tf8.jit(make()), _tf8_first_call(make)
        return {
            BASELINE: lambda: scan_value_and_grad_numpy(a, xs),
            "tf8.jit": lambda: jitted(a, xs),
            FIRST: lambda: call(a, xs),
        }

    steps = SCAN_STEPS[index]
    return Workload(
        f"firstcall_scan_{steps}",
        f"jit(value_and_grad) of a 4-wide tanh scan, {steps:,} steps: steady and first call",
        build,
        rtol=1e-9,
        single_call=True,
        max_rounds=(15, 7)[index],
        note=scan_overhead_note,
    )


def scan_overhead_note(results: Sequence[Result]) -> str | None:
    """(first − steady) at the long scan over (first − steady) at the short one (fastest
    samples; the medians' difference is shown too)."""
    names = [f"firstcall_scan_{steps}" for steps in SCAN_STEPS]
    found = {r.workload.name: r for r in results if r.workload.name in names}
    if len(found) != len(names):
        return None
    fastest = [{t.variant: t.min_s for t in found[n].timings} for n in names]
    short, long = (f[FIRST] - f["tf8.jit"] for f in fastest)
    medians = [found[n].median(FIRST) - found[n].median("tf8.jit") for n in names]
    steps = TINY_SCAN_STEPS if found[names[0]].options.tiny else SCAN_STEPS
    return (
        f"scan first call minus steady state (fastest samples): {long * 1e3:.1f} ms at "
        f"{steps[1]:,} steps, {short * 1e3:.1f} ms at {steps[0]:,} steps: {long / short:.2f}x "
        f"(target <= 1.5x; medians: {medians[1] * 1e3:.1f} ms vs {medians[0] * 1e3:.1f} ms)"
    )


WORKLOADS = [
    *(_rnn_workload(i, first_call=False) for i in range(len(RNN_STEPS))),
    *(_rnn_workload(i, first_call=True) for i in range(len(RNN_STEPS))),
    _rk4_workload(first_call=False),
    _rk4_workload(first_call=True),
    *(_scan_workload(i) for i in range(len(SCAN_STEPS))),
]
