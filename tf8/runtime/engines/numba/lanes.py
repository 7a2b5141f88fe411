"""Block reductions the generated loops call: LANES independent accumulators per block.

A loop with reductions runs in blocks; each block's reduced values land in a buffer, and
one of these functions folds the buffer into the running accumulator. Eight interleaved
partial results keep the adds from waiting on each other's latency (and the generated
source short: one call per reduction and block, which keeps numba's compile time down).
Imported by the generated modules, so numba is imported with them, never with tf8; the
hash of this file is in each generated module, so changing it invalidates the disk cache.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy", nogil=True)
def sum_block(r, b, m):  # pragma: no cover - compiled
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    j = 0
    while j + 8 <= m:
        a0 += b[j]
        a1 += b[j + 1]
        a2 += b[j + 2]
        a3 += b[j + 3]
        a4 += b[j + 4]
        a5 += b[j + 5]
        a6 += b[j + 6]
        a7 += b[j + 7]
        j += 8
    while j < m:
        a0 += b[j]
        j += 1
    return r + (((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)))


@njit(cache=True, error_model="numpy", nogil=True)
def prod_block(r, b, m):  # pragma: no cover - compiled
    a0 = a1 = a2 = a3 = 1.0
    j = 0
    while j + 4 <= m:
        a0 *= b[j]
        a1 *= b[j + 1]
        a2 *= b[j + 2]
        a3 *= b[j + 3]
        j += 4
    while j < m:
        a0 *= b[j]
        j += 1
    return r * ((a0 * a1) * (a2 * a3))


@njit(cache=True, error_model="numpy", nogil=True)
def max_block(r, b, m):  # pragma: no cover - compiled
    for j in range(m):  # NaN propagates, as numpy's max
        v = b[j]
        if not (r >= v) and r == r:
            r = v
    return r


@njit(cache=True, error_model="numpy", nogil=True)
def min_block(r, b, m):  # pragma: no cover - compiled
    for j in range(m):
        v = b[j]
        if not (r <= v) and r == r:
            r = v
    return r


__all__ = ["max_block", "min_block", "np", "prod_block", "sum_block"]
