"""`jax.lax`'s comparisons, bitwise functions and shifts: the shared dtype lattice (lax
refuses unequal dtypes), then signed zeros, NaN and complex for the comparisons, and for the
integer functions bool, each integer width, negative values and shift amounts at and past
the width (XLA's shifts give 0, or the sign, there)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..grids import binary, dtype_pairs
from ..spec import Case

COMPARISONS = ["eq", "ne", "lt", "le", "gt", "ge"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]
SHIFTS = ["shift_left", "shift_right_arithmetic", "shift_right_logical"]

NAN = np.nan
COMPARED = [
    (np.array([0.0, -0.0, NAN, NAN, np.inf, -np.inf]), np.array([-0.0, 0.0, NAN, 1.0, np.inf, 0])),
    (np.array([1.0 + 1j, 1.0 + 1j, NAN + 0j]), np.array([1.0 + 1j, 1.0 - 1j, NAN + 0j])),
    (np.array([True, False, True]), np.array([True, True, False])),
    (np.array([0, 255, 7], np.uint8), np.array([0, 1, 9], np.uint8)),
    (np.array([2**62, -(2**63), 5], np.int64), np.array([2**62 + 1, 2**63 - 1, 5], np.int64)),
    (np.array([1.5, 2.5], np.float32), np.array(2.0, np.float32)),  # 0-d broadcast
]


def _integers() -> Iterator[tuple]:
    """Operands of the bitwise functions and the shifts: each integer width, bool, negative
    values, shift amounts 0 .. past the width, broadcasting, 0-d and empty."""
    for dtype, bits in ((np.int32, 32), (np.int64, 64), (np.uint8, 8), (np.uint32, 32)):
        info = np.iinfo(dtype)
        values = np.array([1, 5, info.max, info.min, 0, 3, 1, 7], dtype)
        amounts = np.array([0, 1, 2, bits - 1, bits, bits + 1, 3, 1], dtype)
        yield values, amounts
        if info.min < 0:  # negative amounts, and negative values shifted right
            yield np.array([-8, -1, -(2**5), 9], dtype), np.array([1, 3, -1, -2], dtype)
    yield np.array([True, True, False, False]), np.array([True, False, True, False])
    yield np.array([[12, -3], [5, 6]], np.int32), np.array([2, 1], np.int32)  # broadcasting
    yield np.array(6, np.int32), np.array([1, 2, 3], np.int32)  # 0-d against an array
    yield np.zeros((0, 2), np.int64), np.ones((2,), np.int64)  # empty
    yield np.array([1.0, 2.0]), np.array([1.0, 3.0])  # float operands: refused


def cases() -> Iterator[Case]:
    for name in COMPARISONS:
        rng = np.random.default_rng(len(name) + 500)
        for args in binary(rng):
            yield Case(f"lax.{name}", args)
        for args in COMPARED:
            yield Case(f"lax.{name}", args)
    for name in BITWISE + SHIFTS:
        for args in dtype_pairs():
            yield Case(f"lax.{name}", args)
        for args in _integers():
            yield Case(f"lax.{name}", args)
