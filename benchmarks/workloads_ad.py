"""Gradient workloads: `tf8.jit(tf8.grad(f))` against a hand-written numpy gradient.

- grad_dispatch / grad_bandwidth: the gradient of the forward chain of workloads_basic
  (20 × `acc = acc * x + x`, then a sum) on 16 and 10^6 float64. The chain is elementwise,
  so numpy's hand-written gradient is the forward recurrence `dacc = dacc * x + acc + 1`
  carried next to `acc` (no stored intermediates: the cheapest gradient a person would write).
- grad_mlp: a 3-layer tanh MLP (512 wide, batch 256), loss = sum of squared errors, gradient
  with respect to a dict of weights and biases; numpy's is hand-written backprop. BLAS-bound,
  so it runs with one BLAS thread.

JAX (`jax.jit(jax.grad(f))`) and autograd (`autograd.grad(f)`) are compared when they import.
"""

from __future__ import annotations

import functools
import importlib
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
from benchmarks.workloads_basic import STEPS, chain

WIDTH, BATCH, LAYERS = 512, 256, 3


def _tf8_grad(fn: Callable[..., Any], engine: str = "numpy") -> Callable[..., Any]:
    import tf8
    import tf8.numpy as tnp

    return tf8.jit(tf8.grad(lambda *xs: fn(tnp, *xs)), engine=engine)


def grad_variants(fn: Callable[..., Any], numpy_grad: Callable[..., Any], *args: Any) -> Variants:
    """Variants computing the gradient of `fn(xp, *args)` w.r.t. its first argument: the
    hand-written `numpy_grad(*args)`, tf8.jit(tf8.grad), and jax / autograd when installed."""
    variants: Variants = {BASELINE: lambda: numpy_grad(*args)}
    for engine in tf8_engines():
        variants[tf8_variant(engine)] = functools.partial(_tf8_grad(fn, engine), *args)
    jax = optional_module("jax")
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        jnp = importlib.import_module("jax.numpy")
        jax_grad = jax.jit(jax.grad(lambda *xs: fn(jnp, *xs)))
        jax_args = jax.tree_util.tree_map(jnp.asarray, args)
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_grad(*jax_args))
    autograd = optional_module("autograd")
    if autograd is not None:
        anp = importlib.import_module("autograd.numpy")
        autograd_grad = autograd.grad(lambda *xs: fn(anp, *xs))
        variants["autograd"] = lambda: autograd_grad(*args)
    return variants


# --- the chain ---------------------------------------------------------------------------------


def chain_grad_numpy(x: np.ndarray) -> np.ndarray:
    """d/dx sum(chain(x)), elementwise: carry the derivative next to the value."""
    acc, dacc = x, np.ones_like(x)
    for _ in range(STEPS):
        acc, dacc = acc * x + x, dacc * x + acc + 1.0
    return dacc


def _data(n: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(0.0, 0.5, n)


def grad_dispatch(options: Options) -> Variants:
    return grad_variants(chain, chain_grad_numpy, _data(16))


def grad_bandwidth(options: Options) -> Variants:
    return grad_variants(chain, chain_grad_numpy, _data(1_000 if options.tiny else 1_000_000))


# --- the MLP -----------------------------------------------------------------------------------


def mlp_loss(xp: Any, params: dict[str, Any], x: Any, y: Any) -> Any:
    """sum((mlp(x) - y)²) for a tanh MLP with weights w0.. and biases b0.. in `params`."""
    h = x
    for i in range(LAYERS):
        h = h @ params[f"w{i}"] + params[f"b{i}"]
        if i < LAYERS - 1:
            h = xp.tanh(h)
    err = h - y
    return xp.sum(err * err)


def mlp_grad_numpy(params: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray) -> dict:
    """Hand-written backprop of `mlp_loss`."""
    activations = [x]
    h = x
    for i in range(LAYERS):
        h = h @ params[f"w{i}"] + params[f"b{i}"]
        if i < LAYERS - 1:
            h = np.tanh(h)
        activations.append(h)
    delta = 2.0 * (h - y)
    grads = {}
    for i in reversed(range(LAYERS)):
        grads[f"w{i}"] = activations[i].T @ delta
        grads[f"b{i}"] = delta.sum(axis=0)
        if i:
            delta = (delta @ params[f"w{i}"].T) * (1.0 - activations[i] ** 2)
    return grads


def mlp_data(width: int, batch: int) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    scale = 1.0 / np.sqrt(width)
    params = {}
    for i in range(LAYERS):
        params[f"w{i}"] = rng.standard_normal((width, width)) * scale
        params[f"b{i}"] = rng.standard_normal(width) * 0.1
    return params, rng.standard_normal((batch, width)), rng.standard_normal((batch, width))


def grad_mlp(options: Options) -> Variants:
    width, batch = (16, 8) if options.tiny else (WIDTH, BATCH)
    return grad_variants(mlp_loss, mlp_grad_numpy, *mlp_data(width, batch))


WORKLOADS = [
    Workload(
        "grad_dispatch",
        "jit(grad) of 20 × acc = acc*x + x, then sum; n = 16 (per-op overhead)",
        grad_dispatch,
        rtol=1e-9,
    ),
    Workload(
        "grad_bandwidth",
        "jit(grad) of 20 × acc = acc*x + x, then sum; n = 1 000 000 float64",
        grad_bandwidth,
        rtol=1e-9,
    ),
    Workload(
        "grad_mlp",
        f"jit(grad) of a {LAYERS}-layer tanh MLP, {WIDTH} wide, batch {BATCH}, squared loss",
        grad_mlp,
        blas_bound=True,
        rtol=1e-7,
        atol=1e-9,
    ),
]
