"""A small convnet's training step (issue #31): stax's Conv(8, 3×3, SAME), Relu, Conv(16, 3×3,
SAME), Relu, MaxPool(2×2, stride 2), Flatten, Dense(10), LogSoftmax on an MNIST-shaped batch
(32, 28, 28, 1) NHWC, float64; `jit(value_and_grad(loss))` of the cross-entropy, in steady
state. tf8.jit against jax.jit when it imports, and against the step written by hand in numpy
(convolutions as einsums over sliding-window views, the backward pass derived on paper).
BLAS-bound: one BLAS thread (for a single-threaded JAX row set XLA_FLAGS=
"--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1").
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from benchmarks.harness import BASELINE, Options, Variants, Workload, optional_module

CLASSES = 10


def _network(lib: Any) -> tuple[Any, Any]:
    """stax's (init_fun, apply_fun) of the convnet, for `lib` = tf8 or jax."""
    stax = importlib.import_module(f"{lib.__name__}.example_libraries.stax")
    return stax.serial(
        stax.Conv(8, (3, 3), padding="SAME"),
        stax.Relu,
        stax.Conv(16, (3, 3), padding="SAME"),
        stax.Relu,
        stax.MaxPool((2, 2), strides=(2, 2)),
        stax.Flatten,
        stax.Dense(CLASSES),
        stax.LogSoftmax,
    )


def _loss(lib: Any, predict: Any) -> Any:
    jnp = lib.numpy
    return lambda params, x, y: -jnp.mean(jnp.sum(predict(params, x) * y, axis=1))


def _data(options: Options) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """Parameters (stax's initialisation by tf8, as numpy arrays), images and one-hot labels."""
    import tf8

    batch, size = (2, 6) if options.tiny else (32, 28)
    init, _ = _network(tf8)
    _, params = init(tf8.random.PRNGKey(0), (-1, size, size, 1))
    params = tf8.tree.tree_map(np.asarray, params)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, size, size, 1))
    return params, x, np.eye(CLASSES)[rng.integers(0, CLASSES, batch)]


# --- the step by hand in numpy ----------------------------------------------------------------


def _windows(x: np.ndarray) -> np.ndarray:
    """The 3×3 windows of `x` (NHWC) padded by one ('SAME'): n, h, w, c, 3, 3."""
    return sliding_window_view(np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))), (3, 3), axis=(1, 2))


def _conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.einsum("nhwckl,klco->nhwo", _windows(x), w, optimize=True)


def numpy_value_and_grad(params: list[Any], x: np.ndarray, y: np.ndarray) -> tuple[Any, Any]:
    (w1, b1), _, (w2, b2), _, _, _, (w3, b3), _ = params
    n = x.shape[0]
    a1 = _conv(x, w1) + b1
    h1 = np.maximum(a1, 0)
    a2 = _conv(h1, w2) + b2
    h2 = np.maximum(a2, 0)
    blocks = h2.reshape(n, h2.shape[1] // 2, 2, h2.shape[2] // 2, 2, h2.shape[3])
    pooled = blocks.max(axis=(2, 4))
    z = pooled.reshape(n, -1) @ w3 + b3
    shifted = z - z.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    value = -np.mean(np.sum(log_p * y, axis=1))
    # backward
    d_log_p = -y / n
    dz = d_log_p - np.exp(log_p) * d_log_p.sum(axis=1, keepdims=True)
    dw3, db3 = pooled.reshape(n, -1).T @ dz, dz.sum(axis=0)
    d_pooled = (dz @ w3.T).reshape(pooled.shape)
    # ties (zeros after Relu) meet a zero Relu derivative, so the mask may take them all
    chosen = blocks == pooled[:, :, None, :, None]
    d_h2 = (chosen * d_pooled[:, :, None, :, None]).reshape(h2.shape)
    d_a2 = d_h2 * (a2 > 0)
    dw2 = np.einsum("nhwckl,nhwo->klco", _windows(h1), d_a2, optimize=True)
    db2 = d_a2.sum(axis=(0, 1, 2), keepdims=True)
    flipped = w2[::-1, ::-1].transpose(0, 1, 3, 2)
    d_a1 = np.einsum("nhwokl,kloc->nhwc", _windows(d_a2), flipped, optimize=True) * (a1 > 0)
    dw1 = np.einsum("nhwckl,nhwo->klco", _windows(x), d_a1, optimize=True)
    db1 = d_a1.sum(axis=(0, 1, 2), keepdims=True)
    grads = [(dw1, db1), (), (dw2, db2), (), (), (), (dw3, db3), ()]
    return value, grads


# --- the variants -----------------------------------------------------------------------------


def _variants(options: Options) -> Variants:
    import tf8

    params, x, y = _data(options)
    _, predict = _network(tf8)
    step = tf8.jit(tf8.value_and_grad(_loss(tf8, predict)))
    variants: Variants = {
        BASELINE: lambda: numpy_value_and_grad(params, x, y),
        "tf8.jit": lambda: step(params, x, y),
    }
    jax = optional_module("jax")
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        _, jax_predict = _network(jax)
        jax_step = jax.jit(jax.value_and_grad(_loss(jax, jax_predict)))
        jax_params, jx, jy = jax.tree_util.tree_map(jax.numpy.asarray, (params, x, y))
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_step(jax_params, jx, jy))
    return variants


WORKLOADS = [
    Workload(
        "convnet_step",
        "stax convnet (2 convs 3×3 of 8 and 16, max-pool, dense) value_and_grad, batch 32",
        _variants,
        blas_bound=True,
        rtol=1e-9,
        atol=1e-12,
        max_rounds=21,
    ),
]
