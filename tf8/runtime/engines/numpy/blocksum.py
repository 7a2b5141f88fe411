"""A region's trailing sum, computed block by block, bit for bit equal to numpy's own sum.

`np.add.reduce` of a contiguous float or complex array is a pairwise sum: `0 + P(a)` where
P splits its `n` scalars (a complex element is two) at `n2 = n // 2 - (n // 2) % 8` and adds
P of the two halves, down to segments of at most 128 scalars summed by an 8-way unrolled loop.
So P of the whole array is P of the segments of that recursion, added back up the same tree.
`pairwise_blocks` cuts a region into those segments (the recursion stopped at segments of at
most `width` elements): the region computes one segment per block and sums it with
`np.add.reduce` (`0 + P(segment)`: the extra `0 +` changes the sign of a zero partial at
most, which the final `0 +` absorbs), then `tree_sum` adds the partials in the tree's order.
Integer sums are exact in any order (wrapping addition is associative).

float16 is excluded (numpy sums it in float32 and rounds once at the end), and so is every
other dtype not in SUMMABLE. `sums_like_numpy(dtype)` also checks, once per dtype and
process, that the numpy at hand still sums this way (a probe of a thousand elements), so
another numpy's summation order turns fusion off rather than changing results.

The blocks are not multiples of the SIMD width, so a region whose sum is fused holds only
LANE_EXACT ops: correctly rounded per element (IEEE add, multiply, divide, sqrt...),
whatever part of a SIMD loop computes the element.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

SUMMABLE = frozenset(
    np.dtype(d)
    for d in (
        "float32",
        "float64",
        "complex64",
        "complex128",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
    )
)

# Correctly rounded (or exact) per element on real floats, in SIMD lanes and scalar tails.
LANE_EXACT = frozenset(
    {
        np.add,
        np.subtract,
        np.multiply,
        np.true_divide,
        np.negative,
        np.absolute,
        np.sqrt,
        np.floor,
        np.ceil,
        np.rint,
        np.conjugate,
        np.sign,
        np.less,
        np.less_equal,
        np.greater,
        np.greater_equal,
        np.equal,
        np.not_equal,
        np.logical_and,
        np.logical_or,
        np.logical_xor,
        np.logical_not,
    }
)
# On complex operands: componentwise and exact (complex multiply may contract to FMA in SIMD).
LANE_EXACT_COMPLEX = frozenset({np.add, np.subtract, np.negative, np.conjugate})


def lane_exact(ufunc: np.ufunc, dtypes: Sequence[np.dtype]) -> bool:
    """Whether `ufunc` on operands/results of `dtypes` gives every element the same bits
    wherever the arrays are split (integer and boolean arithmetic always does)."""
    kinds = {np.dtype(d).kind for d in dtypes}
    if kinds <= set("biu"):
        return True
    if "c" in kinds:
        return ufunc in LANE_EXACT_COMPLEX
    return ufunc in LANE_EXACT


def pairwise_blocks(
    count: int, dtype: np.dtype, width: int
) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """numpy's pairwise-sum recursion over `count` elements of `dtype`, stopped at segments
    of at most `width` elements: the segments `(lo, hi)` in order, and the schedule of
    `tree_sum`: pairs of indices into the list of partial sums, the segments' first, each
    merge appending one (children before parents)."""
    if width < 128:
        raise ValueError(f"pairwise_blocks: width {width} < 128 splits what numpy sums unsplit")
    unit = 2 if np.dtype(dtype).kind == "c" else 1
    bounds: list[tuple[int, int]] = []
    tree: list[Any] = []  # post-order: a leaf's segment index, or None for a merge

    def split(lo: int, n: int) -> None:
        if n <= width:
            tree.append(len(bounds))
            bounds.append((lo, lo + n))
            return
        half = n * unit // 2
        left = (half - half % 8) // unit
        split(lo, left)
        split(lo + left, n - left)
        tree.append(None)

    split(0, count)
    merges: list[tuple[int, int]] = []
    done: list[int] = []  # partial-sum indices of finished subtrees
    for node in tree:
        if node is None:
            right = done.pop()
            merges.append((done.pop(), right))
            node = len(bounds) + len(merges) - 1
        done.append(node)
    return tuple(bounds), tuple(merges)


def tree_sum(partials: list[Any], merges: Sequence[tuple[int, int]], zero: Any) -> Any:
    """The partial sums added in the pairwise tree's order, then `zero +` as numpy does."""
    for left, right in merges:
        partials.append(partials[left] + partials[right])
    return zero + partials[-1]


@functools.cache
def sums_like_numpy(dtype: np.dtype) -> bool:
    """Whether a sum of `dtype` may be fused: a SUMMABLE dtype, and for floats and complex
    numbers the segments of a probe added up the tree give np.add.reduce's bits."""
    dtype = np.dtype(dtype)
    if dtype not in SUMMABLE:
        return False
    if dtype.kind in "iu":
        return True
    index = np.arange(1001)
    probe = np.sin(index * 0.7) * 10.0 ** (index % 17 - 8)  # signs and magnitudes mixed
    if dtype.kind == "c":
        probe = probe + 1j * probe[::-1]
    probe = probe.astype(dtype)
    bounds, merges = pairwise_blocks(probe.size, dtype, 128)
    partials = [np.add.reduce(probe[lo:hi], 0, dtype) for lo, hi in bounds]
    total = tree_sum(partials, merges, dtype.type(0))
    return bool(np.asarray(total).tobytes() == np.add.reduce(probe, 0, dtype).tobytes())
