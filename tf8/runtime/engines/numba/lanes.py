"""Block reductions the generated loops call: LANES independent accumulators per block.

A loop with reductions runs in blocks; each block's reduced values land in a buffer, and
one of these functions folds the buffer into the running accumulator. Eight interleaved
partial results keep the adds from waiting on each other's latency (and the generated
source short: one call per reduction and block, which keeps numba's compile time down).

They are source text (`FOLDS`), pasted into each generated module that calls them, not a
module the generated ones import: a process loading a cached module then imports and
compiles nothing of tf8's (importing a module of `@njit` functions cost a first load from
the disk cache a few milliseconds), and a change here changes the generated source, so its
cache entries are rebuilt. Not `cache=True`: the calling function's cache entry holds their
code.
"""

from __future__ import annotations

DECORATOR = '@njit(error_model="numpy", nogil=True)'

FOLDS: dict[str, str] = {
    "sum_block": f"""{DECORATOR}
def sum_block(r, b, m):
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
""",
    "prod_block": f"""{DECORATOR}
def prod_block(r, b, m):
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
""",
    # NaN propagates, and +0 is greater than -0 (XLA's rule: tf8.ops.extrema)
    "max_block": f"""{DECORATOR}
def max_block(r, b, m):
    for j in range(m):
        v = b[j]
        if (not (r >= v) and r == r) or (r == 0 and v == 0 and math.copysign(1.0, r) < 0):
            r = v
    return r
""",
    "min_block": f"""{DECORATOR}
def min_block(r, b, m):
    for j in range(m):
        v = b[j]
        if (not (r <= v) and r == r) or (r == 0 and v == 0 and math.copysign(1.0, r) > 0):
            r = v
    return r
""",
}
