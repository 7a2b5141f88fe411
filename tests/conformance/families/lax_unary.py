"""`jax.lax`'s elementwise functions of one array, over the shared unary grid, and
`integer_pow` and `round`'s parameters.

lax does not promote: an integer or bool operand of a float function, and a Python int
(int64) or complex (complex128) scalar where the function wants a float, are refused."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..grids import SPECIAL, unary
from ..spec import Case, Static

UNARY = [
    "abs", "acos", "asin", "atan", "bessel_i0e", "bessel_i1e", "bitwise_not", "ceil", "conj",
    "cos", "cosh", "digamma", "erf", "erf_inv", "exp", "expm1", "floor", "imag", "lgamma",
    "log", "log1p", "logistic", "neg", "real", "round", "rsqrt", "sign", "sin", "sinh",
    "sqrt", "square", "tan", "tanh",
]  # fmt: skip
ABOVE_ONE = {"log", "sqrt", "rsqrt"}  # also sampled where they are real
UNIT_ONLY = {"acos", "asin", "erf_inv"}  # defined on [-1, 1]
# JAX's trigamma is wrong far left of 0 (polygamma(1, -25.7) < 0): not the wide range
GAMMAS = {"lgamma", "digamma"}

# the poles of lgamma and digamma, and both sides of them
POLES = np.array([0.0, -0.0, -1.0, -2.0, -2.5, -0.5, 1e-300, 1.0, 2.0, 1e10, np.inf, -np.inf])


def _integer_pow(rng: np.random.Generator) -> Iterator[Case]:
    base = rng.uniform(-2.0, 2.0, (2, 3))
    arrays = [
        base,
        base.astype(np.float32),
        (base + 0.5j * base[::-1]).astype(np.complex128),
        np.array([-3, -1, 0, 2, 5], np.int32),
        np.array(1.5),
        np.zeros((0, 2)),
        SPECIAL,
    ]
    for y in (0, 1, 2, 3, 5, -1, -2):
        for x in arrays:
            yield Case("lax.integer_pow", (x, Static(y)))
    yield Case("lax.integer_pow", (1.5, Static(2)))  # a weak scalar base
    yield Case("lax.integer_pow", (2, Static(3)))
    yield Case("lax.integer_pow", (np.array([1, 2], np.uint8), Static(3)))
    yield Case("lax.integer_pow", (np.array([True, False]), Static(2)))  # refused


def _round() -> Iterator[Case]:
    # derivatives=False: round's derivative is zero, and replay.py computes a case's
    # derivatives outside its guard, so a refused keyword would stop the whole replay
    ties = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, 3.7, -3.2])
    for method in (0, 1):  # AWAY_FROM_ZERO, TO_NEAREST_EVEN
        yield Case("lax.round", (ties,), {"rounding_method": method}, derivatives=False)
        yield Case(
            "lax.round", (ties.astype(np.float32),), {"rounding_method": method}, derivatives=False
        )
        yield Case("lax.round", (SPECIAL,), {"rounding_method": method}, derivatives=False)


def cases() -> Iterator[Case]:
    for name in UNARY:
        rng = np.random.default_rng(len(name) + 300)
        if name in UNIT_ONLY:
            ranges: tuple[str, ...] = ("unit",)
        elif name in GAMMAS:
            ranges = ("unit", "above_one")
        elif name in ABOVE_ONE:
            ranges = ("unit", "above_one", "wide")
        else:
            ranges = ("unit", "wide")
        for args in unary(rng, ranges):
            yield Case(f"lax.{name}", args)
        if name in ("lgamma", "digamma"):
            yield Case(f"lax.{name}", (POLES,))
            yield Case(f"lax.{name}", (POLES.astype(np.float32),))
    yield from _integer_pow(np.random.default_rng(7))
    yield from _round()
