"""The Threefry-2x32 hash as one op ("tf8.random.v1"), JAX's `threefry2x32_p`.

`threefry2x32(key1, key2, x1, x2)` hashes the uint32 counter pairs (x1, x2) under the key
words (key1, key2) with 20 rounds of Threefry-2x32 and returns the two uint32 output words.
Operands share one rank and broadcast where a size is 1 (JAX's broadcasting shape rule), so
one key (sizes 1) hashes a whole array of counters without being broadcast in memory.

One op instead of ~120 elementwise ones: its numpy kernel hashes in place, block by block
(each block's two words stay in cache through all 20 rounds), and compiling engines bring a
kernel of their own. Its outputs are integers: no derivative (a zero JVP rule); its batching
rule is the broadcasting one (tf8.ad).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.errors import DTypeError, ShapeError
from tf8.ops.avals import Aval
from tf8.ops.shape_checks import describe, require_equal
from tf8.ops.shapes import Dim

from .base import ExtensionOp

ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))  # per round, alternating every 4 rounds
PARITY = 0x1BD11BDA  # the key schedule's constant: key3 = key1 ^ key2 ^ PARITY
BLOCK = 32768  # elements per block of the numpy kernel: two words and a temporary in L2


class Threefry2x32(ExtensionOp):
    """No payload; 4 uint32 operands (key1, key2, x1, x2), 2 uint32 outputs."""

    family = "tf8.random.v1"
    name = "threefry2x32"
    stops_derivative = True  # integer bits: nothing to differentiate

    def __init__(self) -> None:
        super().__init__((), 4, 2)

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        if any(a.dtype != np.uint32 for a in avals):
            raise DTypeError(
                f"threefry2x32: operands (key1, key2, x1, x2) must be uint32, got {describe(avals)}"
            )
        ranks = {len(a.shape) for a in avals}
        if len(ranks) != 1:
            raise ShapeError(
                f"threefry2x32: operands (key1, key2, x1, x2) must have one rank "
                f"(sizes broadcast where they are 1), got {describe(avals)}"
            )
        shape = tuple(_broadcast_dim(self, avals, axis, guards) for axis in range(ranks.pop()))
        return (Aval(shape, np.dtype(np.uint32)),) * 2


def _broadcast_dim(op: Threefry2x32, avals: Sequence[Aval], axis: int, guards: list) -> Dim:
    """The result's size along `axis`: the operands' sizes other than 1, which must agree."""
    sizes = [a.shape[axis] for a in avals if not _is_one(a.shape[axis])]
    for size in sizes[1:]:
        require_equal(
            op,
            sizes[0],
            size,
            lambda: f"operand sizes along axis {axis} must agree or be 1 ({describe(avals)})",
            guards,
        )
    return sizes[0] if sizes else 1


def _is_one(size: Dim) -> bool:
    return type(size) is int and size == 1


# --- the numpy kernel ---------------------------------------------------------------------------

Word = Any  # a numpy uint32 scalar (an operand of size 1) or a flat uint32 array


def flat_operands(
    arrays: Sequence[np.ndarray],
) -> tuple[tuple[int, ...], list[Word]]:
    """The broadcast shape and each operand flattened to it: a uint32 scalar when it has
    one element, else a C-ordered flat array (a view when it already has the full shape)."""
    shape = tuple(np.broadcast_shapes(*(a.shape for a in arrays)))
    words: list[Word] = []
    for a in arrays:
        if a.size == 1:
            words.append(np.uint32(a.reshape(-1)[0]))
        else:
            full = a if a.shape == shape else np.broadcast_to(a, shape)
            words.append(np.ascontiguousarray(full).reshape(-1))
    return shape, words


def threefry2x32_kernel(
    op: Threefry2x32, key1: np.ndarray, key2: np.ndarray, x1: np.ndarray, x2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32 in place on the outputs' buffers, BLOCK elements at a time."""
    shape, (k1, k2, c1, c2) = flat_operands((key1, key2, x1, x2))
    size = int(np.prod(shape, dtype=np.int64))
    out1, out2 = np.empty(size, np.uint32), np.empty(size, np.uint32)
    scratch = np.empty(min(BLOCK, size), np.uint32)
    for lo in range(0, size, BLOCK):
        block = slice(lo, min(lo + BLOCK, size))
        k1_, k2_, c1_, c2_ = (w if w.ndim == 0 else w[block] for w in (k1, k2, c1, c2))
        _hash_block([k1_, k2_], c1_, c2_, out1[block], out2[block], scratch[: block.stop - lo])
    return out1.reshape(shape), out2.reshape(shape)


def _hash_block(
    keys: list[Word], x1: Word, x2: Word, a: np.ndarray, b: np.ndarray, t: np.ndarray
) -> None:
    """One block: a, b <- Threefry-2x32(keys; x1, x2), with t as scratch. A key that is a
    scalar folds its schedule into one constant add per injection."""
    add, shl, shr, bor, bxor = np.add, np.left_shift, np.right_shift, np.bitwise_or, np.bitwise_xor
    scalar_keys = all(k.ndim == 0 for k in keys)
    if scalar_keys:
        k1, k2 = int(keys[0]), int(keys[1])
        schedule = (k1, k2, k1 ^ k2 ^ PARITY)
        add(x1, np.uint32(k1), out=a)
        add(x2, np.uint32(k2), out=b)
    else:
        schedule = (*keys, bxor(bxor(keys[0], keys[1]), np.uint32(PARITY)))
        add(x1, schedule[0], out=a)
        add(x2, schedule[1], out=b)
    shifts = [[(np.uint32(r), np.uint32(32 - r)) for r in group] for group in ROTATIONS]
    for block in range(5):
        for left, right in shifts[block % 2]:
            add(a, b, out=a)
            shl(b, left, out=t)
            shr(b, right, out=b)
            bor(b, t, out=b)
            bxor(b, a, out=b)
        first, second = schedule[(block + 1) % 3], schedule[(block + 2) % 3]
        if scalar_keys:
            add(a, np.uint32(first), out=a)
            add(b, np.uint32((second + block + 1) & 0xFFFFFFFF), out=b)
        else:
            add(a, first, out=a)
            add(b, second, out=b)
            add(b, np.uint32(block + 1), out=b)


KERNELS: dict[type, Callable[..., Any]] = {Threefry2x32: threefry2x32_kernel}

__all__ = ["BLOCK", "KERNELS", "PARITY", "ROTATIONS", "Threefry2x32", "flat_operands"]
