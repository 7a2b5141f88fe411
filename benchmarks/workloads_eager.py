"""Eager workloads: tf8 without jit, against numpy doing the same work and against the eager
modes of autograd and JAX (no jax.jit) when they import. No tf8 row goes through tf8.jit, so
they measure the eager path as a user meets it (caches that path keeps itself included).

- eager_ops: `float(sin(t)[3])` on 1 000 float64: numpy on an ndarray; tf8 on a tf8.tensor
  made once; autograd.numpy and jax.numpy (a device array made once) likewise.
- chain_nojit: the 41-op chain of workloads_basic (20 × `acc = acc * x + x`, then a sum,
  n = 16) from an ndarray to a Python float: numpy; tf8 (`float(chain(tf8.tensor(x)))`);
  autograd.numpy (plain numpy forward through autograd's wrappers); jax.numpy eager
  (`jnp.asarray(x)` in, `float` out).
- grad_chain_nojit: the gradient of that chain: numpy by hand (workloads_ad's
  chain_grad_numpy), tf8.grad, autograd.grad, jax.grad (eager).
- grad_mlp_small_nojit: the gradient of sum(tanh(x @ w) ** 2) in w, x 8 × 16, w 16 × 4:
  numpy by hand (2 h (1 - h²) back through the matmul), tf8.grad, autograd.grad, jax.grad.
- hessian_rosen_nojit: the Hessian of the Rosenbrock function at a 100-d point: numpy's
  closed form (tridiagonal), tf8.hessian, autograd.hessian, jax.hessian (eager).
- rnn_nojit: value and gradient in W (32 × 32) of an RNN written as a Python loop,
  h ← tanh(W @ h + x_t) from h = 0 for T = 200 steps, loss Σ_t sum(h_t) + sum(h_T²): numpy
  forward + hand-written backpropagation through time, tf8.value_and_grad,
  autograd.value_and_grad, jax.value_and_grad (eager), and "tf8 scan": tf8.value_and_grad of
  the same loss written with tf8.lax.scan (what a tf8 user writes, no jit).
- property_nojit: 200 random op chains (benchmarks/property_workload.py) on a (4, 3) float64:
  numpy evaluates them; tf8 runs tf8.check_grads(f, (x,), order=2, modes=("fwd", "rev"))
  on each and autograd autograd.test_util.check_grads(f, modes=["fwd", "rev"], order=2)(x),
  each then returning the 200 values f(x), which are what is compared with numpy. Three
  interleaved samples, each on freshly built functions (a call takes seconds); the first
  includes each library's one-time warm-up.

Under --tiny the Rosenbrock point is 10-d, the RNN runs 5 steps and the property workload
checks 5 functions.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import property_workload
from benchmarks.harness import AUTOGRAD, BASELINE, Options, Variants, Workload, optional_module
from benchmarks.workloads_ad import chain_grad_numpy
from benchmarks.workloads_basic import chain

HIDDEN, STEPS_RNN = 32, 200
PROPERTY_FUNCTIONS = 200


def jax_numpy() -> tuple[Any, Any] | None:
    """(jax, jax.numpy) with float64 enabled, or None when jax is not installed."""
    jax = optional_module("jax")
    if jax is None:
        return None
    jax.config.update("jax_enable_x64", True)
    return jax, importlib.import_module("jax.numpy")


def autograd_numpy() -> tuple[Any, Any] | None:
    """(autograd, autograd.numpy), or None when autograd is not installed."""
    autograd = optional_module("autograd")
    if autograd is None:
        return None
    return autograd, importlib.import_module("autograd.numpy")


def transform_variants(
    transform: str,
    fn: Callable[..., Any],
    by_hand: Callable[[], Any],
    *args: Any,
) -> Variants:
    """numpy's `by_hand()`, and `transform` ("grad", "hessian" or "value_and_grad") of
    `lambda a: fn(xp, a, *rest)` at `args[0]` with tf8, autograd and jax (eager, no jit)."""
    import tf8
    import tf8.numpy as tnp

    first, rest = args[0], args[1:]
    tf8_fn = getattr(tf8, transform)(lambda a: fn(tnp, a, *rest))
    variants: Variants = {BASELINE: by_hand, "tf8": lambda: tf8_fn(first)}
    if (found := autograd_numpy()) is not None:
        autograd, anp = found
        autograd_fn = getattr(autograd, transform)(lambda a: fn(anp, a, *rest))
        variants[AUTOGRAD] = lambda: autograd_fn(first)
    if (found := jax_numpy()) is not None:
        jax, jnp = found
        jax_fn = getattr(jax, transform)(lambda a: fn(jnp, a, *rest))
        variants["jax"] = lambda: jax.block_until_ready(jax_fn(first))
    return variants


def _uniform(n: int, low: float = 0.0, high: float = 0.5) -> np.ndarray:
    return np.random.default_rng(0).uniform(low, high, n)


# --- eager ops and the chain -------------------------------------------------------------------


def eager_ops(options: Options) -> Variants:
    import tf8
    import tf8.numpy as tnp

    a = _uniform(1_000, -3.0, 3.0)
    t = tf8.tensor(a)
    variants: Variants = {
        BASELINE: lambda: float(np.sin(a)[3]),
        "tf8": lambda: float(tnp.sin(t)[3]),
    }
    if (found := autograd_numpy()) is not None:
        anp = found[1]
        variants[AUTOGRAD] = lambda: float(anp.sin(a)[3])
    if (found := jax_numpy()) is not None:
        jnp = found[1]
        device_array = jnp.asarray(a)
        variants["jax"] = lambda: float(jnp.sin(device_array)[3])
    return variants


def chain_nojit(options: Options) -> Variants:
    import tf8
    import tf8.numpy as tnp

    x = _uniform(16)
    variants: Variants = {
        BASELINE: lambda: float(chain(np, x)),
        "tf8": lambda: float(chain(tnp, tf8.tensor(x))),
    }
    if (found := autograd_numpy()) is not None:
        anp = found[1]
        variants[AUTOGRAD] = lambda: float(chain(anp, x))
    if (found := jax_numpy()) is not None:
        jnp = found[1]
        variants["jax"] = lambda: float(chain(jnp, jnp.asarray(x)))
    return variants


def grad_chain_nojit(options: Options) -> Variants:
    x = _uniform(16)
    return transform_variants("grad", chain, lambda: chain_grad_numpy(x), x)


# --- a small MLP layer -------------------------------------------------------------------------


def tanh_layer_loss(xp: Any, w: Any, x: np.ndarray) -> Any:
    return xp.sum(xp.tanh(x @ w) ** 2)


def tanh_layer_grad_numpy(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    h = np.tanh(x @ w)
    return x.T @ (2.0 * h * (1.0 - h * h))


def grad_mlp_small_nojit(options: Options) -> Variants:
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((8, 16)), rng.standard_normal((16, 4)) / 4.0
    return transform_variants("grad", tanh_layer_loss, lambda: tanh_layer_grad_numpy(w, x), w, x)


# --- the Rosenbrock Hessian --------------------------------------------------------------------


def rosenbrock(xp: Any, x: Any) -> Any:
    return xp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hessian_numpy(x: np.ndarray) -> np.ndarray:
    """Tridiagonal: ∂²/∂x_i² = 1200 x_i² − 400 x_{i+1} + 2 (i < n−1) plus 200 (i > 0),
    ∂²/∂x_i∂x_{i+1} = −400 x_i."""
    diagonal = np.zeros_like(x)
    diagonal[:-1] = 1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0
    diagonal[1:] += 200.0
    off_diagonal = -400.0 * x[:-1]
    return np.diag(diagonal) + np.diag(off_diagonal, 1) + np.diag(off_diagonal, -1)


def hessian_rosen_nojit(options: Options) -> Variants:
    x = _uniform(10 if options.tiny else 100, -1.0, 1.0)
    return transform_variants("hessian", rosenbrock, lambda: rosenbrock_hessian_numpy(x), x)


# --- the RNN -----------------------------------------------------------------------------------


def rnn_loss(xp: Any, w: Any, xs: np.ndarray) -> Any:
    """Σ_t sum(h_t) + sum(h_T²) with h_t = tanh(W h_{t−1} + x_t), h_0 = 0."""
    h: Any = np.zeros(w.shape[0])
    total: Any = 0.0
    for x_t in xs:
        h = xp.tanh(w @ h + x_t)
        total = total + xp.sum(h)
    return total + xp.sum(h * h)


def rnn_value_and_grad_numpy(w: np.ndarray, xs: np.ndarray) -> tuple[float, np.ndarray]:
    """The forward pass keeping every h_t, then backpropagation through time."""
    hs = [np.zeros(w.shape[0])]
    for x_t in xs:
        hs.append(np.tanh(w @ hs[-1] + x_t))
    value = float(np.sum(hs[1:]) + hs[-1] @ hs[-1])
    dw = np.zeros_like(w)
    dh = 1.0 + 2.0 * hs[-1]  # ∂loss/∂h_T
    for t in range(len(xs), 0, -1):
        da = dh * (1.0 - hs[t] ** 2)  # through the tanh
        dw += np.outer(da, hs[t - 1])
        dh = w.T @ da + 1.0  # into h_{t−1}, plus its own sum term
    return value, dw


def rnn_nojit(options: Options) -> Variants:
    rng = np.random.default_rng(0)
    steps = 5 if options.tiny else STEPS_RNN
    w = rng.standard_normal((HIDDEN, HIDDEN)) * (0.5 / np.sqrt(HIDDEN))
    xs = rng.standard_normal((steps, HIDDEN)) * 0.5
    by_hand = lambda: rnn_value_and_grad_numpy(w, xs)  # noqa: E731
    variants = transform_variants("value_and_grad", rnn_loss, by_hand, w, xs)
    variants["tf8 scan"] = lambda: scan_value_and_grad(w, xs)  # what a tf8 user writes now
    return variants


def rnn_loss_scan(w: Any, xs: np.ndarray) -> Any:
    """rnn_loss written with tf8.lax.scan: the loop is one op, whatever T."""
    import tf8
    import tf8.numpy as tnp

    def step(h: Any, x_t: Any) -> tuple[Any, Any]:
        h = tnp.tanh(w @ h + x_t)
        return h, tnp.sum(h)

    h, sums = tf8.lax.scan(step, tnp.zeros(w.shape[0]), xs)
    return tnp.sum(sums) + tnp.sum(h * h)


def scan_value_and_grad(w: np.ndarray, xs: np.ndarray) -> tuple[Any, Any]:
    import tf8

    return tf8.value_and_grad(rnn_loss_scan)(w, xs)


# --- random functions checked to second order --------------------------------------------------


def property_nojit(options: Options) -> Variants:
    import tf8.numpy as tnp

    count = 5 if options.tiny else PROPERTY_FUNCTIONS
    programs, x, matrix = property_workload.random_programs(count)

    def functions(xp: Any) -> list[Callable[[Any], Any]]:
        return [property_workload.build(xp, program, matrix) for program in programs]

    # Fresh function objects in every sample, as a property test draws them.
    numpy_functions = functions(np)
    variants: Variants = {
        BASELINE: lambda: [f(x) for f in numpy_functions],
        "tf8": lambda: property_workload.check_tf8(functions(tnp), x),
    }
    if (found := autograd_numpy()) is not None:
        anp = found[1]
        variants[AUTOGRAD] = lambda: property_workload.check_autograd(functions(anp), x)
    return variants


WORKLOADS = [
    Workload("eager_ops", "float(sin(t)[3]) on 1 000 float64, no jit", eager_ops, rtol=1e-12),
    Workload(
        "chain_nojit",
        "20 × acc = acc*x + x, then sum; n = 16; no jit, tensor in, float out",
        chain_nojit,
        rtol=1e-12,
    ),
    Workload(
        "grad_chain_nojit",
        "grad of 20 × acc = acc*x + x, then sum; n = 16; no jit",
        grad_chain_nojit,
        rtol=1e-9,
    ),
    Workload(
        "grad_mlp_small_nojit",
        "grad in w of sum(tanh(x @ w)²), x 8 × 16, w 16 × 4; no jit",
        grad_mlp_small_nojit,
        rtol=1e-9,
        atol=1e-12,
    ),
    Workload(
        "hessian_rosen_nojit",
        "hessian of the Rosenbrock function, 100-d; no jit",
        hessian_rosen_nojit,
        rtol=1e-9,
        atol=1e-9,
    ),
    Workload(
        "rnn_nojit",
        f"value_and_grad in W of a tanh RNN, hidden {HIDDEN}, T = {STEPS_RNN}, Python loop; no jit",
        rnn_nojit,
        rtol=1e-9,
        atol=1e-12,
    ),
    Workload(
        "property_nojit",
        f"check_grads order 2 fwd+rev of {PROPERTY_FUNCTIONS} random 5-30-op chains on (4, 3)",
        property_nojit,
        rtol=1e-12,
        single_call=True,
        max_rounds=3,
    ),
]
