"""`jax.lax`'s arithmetic functions of two arrays, over the shared binary grid (its dtype
lattice records mostly refusals: lax wants equal dtypes and does not promote) and values
that probe each function's edges: signed zeros and NaN for max and min, truncation for div
and rem, zero and negative bases for pow."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..grids import binary, dtype_pairs
from ..spec import Case

BINARY = ["add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "complex"]

NAN = np.nan
EDGES = {
    "max": [
        (np.array([0.0, -0.0, NAN, 1.0, 2.0]), np.array([-0.0, 0.0, 1.0, NAN, 2.0])),
        (np.array([1, -5, 3], np.int32), np.array([2, -7, 3], np.int32)),
        (np.array([True, False]), np.array([False, False])),
        (np.array([1.0 + 2j, 1.0 - 1j]), np.array([1.0 + 1j, 0.5 + 5j])),  # lexicographic
    ],
    "div": [
        (np.array([7, -7, 7, -7, 0], np.int32), np.array([2, 2, -2, -2, 5], np.int32)),
        (np.array([1.0, -1.0, 0.0, -0.0]), np.array([0.0, 0.0, 0.0, -0.0])),
        (np.array([200, 7], np.uint8), np.array([3, 9], np.uint8)),
    ],
    "rem": [
        (np.array([5.5, -5.5, 5.5, -5.5, 0.0, -0.0]), np.array([2.0, 2.0, -2.0, -2.0, 1.0, 1.0])),
        (np.array([1.5, np.inf, 3.0]), np.array([0.0, 2.0, np.inf])),
        (np.array([7, -7, 7, -7], np.int32), np.array([3, 3, -3, -3], np.int32)),
    ],
    "pow": [
        (np.array([0.0, 0.0, 0.0, -0.0, 2.0, -2.0]), np.array([0.0, 2.0, -1.0, 3.0, 0.0, 0.5])),
        (np.array([-2.0, -2.0, -8.0, 1.0, -1.0]), np.array([2.0, 3.0, 1 / 3, NAN, np.inf])),
        (np.array([-2.0, 3.0, 0.5]), np.array([3, -2, 0], np.int32)),  # float ** int
        (np.array([-2.0, 3.0], np.float32), np.array([3, 2], np.int64)),
        (np.array([2, 3], np.int32), np.array([3, 2], np.int32)),
        (np.array([1.0 + 1j, -2.0]), np.array([2.0 + 0j, 0.5 + 0.5j])),
    ],
    "atan2": [
        (np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0]), np.array([0.0, 0.0, -0.0, -0.0, NAN, 0.0])),
        (np.array([np.inf, np.inf, -np.inf, 1.0]), np.array([np.inf, -np.inf, 1.0, -np.inf])),
    ],
    "complex": [
        (np.array([1.0, 0.0, NAN]), np.array([-0.0, np.inf, 1.0])),
        (np.array([1.0, 2.0], np.float32), np.array([0.5, -3.0], np.float32)),
    ],
}
EDGES["min"] = EDGES["max"]


def _same_dtypes(args: tuple) -> bool:
    return len({np.asarray(a).dtype for a in args}) == 1


def cases() -> Iterator[Case]:
    # The lattice's cells and the mixed dtypes (pow's float ** int) record no derivatives:
    # they are about which dtypes each function takes, and where tf8 refuses a cell that JAX
    # computes, replay.py's derivative pass (outside its guard) would stop the replay.
    lattice = len(list(dtype_pairs()))
    for name in BINARY:
        rng = np.random.default_rng(len(name) + 400)
        for k, args in enumerate(binary(rng)):
            yield Case(f"lax.{name}", args, derivatives=k >= lattice and _same_dtypes(args))
        for args in EDGES.get(name, []):
            yield Case(f"lax.{name}", args, derivatives=_same_dtypes(args))
