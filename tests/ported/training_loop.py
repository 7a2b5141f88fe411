"""A training loop on JAX's example_libraries API (stax + optimizers), its optimizer state
carried through `lax.fori_loop` inside `jit`, as JAX's examples write it. `run(jax)` takes
`jax` or `tf8`."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np


def run(jax: Any) -> dict[str, Any]:
    jnp, random, lax = jax.numpy, jax.random, jax.lax
    name = jax.__name__
    stax = importlib.import_module(f"{name}.example_libraries.stax")
    optimizers = importlib.import_module(f"{name}.example_libraries.optimizers")
    flatten_util = importlib.import_module(f"{name}.flatten_util")

    init_fun, predict = stax.serial(stax.Dense(16), stax.Tanh, stax.Dense(3), stax.LogSoftmax)
    key = random.PRNGKey(42)
    key, init_key, data_key = random.split(key, 3)
    _, params = init_fun(init_key, (-1, 5))
    inputs = random.normal(data_key, (32, 5))
    labels = jax.nn.one_hot(jnp.argmax(inputs[:, :3], axis=1), 3)

    def loss(params, batch):
        x, y = batch
        return -jnp.mean(jnp.sum(predict(params, x) * y, axis=1))

    opt_init, opt_update, get_params = optimizers.adam(optimizers.exponential_decay(0.05, 10, 0.5))

    @jax.jit
    def train(opt_state):
        def body(i, state):
            g = jax.grad(loss)(get_params(state), (inputs, labels))
            return opt_update(i, g, state)

        return lax.fori_loop(0, 40, body, opt_state)

    state = train(opt_init(params))
    final = get_params(state)
    flat, _ = flatten_util.ravel_pytree(final)
    accuracy = jnp.mean(jnp.argmax(predict(final, inputs), axis=1) == jnp.argmax(labels, axis=1))
    return {
        "initial_loss": np.asarray(loss(params, (inputs, labels))),
        "final_loss": np.asarray(loss(final, (inputs, labels))),
        "params": np.asarray(flat),
        "accuracy": np.asarray(accuracy),
    }
