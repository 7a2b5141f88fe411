"""vmap and batched Jacobians: per-example gradients, Hessians and a Jacobian, steady state and
first calls, against closed forms written by hand in numpy (and JAX when it imports).

- per_example_grads: the gradient in w of the logistic loss log(1 + exp(−y_i x_i·w)) of
  each of 256 examples (64 features, float64), as `vmap(grad(loss), in_axes=(None, 0, 0))`:
  numpy's closed form −y_i x_i σ(−y_i x_i·w), vectorised; tf8.jit(tf8.vmap(tf8.grad)) and
  tf8.vmap(tf8.grad) without jit; jax.jit(jax.vmap(jax.grad)) and jax's eager vmap.
- rosen_hessian: the Hessian of the Rosenbrock function at a 100-d point: numpy's
  tridiagonal closed form (workloads_eager's), tf8.jit(tf8.hessian), jax.jit(jax.hessian).
- hessian_f: the Hessian of f(x) = sum(sin(x) · x[::−1]) + ½ sum(x²)² at a 200-d point:
  numpy's closed form diag(−sin(x) x[::−1] + 2 |x|²) + 4 x xᵀ plus cos(x_k) + cos(x_{n−1−k})
  on the anti-diagonal; tf8.jit(tf8.hessian), jax.jit(jax.hessian).
- jacrev_g: the Jacobian of g(x) = tanh(A x) · x, A a fixed (seeded) 200 × 200 matrix:
  numpy's closed form ((1 − t²) x)[:, None] · A + diag(t), t = tanh(A x);
  tf8.jit(tf8.jacrev), jax.jit(jax.jacrev).
- firstcall_hessian_f / firstcall_jacrev_g: the first call of those jitted transforms. Every
  sample builds a NEW Python function and a NEW jitted function, and tf8's samples clear the
  runtime's program cache first (as in workloads_firstcall); jax.jit of a new function
  retraces and recompiles. Against numpy's closed form (steady state).

hessian_f, jacrev_g and their first calls work on 200 × 200 matrices and run with one BLAS
thread. Under --tiny the sizes shrink (8 examples of 4 features, 10-d and 12-d inputs).

hessian_f's tf8 program is ~20 elementwise ops on (200, 200) float64 intermediates (320 KB
each), so its time depends on the process's malloc state: in a plain process glibc gives the
heap top back and refaults it on every call (about 1.4 ms here); with jax imported, or with
MALLOC_TOP_PAD_/MALLOC_TRIM_THRESHOLD_ raised, the same program takes about 0.36 ms.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.harness import BASELINE, Options, Variants, Workload
from benchmarks.workloads_eager import jax_numpy, rosenbrock, rosenbrock_hessian_numpy

EXAMPLES, FEATURES = 256, 64
ROSEN_SIZE, SIZE = 100, 200


# --- per-example gradients ---------------------------------------------------------------------


def logistic_loss(xp: Any, w: Any, x: Any, y: Any) -> Any:
    """log(1 + exp(−y x·w)) of one example (x: features, y: ±1)."""
    return xp.log1p(xp.exp(-y * (x @ w)))


def per_example_grads_numpy(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row i: −y_i x_i σ(−y_i x_i·w), with σ(−m) = 1 / (1 + exp(m))."""
    margin = y * (x @ w)
    return (-y / (1.0 + np.exp(margin)))[:, None] * x


def per_example_grads(options: Options) -> Variants:
    import tf8
    import tf8.numpy as tnp

    examples, features = (8, 4) if options.tiny else (EXAMPLES, FEATURES)
    rng = np.random.default_rng(0)
    w = rng.standard_normal(features)
    x = rng.standard_normal((examples, features)) / np.sqrt(features)
    y = rng.choice([-1.0, 1.0], examples)
    axes = (None, 0, 0)
    tf8_vmapped = tf8.vmap(tf8.grad(lambda *a: logistic_loss(tnp, *a)), in_axes=axes)
    tf8_jitted = tf8.jit(tf8_vmapped)
    variants: Variants = {
        BASELINE: lambda: per_example_grads_numpy(w, x, y),
        "tf8.jit": lambda: tf8_jitted(w, x, y),
        "tf8 no-jit": lambda: tf8_vmapped(w, x, y),
    }
    if (found := jax_numpy()) is not None:
        jax, jnp = found
        jax_vmapped = jax.vmap(jax.grad(lambda *a: logistic_loss(jnp, *a)), in_axes=axes)
        jax_jitted = jax.jit(jax_vmapped)
        args = [jnp.asarray(a) for a in (w, x, y)]
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_jitted(*args))
        variants["jax no-jit"] = lambda: jax.block_until_ready(jax_vmapped(*args))
    return variants


# --- Hessians and a Jacobian -------------------------------------------------------------------


def f(xp: Any, x: Any) -> Any:
    """sum(sin(x) · x[::−1]) + ½ sum(x²)²."""
    return xp.sum(xp.sin(x) * x[::-1]) + 0.5 * xp.sum(x**2) ** 2


def f_hessian_numpy(x: np.ndarray) -> np.ndarray:
    """With r = n−1−k: ∂f/∂x_k = cos(x_k) x_r + sin(x_r) + 2 |x|² x_k, so the Hessian is
    diag(−sin(x) x[::−1] + 2 |x|²) + 4 x xᵀ, plus cos(x_k) + cos(x_r) at (k, r)."""
    n = x.shape[0]
    hessian = 4.0 * np.outer(x, x)
    k = np.arange(n)
    hessian[k, k] += -np.sin(x) * x[::-1] + 2.0 * (x @ x)
    hessian[k, n - 1 - k] += np.cos(x) + np.cos(x[::-1])
    return hessian


