"""The numba engine's compiled Threefry-2x32: one loop over the counters, the 20 rounds of
each element in registers (LLVM vectorises it: ~1 ms for 10^6 elements).

Imported only when the engine first runs a hash (it imports numba). numba types uint32
arithmetic in 64 bits, so every step is wrapped back to uint32 (`U(...)`), which also lets
LLVM keep 32-bit lanes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

U = np.uint32


@njit(inline="always")
def _rotate(b, r):  # pragma: no cover - compiled
    return U(U(b << U(r)) | U(b >> U(32 - r)))


@njit(inline="always")
def _rounds4(a, b, r0, r1, r2, r3):  # pragma: no cover - compiled
    a = U(a + b)
    b = U(_rotate(b, r0) ^ a)
    a = U(a + b)
    b = U(_rotate(b, r1) ^ a)
    a = U(a + b)
    b = U(_rotate(b, r2) ^ a)
    a = U(a + b)
    b = U(_rotate(b, r3) ^ a)
    return a, b


@njit(inline="always")
def _hash(k0, k1, k2, x1, x2):  # pragma: no cover - compiled
    keys = (k0, k1, k2)
    a = U(x1 + k0)
    b = U(x2 + k1)
    for block in range(5):  # a constant trip count: LLVM unrolls it
        if block % 2 == 0:
            a, b = _rounds4(a, b, 13, 15, 26, 6)
        else:
            a, b = _rounds4(a, b, 17, 29, 16, 24)
        a = U(a + keys[(block + 1) % 3])
        b = U(b + U(keys[(block + 2) % 3] + U(block + 1)))
    return a, b


@njit(cache=True, error_model="numpy", nogil=True)
def threefry_flat(key1, key2, x1, x2, out1, out2):  # pragma: no cover - compiled
    """out1, out2 <- Threefry-2x32 of flat counters: one key (uint32 scalars), x2 of the
    outputs' size, x1 of that size or of size 1 (the high counter words, usually 0)."""
    k0 = U(key1)
    k1 = U(key2)
    k2 = U(U(k0 ^ k1) ^ U(0x1BD11BDA))
    n = out1.size
    if x1.size == 1:
        c = x1[0]
        for i in range(n):
            out1[i], out2[i] = _hash(k0, k1, k2, c, x2[i])
    else:
        for i in range(n):
            out1[i], out2[i] = _hash(k0, k1, k2, x1[i], x2[i])
