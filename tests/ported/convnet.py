"""A small convnet trained as JAX's examples write it: stax's Conv, Relu, MaxPool, AvgPool,
Flatten, Dense and LogSoftmax, a few Adam steps of `jit(value_and_grad(loss))`. Images and
parameters are drawn by numpy (stax's `init_fun` gives the parameters' shapes): the libraries'
`random.normal` agree to a few ulps only in float64, not bit for bit. `run(jax)` takes `jax` or
`tf8`."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

STEPS = 8


def _images(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
    """NHWC images (count, 12, 12, 1), labelled by which of three bands is brightest."""
    x = rng.standard_normal((count, 12, 12, 1))
    bands = x[:, :, :, 0].reshape(count, 3, 4, 12).mean(axis=(2, 3))
    return x, np.eye(3)[np.argmax(bands, axis=1)]


def _drawn(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Normal values of `shape`, scaled by 1/sqrt(fan-in) (every axis but the last)."""
    return rng.standard_normal(shape) / np.sqrt(np.prod(shape[:-1]))


def run(jax: Any) -> dict[str, Any]:
    jnp, random = jax.numpy, jax.random
    name = jax.__name__
    stax = importlib.import_module(f"{name}.example_libraries.stax")
    optimizers = importlib.import_module(f"{name}.example_libraries.optimizers")
    flatten_util = importlib.import_module(f"{name}.flatten_util")

    init_fun, predict = stax.serial(
        stax.Conv(4, (3, 3), padding="SAME"),
        stax.Relu,
        stax.MaxPool((2, 2), strides=(2, 2)),
        stax.Conv(6, (3, 3), strides=(1, 1), padding="VALID"),
        stax.Relu,
        stax.AvgPool((2, 2), strides=(2, 2)),
        stax.Flatten,
        stax.Dense(3),
        stax.LogSoftmax,
    )
    _, shapes = init_fun(random.PRNGKey(7), (-1, 12, 12, 1))
    rng = np.random.default_rng(31)
    params = jax.tree_util.tree_map(lambda p: jnp.asarray(_drawn(rng, p.shape)), shapes)
    inputs, labels = _images(rng, 24)
    test_inputs, _ = _images(rng, 4)

    def loss(params, x, y):
        return -jnp.mean(jnp.sum(predict(params, x) * y, axis=1))

    opt_init, opt_update, get_params = optimizers.adam(0.02)

    @jax.jit
    def step(i, state, x, y):
        value, grads = jax.value_and_grad(loss)(get_params(state), x, y)
        return value, opt_update(i, grads, state)

    state, losses = opt_init(params), []
    for i in range(STEPS):
        value, state = step(i, state, inputs, labels)
        losses.append(value)
    final = get_params(state)
    flat, _ = flatten_util.ravel_pytree(final)
    return {
        "losses": np.asarray(jnp.stack(losses)),
        "params": np.asarray(flat),
        "prediction": np.asarray(predict(final, test_inputs)),
    }
