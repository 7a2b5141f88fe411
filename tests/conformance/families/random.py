"""`jax.random` on raw uint32[2] keys (tf8 claims bit-exactness with JAX's threefry): each
sampler over keys, shapes (0-d, empty, 2-d), dtypes and its parameters; the derivatives of the
reparameterized samplers with respect to their parameter arrays; typed keys (`random.key`)
through programs that return their data; and the keys, shapes and dtypes JAX refuses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..spec import Case, Static, program

KEYS = [np.array([0, 0], np.uint32), np.array([0, 42], np.uint32)]
BIG_KEY = np.array([2**31 + 5, 2**32 - 1], np.uint32)
SHAPES: list[tuple] = [(2, 3), (5,), (), (0,)]
FLOATS = ("float64", "float32", "float16")

# samplers of (key, shape, dtype) with no parameter
PLAIN = ["normal", "uniform", "cauchy", "exponential", "gumbel", "laplace", "logistic", "maxwell"]


# --- typed keys: recorded through their data ---------------------------------------------------


@program("random.key_data_of_key")
def _key_data_of_key(root: Any) -> Any:
    return lambda seed: root.random.key_data(root.random.key(seed))


@program("random.split_of_key")
def _split_of_key(root: Any) -> Any:
    random = root.random
    return lambda seed, **kw: random.key_data(random.split(random.key(seed), **kw))


@program("random.fold_in_of_key")
def _fold_in_of_key(root: Any) -> Any:
    random = root.random
    return lambda seed, data: random.key_data(random.fold_in(random.key(seed), data))


@program("random.wrap_key_data_round_trip")
def _wrap_round_trip(root: Any) -> Any:
    return lambda data: root.random.key_data(root.random.wrap_key_data(data))


@program("random.normal_of_wrapped_key")
def _normal_of_wrapped(root: Any) -> Any:
    return lambda data, **kw: root.random.normal(root.random.wrap_key_data(data), **kw)


@program("random.uniform_of_key")
def _uniform_of_key(root: Any) -> Any:
    return lambda seed, **kw: root.random.uniform(root.random.key(seed), **kw)


# --- cases -------------------------------------------------------------------------------------


def key_cases() -> Iterator[Case]:
    for seed in (0, 42, -1, 2**31 + 7):
        yield Case("random.PRNGKey", (seed,))
        yield Case("random.key_data_of_key", (seed,))
    for seed in (
        np.array(7, np.int32),
        np.array(-7, np.int32),
        np.array(2**40 + 3, np.int64),
        np.array(2**32 - 1, np.uint32),
        np.array(5, np.uint8),
    ):
        yield Case("random.PRNGKey", (seed,))
        yield Case("random.key_data_of_key", (seed,))
    yield Case("random.PRNGKey", (np.array([1, 2], np.int32),))  # refused: not a scalar
    yield Case("random.PRNGKey", (1.5,))  # refused: not an integer
    for key in (*KEYS, BIG_KEY):
        for num in (1, 2, 3, 5):
            yield Case("random.split", (key,), {"num": num})
        yield Case("random.split", (key,))
        yield Case("random.split", (key,), {"num": (2, 3)})
        for data in (0, 1, 2**31 + 1, -3):
            yield Case("random.fold_in", (key, data))
        yield Case("random.fold_in", (key, np.array(7, np.uint32)))
        yield Case("random.fold_in", (key, np.array(-7, np.int32)))
        yield Case("random.key_data", (key,))
        yield Case("random.wrap_key_data_round_trip", (key,))
        yield Case("random.normal_of_wrapped_key", (key,), {"shape": (3,)})
    for num in (2, 4):
        yield Case("random.split_of_key", (3,), {"num": num})
    yield Case("random.fold_in_of_key", (3, 11))
    yield Case("random.uniform_of_key", (3,), {"shape": (2, 2)})
    yield Case("random.split", (KEYS[0], Static(0)))
    yield Case("random.split", (np.zeros(3, np.uint32),))  # refused: a bad key
    yield Case("random.split", (np.zeros((2, 2), np.uint32),))  # a batch of keys: refused
    yield Case("random.fold_in", (np.zeros(2, np.int32), 1))  # refused: not uint32
    yield Case("random.fold_in", (KEYS[1], 1.5))  # refused: data is not an integer
    yield Case("random.wrap_key_data_round_trip", (np.zeros(3, np.uint32),))  # refused

    for key in KEYS:
        for shape in SHAPES:
            yield Case("random.bits", (key,), {"shape": shape})
        for dtype in ("uint8", "uint16", "uint32", "uint64"):
            yield Case("random.bits", (key,), {"shape": (4,), "dtype": dtype})
    yield Case("random.bits", (KEYS[0],), {"shape": (3,), "dtype": "int32"})  # refused
    yield Case("random.bits", (KEYS[0], Static((2, 2))))


def plain_cases() -> Iterator[Case]:
    for name in PLAIN:
        for key in (*KEYS, BIG_KEY):
            yield Case(f"random.{name}", (key,))
            yield Case(f"random.{name}", (key,), {"shape": (2, 3)})
        for shape in SHAPES[1:]:
            for dtype in FLOATS:
                yield Case(f"random.{name}", (KEYS[1],), {"shape": shape, "dtype": dtype})
        yield Case(f"random.{name}", (KEYS[1], Static((3,))))
        yield Case(f"random.{name}", (KEYS[1],), {"shape": (2,), "dtype": "int32"})  # refused
        yield Case(f"random.{name}", (np.array([1, 2, 3], np.uint32),))  # refused: a bad key
    yield Case("random.gumbel", (KEYS[1],), {"shape": (4,), "mode": "high"})
    yield Case("random.gumbel", (KEYS[1],), {"shape": (4,), "mode": "low"})
    for key in KEYS:
        for shape in SHAPES:
            yield Case("random.rademacher", (key,), {"shape": shape})
    for dtype in ("int32", "int8", "float32"):
        yield Case("random.rademacher", (KEYS[1],), {"shape": (5,), "dtype": dtype})

    # uniform's bounds, traced (derivatives wrt them) and static
    bounds = (np.array([-1.0, 0.0, 2.0]), np.array([1.0, 0.5, 10.0]))
    yield Case("random.uniform", (KEYS[1], Static((3,)), Static("float64"), *bounds))
    yield Case("random.uniform", (KEYS[1], Static((2, 3)), Static("float64"), *bounds))
    f32 = tuple(b.astype(np.float32) for b in bounds)
    yield Case("random.uniform", (KEYS[1], Static((3,)), Static("float32"), *f32))
    yield Case("random.uniform", (KEYS[1], Static((3,)), Static("float64"), -2, 3))
    yield Case("random.uniform", (KEYS[1],), {"shape": (3,), "minval": 5.0, "maxval": 6.0})
    yield Case("random.uniform", (KEYS[1], Static((2,)), Static("float64"), *bounds))  # refused

    for key in KEYS:
        for shape in SHAPES:
            yield Case("random.randint", (key, Static(shape), 0, 10))
    for lo, hi, dtype in (
        (-5, 5, "int32"),
        (0, 256, "uint8"),
        (0, 3, "uint8"),
        (-(2**40), 2**40, "int64"),
        (0, 2**32 - 1, "uint32"),
        (3, 3, "int32"),  # empty range: every draw is minval
        (5, 2, "int32"),
        (-300, 300, "int8"),  # bounds clipped to the dtype
    ):
        yield Case(
            "random.randint", (KEYS[1], Static((6,))), {"minval": lo, "maxval": hi, "dtype": dtype}
        )
    low, high = np.array([0, 10, -5], np.int64), np.array([1, 20, 5], np.int64)
    yield Case("random.randint", (KEYS[1], Static((2, 3)), low, high))
    yield Case("random.randint", (KEYS[1], Static((3,)), low.astype(np.int32), 7))
    yield Case("random.randint", (KEYS[1], Static((3,)), 0, 5), {"dtype": "float32"})  # refused


def parameter_cases() -> Iterator[Case]:
    """Samplers of parameter arrays; derivatives where JAX reparameterizes."""
    k = KEYS[1]
    a = np.array([0.3, 1.0, 2.5, 9.0])
    small = np.array([0.01, 0.05])
    for name in ("gamma", "loggamma", "chisquare", "t"):
        # derivatives (recorded slowly: JAX compiles its rejection loops) on the first three
        yield Case(f"random.{name}", (k, a))
        yield Case(f"random.{name}", (k, a.astype(np.float32)))
        yield Case(f"random.{name}", (k, a), {"shape": (2, 4)})
        yield Case(f"random.{name}", (KEYS[0], np.array(1.7)), {"shape": (3,)}, derivatives=False)
        yield Case(f"random.{name}", (k, 2.0), {"shape": (3,)})  # a weak scalar parameter
        yield Case(f"random.{name}", (k, a), {"dtype": "float32"}, derivatives=False)
        yield Case(f"random.{name}", (k, small), derivatives=False)
        yield Case(f"random.{name}", (k, a), {"shape": (3,)})  # refused: a does not broadcast
    yield Case("random.gamma", (k, np.array([0.0, -1.0])), derivatives=False)
    b = np.array([2.0, 0.5, 1.0, 4.0])
    yield Case("random.beta", (k, a, b))
    yield Case("random.beta", (k, a.astype(np.float32), b.astype(np.float32)))
    yield Case("random.beta", (k, a, np.array(1.5)), {"shape": (2, 4)})
    yield Case("random.beta", (k, small, small), derivatives=False)
    yield Case("random.beta", (KEYS[0], 2.0, 3.0), {"shape": (5,)})
    alpha = np.array([0.5, 1.0, 3.0])
    yield Case("random.dirichlet", (k, alpha))
    yield Case("random.dirichlet", (k, alpha.astype(np.float32)))
    yield Case("random.dirichlet", (k, np.stack([alpha, alpha[::-1]])))
    yield Case("random.dirichlet", (k, alpha), {"shape": (2,)})
    yield Case("random.dirichlet", (k, np.array([0.02, 0.03])), derivatives=False)
    yield Case("random.dirichlet", (k, np.array(1.0)))  # refused: alpha is 0-d
    for p in (np.array(0.5), np.array(1.0), np.array(2.0), np.array(4.0, np.float32)):
        yield Case("random.generalized_normal", (k, p), {"shape": (2, 3)})
    yield Case("random.generalized_normal", (k, 1.5), {"shape": (3,), "dtype": "float32"})
    for d, p, shape in ((1, 2, ()), (3, 2, (2,)), (3, 1, (4,)), (2, 0.5, ()), (4, 2, (0,))):
        yield Case("random.ball", (k, Static(d)), {"p": p, "shape": shape})
    yield Case("random.ball", (k, Static(2)), {"dtype": "float32"})

    scale = np.array([0.5, 1.0, 3.0])
    for name in ("pareto", "rayleigh", "lognormal"):
        yield Case(f"random.{name}", (k, scale))
        yield Case(f"random.{name}", (k, scale.astype(np.float32)))
        yield Case(f"random.{name}", (k, scale), {"shape": (2, 3)})
        yield Case(f"random.{name}", (k, 2.0), {"shape": (3,)})
        yield Case(f"random.{name}", (KEYS[0], np.array(1.5)), {"shape": (2,), "dtype": "float32"})
    yield Case("random.lognormal", (k,), {"shape": (3,)})
    yield Case("random.weibull_min", (k, scale, np.array([1.0, 2.0, 0.5])), {"shape": (3,)})
    yield Case("random.weibull_min", (k, 2.0, 1.5), {"shape": (2, 2)})
    yield Case("random.weibull_min", (k, np.array(1.0, np.float32), np.array(3.0, np.float32)))
    lower, upper = np.array([-1.0, 0.0, -np.inf]), np.array([1.0, 3.0, 0.5])
    yield Case("random.truncated_normal", (k, lower, upper))
    yield Case("random.truncated_normal", (k, lower, upper), {"shape": (2, 3)})
    yield Case("random.truncated_normal", (k, lower.astype(np.float32), upper.astype(np.float32)))
    yield Case("random.truncated_normal", (k, -2.0, 2.0), {"shape": (4,)})
    yield Case("random.truncated_normal", (k, np.array(5.0), np.array(6.0)), {"shape": (3,)})

    mean = np.array([1.0, -1.0, 0.5])
    q = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
    for method in ("cholesky", "eigh", "svd"):
        yield Case("random.multivariate_normal", (k, mean, q), {"method": method})
    yield Case("random.multivariate_normal", (k, mean, q), {"shape": (2,)})
    yield Case("random.multivariate_normal", (k, mean.astype(np.float32), q.astype(np.float32)))
    yield Case("random.multivariate_normal", (k, np.stack([mean, -mean]), q))
    yield Case("random.multivariate_normal", (k, mean, q[:2, :2]))  # refused

    lam = np.array([0.5, 3.0, 9.5, 10.0, 40.0, 1e4, 0.0])
    yield Case("random.poisson", (k, lam))
    yield Case("random.poisson", (KEYS[0], lam.astype(np.float32)))
    yield Case("random.poisson", (k, np.array(4.0)), {"shape": (3, 2)})
    yield Case("random.poisson", (k, lam[:3]), {"shape": (2, 3), "dtype": "int32"})
    yield Case("random.poisson", (k, 25.0), {"shape": (5,)})
    for p in (np.array([0.0, 0.3, 0.5, 0.99, 1.0]), np.array(0.25), 0.7):
        yield Case("random.bernoulli", (k, p), derivatives=False)
    yield Case("random.bernoulli", (k,), {"shape": (4,)})
    yield Case("random.bernoulli", (k, np.array(0.3, np.float32)), {"shape": (2, 3)})
    yield Case("random.bernoulli", (k, 0.4), {"shape": (4,), "mode": "high"}, derivatives=False)


def discrete_cases() -> Iterator[Case]:
    k = KEYS[1]
    logits = np.log(np.array([0.1, 0.2, 0.3, 0.4, 1e-3]))
    table = np.stack([logits, logits[::-1]])
    no = {"derivatives": False}
    yield Case("random.categorical", (k, logits), **no)
    yield Case("random.categorical", (k, logits.astype(np.float32)), **no)
    yield Case("random.categorical", (k, table), **no)
    yield Case("random.categorical", (k, table), {"axis": 0}, **no)
    yield Case("random.categorical", (k, logits), {"shape": (3, 2)}, **no)
    yield Case("random.categorical", (k, table), {"shape": (4, 2)}, **no)
    yield Case("random.categorical", (k, logits), {"shape": (3,), "replace": False}, **no)
    yield Case("random.categorical", (k, np.array([0.0, -np.inf, 0.0])), {"shape": (6,)}, **no)
    yield Case("random.categorical", (k, table), {"shape": (3,)}, **no)  # refused

    a = np.array([1.5, -2.0, 3.25, 4.0, 0.0, 7.5])
    p = np.array([0.1, 0.0, 0.3, 0.2, 0.15, 0.25])
    for args, keywords in (
        ((Static(5),), {}),
        ((Static(5),), {"shape": (3,)}),
        ((Static(5),), {"shape": (2, 4)}),
        ((Static(5),), {"shape": (5,), "replace": False}),
        ((a,), {"shape": (4,)}),
        ((a,), {"shape": (4,), "replace": False}),
        ((a, Static((3,)), Static(True), p), {}),
        ((a, Static((4,)), Static(False), p), {}),
        ((a.astype(np.float32), Static((3,)), Static(True), p.astype(np.float32)), {}),
        ((a.reshape(2, 3),), {"shape": (2,), "axis": 1}),
        ((a.reshape(2, 3),), {"shape": (2,)}),
        ((np.arange(6, dtype=np.int32),), {"shape": (3,), "replace": False}),
        ((Static(3),), {"shape": (4,), "replace": False}),  # refused: too many draws
        ((Static(0),), {"shape": (1,)}),  # refused: nothing to draw from
    ):
        yield Case("random.choice", (k, *args), keywords, **no)

    for args, keywords in (
        ((Static(6),), {}),
        ((Static(1),), {}),
        ((a,), {}),
        ((a.reshape(2, 3),), {}),
        ((a.reshape(2, 3),), {"axis": 1}),
        ((a.reshape(2, 3),), {"axis": 1, "independent": True}),
        ((np.arange(7, dtype=np.int32),), {"independent": True}),
        ((np.zeros(0),), {}),
        ((np.array(3.0),), {}),  # refused: 0-d
    ):
        for key in KEYS:
            yield Case("random.permutation", (key, *args), keywords, **no)

    for n, shape, m in ((3, (), None), (4, (2,), None), (3, (), 5), (5, (), 2), (1, (), None)):
        yield Case("random.orthogonal", (k, Static(n)), {"shape": shape, "m": m})
    yield Case("random.orthogonal", (k, Static(3)), {"dtype": "float32"})


def cases() -> Iterator[Case]:
    yield from key_cases()
    yield from plain_cases()
    yield from parameter_cases()
    yield from discrete_cases()


# the shared names each program calls (test_coverage)
COVERS: dict[str, list[str]] = {
    "random.key_data_of_key": ["random.key", "random.key_data"],
    "random.split_of_key": ["random.key", "random.split", "random.key_data"],
    "random.fold_in_of_key": ["random.key", "random.fold_in", "random.key_data"],
    "random.wrap_key_data_round_trip": ["random.wrap_key_data", "random.key_data"],
    "random.normal_of_wrapped_key": ["random.wrap_key_data", "random.normal"],
    "random.uniform_of_key": ["random.key", "random.uniform"],
}
