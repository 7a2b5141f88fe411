"""Argument grids shared by the families: shapes (0-d, empty, broadcasting), every dtype tf8
and JAX share, weakly typed Python scalars, and special values (signed zeros, infinities, NaN,
ties)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

ARRAY_DTYPES = [
    np.bool_, np.uint8, np.uint32, np.int32, np.int64, np.float16, np.float32, np.float64,
    np.complex64, np.complex128,
]  # fmt: skip
SCALARS = [True, 2, 1.5, 1.0 + 0.5j]  # weakly typed: bool, int, float, complex
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, 1.5, -2.5, 1.0, -1.0])

# value ranges a unary function is sampled on: inside (-1, 1), above 1, and wide
RANGES = {"unit": (-0.9, 0.9), "above_one": (1.1, 4.0), "wide": (-30.0, 30.0)}


def small(dtype: Any, values: tuple = (1, 2, 3)) -> np.ndarray:
    """`values` as a 1-d array of `dtype` (bool: nonzero is True)."""
    if np.dtype(dtype) == np.bool_:
        return np.array([v % 2 == 1 for v in values])
    return np.array(values).astype(dtype)


def unary(rng: np.random.Generator, ranges: tuple[str, ...] = ("unit", "wide")) -> Iterator:
    """The grid of a function of one array: each dtype, each value range, 0-d, empty, the
    special values, and each weak Python scalar."""
    for label in ranges:
        low, high = RANGES[label]
        base = rng.uniform(low, high, (2, 3))
        yield (base,)
        yield (base.astype(np.float32),)
        yield ((base + 1j * base[::-1]).astype(np.complex128),)
    yield (rng.uniform(-0.9, 0.9, (2, 3)).astype(np.float16),)
    yield ((rng.uniform(-0.9, 0.9, 3) + 0.25j).astype(np.complex64),)
    yield (np.array(0.3),)  # 0-d
    yield (np.array(0.3, np.float32),)
    yield (np.zeros((0,)),)  # empty
    yield (np.zeros((2, 0), np.float32),)
    yield (SPECIAL,)
    yield (SPECIAL.astype(np.float32),)
    yield (np.array([-3, -1, 0, 2, 5], np.int32),)
    yield (np.array([-3, 0, 7], np.int64),)
    yield (np.array([0, 3, 200], np.uint8),)
    yield (np.array([0, 5, 2**31 + 3], np.uint32),)
    yield (np.array([True, False]),)
    yield (0.75,)  # weakly typed Python scalars
    yield (2,)
    yield (True,)
    yield (0.5 - 0.25j,)


def dtype_pairs() -> Iterator[tuple[Any, Any]]:
    """Every pair of (array dtype or weak scalar): the promotion lattice, cell by cell."""
    operands: list[Any] = [small(d) for d in ARRAY_DTYPES] + SCALARS
    partners: list[Any] = [small(d, (2, 2, 1)) for d in ARRAY_DTYPES] + SCALARS
    for a in operands:
        for b in partners:
            yield a, b


def mixed(args: tuple) -> bool:
    """Whether `args` holds arrays of two dtypes (a lattice cell whose derivatives the cells
    of one dtype already show: families record values only)."""
    return len({a.dtype for a in args if isinstance(a, np.ndarray)}) > 1


def binary(rng: np.random.Generator) -> Iterator:
    """The grid of a function of two arrays: the dtype lattice, then shapes and values."""
    yield from dtype_pairs()
    a, b = rng.uniform(0.1, 2.0, (2, 2, 3))
    yield (a, b)
    yield (a.astype(np.float32), b.astype(np.float32))
    yield (a, b[0])  # broadcasting
    yield (a[:, :1], b[0])  # both broadcast
    yield (np.array(1.5), b)  # 0-d against an array
    yield (np.zeros((0, 3)), b[0])  # empty
    yield (-a, b)
    yield (a, -b)
    yield (np.array([7, -7, 9, -9], np.int64), np.array([3, 3, -3, -3], np.int64))
    yield (np.array([7, -7, 9, 0], np.int32), np.array([2, -4, 5, 3], np.int32))
    yield (SPECIAL, SPECIAL[::-1].copy())
    yield (SPECIAL.astype(np.float32), np.float32(1.5) * np.ones(10, np.float32))
    yield (SPECIAL, np.zeros(10))
    yield ((a + 1j * b).astype(np.complex128), b)


def reduction_arrays(rng: np.random.Generator) -> list[np.ndarray]:
    """A reduction's operands: float64, float32, int32, uint8 and complex128 matrices."""
    base = rng.uniform(-2.0, 2.0, (3, 4))
    return [
        base,
        base.astype(np.float32),
        np.array([[1, -2, 3], [4, 0, -6]], np.int32),
        np.array([[1, 2], [3, 250]], np.uint8),
        (base + 0.5j * base[::-1]).astype(np.complex128),
    ]


def reductions(rng: np.random.Generator) -> Iterator[tuple[tuple, dict]]:
    """(args, keywords) of a reduction: dtypes, each axis, keepdims, NaN and inf, 0-d, empty."""
    for x in reduction_arrays(rng):
        for keywords in ({}, {"axis": 0}, {"axis": 1}, {"axis": -1, "keepdims": True}):
            yield (x,), keywords
    yield (rng.uniform(-2.0, 2.0, (2, 3, 2)),), {"axis": [0, 2]}
    yield (np.array([[True, False], [True, True]]),), {"axis": 0}
    yield (np.array([[True, False], [True, True]]),), {}
    yield (np.array([[1.0, np.nan], [np.inf, 2.0]]),), {"axis": 1}
    yield (np.array([[1.0, 3.0], [3.0, -np.inf]]),), {"axis": 0}  # ties
    yield (np.array(2.5),), {}
    yield (np.zeros((0, 3)),), {"axis": 1}
    yield (np.zeros((0, 3)),), {"axis": 0}
