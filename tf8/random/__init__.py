"""tf8.random: JAX's raw-key PRNG API, bit-exact with JAX's default threefry2x32.

A key is a uint32 array of shape (2,), as `jax.random.PRNGKey` makes. Everything is written in
tf8's primitives, so it runs eagerly, under `jit`, under `vmap` and inside `scan`; defaults
follow tf8 (float64, int64), as JAX does with x64 enabled.
"""

from tf8.ops.tracebacks import api_boundary
from tf8.random.basic import bernoulli, normal, randint, uniform
from tf8.random.continuous import (
    cauchy,
    exponential,
    gumbel,
    laplace,
    logistic,
    lognormal,
    maxwell,
    pareto,
    rademacher,
    rayleigh,
    truncated_normal,
    weibull_min,
)
from tf8.random.gamma import (
    ball,
    beta,
    chisquare,
    dirichlet,
    gamma,
    generalized_normal,
    loggamma,
    t,
)
from tf8.random.keys import (
    PRNGKey,
    bits,
    fold_in,
    key,
    key_data,
    split,
    threefry2x32,
    threefry_2x32,
    wrap_key_data,
)
from tf8.random.multivariate import multivariate_normal, orthogonal
from tf8.random.permutations import categorical, choice, permutation, shuffle
from tf8.random.poisson import poisson

__all__ = [
    "PRNGKey",
    "ball",
    "bernoulli",
    "beta",
    "bits",
    "categorical",
    "cauchy",
    "choice",
    "chisquare",
    "dirichlet",
    "exponential",
    "fold_in",
    "gamma",
    "generalized_normal",
    "gumbel",
    "key",
    "key_data",
    "laplace",
    "loggamma",
    "logistic",
    "lognormal",
    "maxwell",
    "multivariate_normal",
    "normal",
    "orthogonal",
    "pareto",
    "permutation",
    "poisson",
    "rademacher",
    "randint",
    "rayleigh",
    "shuffle",
    "split",
    "t",
    "threefry2x32",
    "threefry_2x32",
    "truncated_normal",
    "uniform",
    "weibull_min",
    "wrap_key_data",
]

# Each public function is an entry point of tf8's API: an error raised through it loses tf8's
# frames from its traceback (tf8.ops.tracebacks).
for _name in __all__:
    globals()[_name] = api_boundary(globals()[_name])
del _name
