"""tf8.random: JAX's raw-key PRNG API, bit-exact with JAX's default threefry2x32.

A key is a uint32 array of shape (2,), as `jax.random.PRNGKey` makes. Everything is written in
tf8's primitives, so it runs eagerly, under `jit`, under `vmap` and inside `scan`; defaults
follow tf8 (float64, int64), as JAX does with x64 enabled.
"""

from tf8.random.basic import bernoulli, normal, randint, uniform
from tf8.random.keys import (
    PRNGKey,
    bits,
    fold_in,
    key,
    key_data,
    split,
    threefry_2x32,
    wrap_key_data,
)

__all__ = [
    "PRNGKey",
    "bernoulli",
    "bits",
    "fold_in",
    "key",
    "key_data",
    "normal",
    "randint",
    "split",
    "threefry_2x32",
    "uniform",
    "wrap_key_data",
]