def g(xp: Any, x: Any, a: np.ndarray) -> Any:
    """tanh(A x) · x."""
    return xp.tanh(a @ x) * x


def g_jacobian_numpy(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """∂g_i/∂x_j = (1 − t_i²) x_i A_ij + t_i δ_ij, t = tanh(A x)."""
    t = np.tanh(a @ x)
    jacobian = ((1.0 - t * t) * x)[:, None] * a
    jacobian[np.diag_indices_from(jacobian)] += t
    return jacobian


def _point(n: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(-1.0, 1.0, n)


def _g_data(options: Options) -> tuple[np.ndarray, np.ndarray]:
    n = 12 if options.tiny else SIZE
    rng = np.random.default_rng(1)
    return rng.uniform(-1.0, 1.0, n), rng.standard_normal((n, n)) / np.sqrt(n)


def _steady(transform: str, fn: Callable[..., Any], by_hand: Callable[[], Any], x: Any) -> Variants:
    """numpy's `by_hand()`, and jit(`transform`(lambda v: fn(xp, v))) at x, tf8 and jax."""
    import tf8
    import tf8.numpy as tnp

    tf8_fn = tf8.jit(getattr(tf8, transform)(lambda v: fn(tnp, v)))
    variants: Variants = {BASELINE: by_hand, "tf8.jit": lambda: tf8_fn(x)}
    if (found := jax_numpy()) is not None:
        jax, jnp = found
        jax_fn = jax.jit(getattr(jax, transform)(lambda v: fn(jnp, v)))
        device_x = jnp.asarray(x)
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_fn(device_x))
    return variants


def _first_call(
    transform: str, fn: Callable[..., Any], by_hand: Callable[[], Any], x: Any
) -> Variants:
    """numpy's `by_hand()`, and the first call of a new jit(`transform`(new function)) at x:
    tf8 on a cleared program cache, and jax."""
    import tf8
    import tf8.api
    import tf8.numpy as tnp

    def tf8_call() -> Any:
        tf8.api.default_runtime.clear_cache()
        return tf8.jit(getattr(tf8, transform)(lambda v: fn(tnp, v)))(x)

    variants: Variants = {BASELINE: by_hand, f"tf8.jit({transform})": tf8_call}
    if (found := jax_numpy()) is not None:
        jax, jnp = found
        device_x = jnp.asarray(x)
        variants[f"jax.jit({transform})"] = lambda: jax.block_until_ready(
            jax.jit(getattr(jax, transform)(lambda v: fn(jnp, v)))(device_x)
        )
    return variants


def rosen_hessian(options: Options) -> Variants:
    x = _point(10 if options.tiny else ROSEN_SIZE)
    return _steady("hessian", rosenbrock, lambda: rosenbrock_hessian_numpy(x), x)


def hessian_f(options: Options) -> Variants:
    x = _point(10 if options.tiny else SIZE)
    return _steady("hessian", f, lambda: f_hessian_numpy(x), x)


def jacrev_g(options: Options) -> Variants:
    x, a = _g_data(options)
    return _steady("jacrev", lambda xp, v: g(xp, v, a), lambda: g_jacobian_numpy(x, a), x)


def firstcall_hessian_f(options: Options) -> Variants:
    x = _point(10 if options.tiny else SIZE)
    return _first_call("hessian", f, lambda: f_hessian_numpy(x), x)


def firstcall_jacrev_g(options: Options) -> Variants:
    x, a = _g_data(options)
    return _first_call("jacrev", lambda xp, v: g(xp, v, a), lambda: g_jacobian_numpy(x, a), x)


WORKLOADS = [
    Workload(
        "per_example_grads",
        f"vmap(grad) of a logistic loss: {EXAMPLES} examples × {FEATURES} features, float64",
        per_example_grads,
        rtol=1e-9,
        atol=1e-12,
    ),
    Workload(
        "rosen_hessian",
        f"jit(hessian) of the Rosenbrock function, {ROSEN_SIZE}-d",
        rosen_hessian,
        rtol=1e-9,
        atol=1e-9,
    ),
    Workload(
        "hessian_f",
        f"jit(hessian) of sum(sin(x) * x[::-1]) + 0.5 * sum(x**2)**2, {SIZE}-d",
        hessian_f,
        blas_bound=True,
        rtol=1e-9,
        atol=1e-9,
    ),
    Workload(
        "jacrev_g",
        f"jit(jacrev) of tanh(A @ x) * x, A {SIZE} × {SIZE}",
        jacrev_g,
        blas_bound=True,
        rtol=1e-9,
        atol=1e-12,
    ),
    Workload(
        "firstcall_hessian_f",
        "first call of jit(hessian) of hessian_f's f, 200-d (new function each)",
        firstcall_hessian_f,
        blas_bound=True,
        rtol=1e-9,
        atol=1e-9,
        single_call=True,
        max_rounds=11,
    ),
    Workload(
        "firstcall_jacrev_g",
        "first call of jit(jacrev) of jacrev_g's g, 200-d (new function each)",
        firstcall_jacrev_g,
        blas_bound=True,
        rtol=1e-9,
        atol=1e-12,
        single_call=True,
        max_rounds=11,
    ),
]
