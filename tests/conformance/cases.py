"""The conformance corpus's cases: each function shared with JAX, named once with its
argument grid (record.py runs them through JAX, test_replay.py through tf8).

A case is (function name, arguments, keywords). An argument is a numpy array (its dtype and
shape are the case's) or a Python scalar, which JAX and tf8 treat as weakly typed. Grids cover 0-d,
empty and broadcasting shapes; float32, float64, complex, int and bool; and special values
(signed zeros, infinities, NaN, ties). To record a new function, add its name to a family
below (or a family of its own with its grid) and run record.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

Case = tuple[str, tuple[Any, ...], dict[str, Any]]  # (function, arguments, keywords)

UNARY = [
    "abs", "absolute", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cbrt",
    "ceil", "conj", "conjugate", "cos", "cosh", "deg2rad", "degrees", "exp", "exp2", "expm1",
    "fabs", "floor", "imag", "isfinite", "isinf", "isnan", "log", "log10", "log1p",
    "log2", "logical_not", "negative", "positive", "rad2deg", "radians", "real", "reciprocal",
    "rint", "sign", "signbit", "sin", "sinc", "sinh", "sqrt", "square", "tan", "tanh", "trunc",
    "angle", "i0", "isreal", "iscomplex", "isneginf", "isposinf", "nan_to_num",
]  # fmt: skip

BINARY = [
    "add", "arctan2", "copysign", "divide", "equal", "float_power", "floor_divide", "fmax",
    "fmin", "fmod", "greater", "greater_equal", "heaviside", "hypot", "less", "less_equal",
    "logaddexp", "logaddexp2", "logical_and", "logical_or", "logical_xor", "maximum",
    "minimum", "mod", "multiply", "not_equal", "power", "remainder", "subtract", "true_divide",
]  # fmt: skip

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, 1.5, -2.5, 1.0, -1.0])


def _unary_arguments(rng: np.random.Generator) -> Iterator[tuple[Any, ...]]:
    base = rng.uniform(-0.9, 0.9, (2, 3))
    yield (base,)  # float64
    yield (base.astype(np.float32),)
    yield (np.array(0.3),)  # 0-d
    yield (np.zeros((0,)),)  # empty
    yield (SPECIAL,)
    yield (SPECIAL.astype(np.float32),)
    yield (np.array([-3, -1, 0, 2, 5], np.int32),)
    yield (np.array([-3, 0, 7], np.int64),)
    yield (np.array([True, False]),)
    yield ((base + 1j * base[::-1]).astype(np.complex128),)
    yield (0.75,)  # a weakly typed Python float
    yield (2,)  # a weakly typed Python int


def _binary_arguments(rng: np.random.Generator) -> Iterator[tuple[Any, ...]]:
    a, b = rng.uniform(0.1, 2.0, (2, 2, 3))
    yield (a, b)
    yield (a.astype(np.float32), b.astype(np.float32))
    yield (a.astype(np.float32), b)  # widths mixed
    yield (a, b[0])  # broadcasting
    yield (np.array(1.5), b)  # 0-d against an array
    yield (np.zeros((0, 3)), b[0])  # empty
    yield (a.astype(np.float32), 2.0)  # a weak Python float
    yield (2.0, b)
    yield (np.array([1, -2, 3], np.int32), np.array([2, 2, -2], np.int32))
    yield (np.array([1, -2, 3], np.int32), a[0].astype(np.float32))  # int with float32
    yield (np.array([7, -7, 9], np.int64), 3)  # a weak Python int
    yield (np.array([True, False, True]), np.array([True, True, False]))
    yield (SPECIAL, SPECIAL[::-1].copy())
    yield (SPECIAL.astype(np.float32), np.float32(1.5) * np.ones(10, np.float32))
    yield ((a + 1j * b).astype(np.complex128), b)


REDUCTIONS = [
    "sum", "prod", "mean", "max", "min", "argmax", "argmin", "std", "var", "all", "any",
    "cumsum", "cumprod", "nansum", "nanmean", "amax", "amin", "ptp", "median",
    "count_nonzero", "average",
]  # fmt: skip


def _reduction_arguments(rng: np.random.Generator) -> Iterator[tuple[tuple, dict]]:
    base = rng.uniform(-2.0, 2.0, (3, 4))
    for x in (base, base.astype(np.float32), np.array([[1, -2, 3], [4, 0, -6]], np.int32)):
        for keywords in ({}, {"axis": 0}, {"axis": 1}, {"axis": -1, "keepdims": True}):
            yield (x,), keywords
    yield (np.array([[True, False], [True, True]]),), {"axis": 0}
    yield (np.array([[1.0, np.nan], [np.inf, 2.0]]),), {"axis": 1}
    yield (np.array(2.5),), {}
    yield (np.zeros((0, 3)),), {"axis": 1}


def cases() -> Iterator[Case]:
    """Every case, in a fixed order (the ledger names them by function and arguments)."""
    for name in UNARY:
        rng = np.random.default_rng(len(name))
        for args in _unary_arguments(rng):
            yield name, args, {}
    for name in BINARY:
        rng = np.random.default_rng(len(name) + 100)
        for args in _binary_arguments(rng):
            yield name, args, {}
    for name in REDUCTIONS:
        rng = np.random.default_rng(len(name) + 200)
        for args, keywords in _reduction_arguments(rng):
            yield name, args, keywords
