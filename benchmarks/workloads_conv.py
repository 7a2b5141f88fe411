"""Convolution workloads: a ResNet-like 3×3 convolution (lhs (16, 64, 32, 32) NCHW, kernel
(64, 64, 3, 3) OIHW, stride 1, 'SAME', float64), forward and gradient in both operands of
sum(conv(x, w)²) / 2, tf8.jit against numpy's einsum on a sliding-window view (what a numpy
program writes) and jax.jit when it imports. BLAS-bound: one BLAS thread (JAX's XLA keeps its
own threads; set XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
for a single-threaded JAX row).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from benchmarks.harness import BASELINE, Options, Variants, Workload, optional_module


def _operands(options: Options) -> tuple[np.ndarray, np.ndarray]:
    n, c, size = (2, 4, 6) if options.tiny else (16, 64, 32)
    rng = np.random.default_rng(0)
    return rng.standard_normal((n, c, size, size)), rng.standard_normal((c, c, 3, 3)) / 24


def _windows(x: np.ndarray) -> np.ndarray:
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    return sliding_window_view(padded, (3, 3), axis=(2, 3))  # n, c, h, w, 3, 3


def numpy_forward(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.einsum("nchwkl,ockl->nohw", _windows(x), w, optimize=True)


def numpy_gradient(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """∂/∂x: y convolved with the flipped, transposed kernel; ∂/∂w: x's windows against y."""
    y = numpy_forward(x, w)
    grad_x = np.einsum("nohwkl,ockl->nchw", _windows(y), w[:, :, ::-1, ::-1], optimize=True)
    grad_w = np.einsum("nchwkl,nohw->ockl", _windows(x), y, optimize=True)
    return grad_x, grad_w


def _conv(lax: Any, x: Any, w: Any) -> Any:
    return lax.conv_general_dilated(x, w, (1, 1), "SAME")


def _variants(options: Options, gradient: bool) -> Variants:
    import tf8
    import tf8.numpy as tnp
    from tf8 import lax

    x, w = _operands(options)
    loss = lambda x, w: tnp.sum(_conv(lax, x, w) ** 2) / 2  # noqa: E731
    compiled = tf8.jit(
        tf8.grad(loss, argnums=(0, 1)) if gradient else lambda x, w: _conv(lax, x, w)
    )
    variants: Variants = {
        BASELINE: (lambda: numpy_gradient(x, w)) if gradient else (lambda: numpy_forward(x, w)),
        "tf8.jit": lambda: compiled(x, w),
    }
    jax = optional_module("jax")
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        jnp, jax_lax = optional_module("jax.numpy"), optional_module("jax.lax")
        jax_loss = lambda x, w: jnp.sum(_conv(jax_lax, x, w) ** 2) / 2  # noqa: E731
        forward = lambda x, w: _conv(jax_lax, x, w)  # noqa: E731
        jitted = jax.jit(jax.grad(jax_loss, argnums=(0, 1)) if gradient else forward)
        jx, jw = jnp.asarray(x), jnp.asarray(w)
        variants["jax.jit"] = lambda: jax.block_until_ready(jitted(jx, jw))
    return variants


WORKLOADS = [
    Workload(
        "conv_forward",
        "conv_general_dilated, NCHW (16, 64, 32, 32) by OIHW (64, 64, 3, 3), SAME",
        lambda options: _variants(options, gradient=False),
        blas_bound=True,
        rtol=1e-9,
        atol=1e-9,
        max_rounds=11,
    ),
    Workload(
        "conv_grad",
        "grad of sum(conv(x, w)²)/2 in x and w, the shapes of conv_forward",
        lambda options: _variants(options, gradient=True),
        blas_bound=True,
        rtol=1e-9,
        atol=1e-9,
        max_rounds=11,
    ),
]
