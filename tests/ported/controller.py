"""A controller that relies on JAX's clamped indices: a lookup-table policy reads the table
at an index computed from the state, which runs off the end of the table; JAX clamps the
read (and drops an out-of-bounds write), so the program runs. Written once against the JAX
API: `run(jax)` takes `jax` or `tf8`."""

from __future__ import annotations

from typing import Any

import numpy as np


def run(jax: Any) -> dict[str, Any]:
    jnp, lax = jax.numpy, jax.lax
    gains = jnp.array([0.5, 0.8, 1.1, 1.4])  # a gain per band of |error|

    def policy(table, error):
        band = (jnp.abs(error) * 4.0).astype(jnp.int32)  # past 1.0 this leaves the table
        return -table[band] * error  # clamped read, as JAX's

    def simulate(table, x0):
        def step(carry, _):
            x, visits = carry
            u = policy(table, x)
            band = (jnp.abs(x) * 4.0).astype(jnp.int32)
            visits = visits.at[band].add(1.0)  # out-of-bounds bands are dropped
            x = x + 0.1 * (x + u)
            return (x, visits), x

        (x, visits), xs = lax.scan(step, (x0, jnp.zeros(4)), None, length=30)
        return jnp.sum(xs**2), (x, visits)

    cost, (x, visits) = simulate(gains, 2.5)
    grad = jax.grad(lambda t: simulate(t, 2.5)[0])(gains)
    jit_cost = jax.jit(simulate)(gains, 2.5)[0]
    static_read = gains[7] + gains[-9]  # a static index past either end: clamped
    edges = jnp.arange(5.0)[jnp.array([-1, 6, 2])]
    return {
        k: np.asarray(v)
        for k, v in {
            "cost": cost,
            "x": x,
            "visits": visits,
            "grad": grad,
            "jit_cost": jit_cost,
            "static_read": static_read,
            "edges": edges,
        }.items()
    }
