"""`jax.lax`'s reductions over `axes`, argmax and argmin, cumsum, the sorts (one operand,
several, key and value) and top_k, dot and dot_general, and fft.

The recorded derivatives use uniform tangents, which cannot tell a permutation from
another: the `[weighted]` programs scale the operand by 1, 2, 3, ... along its last axis
first, so that a tangent that lands in the wrong place shows."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..grids import reduction_arrays
from ..spec import Case, Static, program

NAN, INF = np.nan, np.inf


def _ramp(lax, x):
    """x * (1, 2, 3, ...) along the last axis, in lax ops both libraries have."""
    iota = lax.broadcasted_iota(x.dtype, x.shape, x.ndim - 1)
    return lax.mul(x, iota + 1)


@program("lax.sort[weighted]")
def _sort_weighted(root):
    return lambda x, **kw: root.lax.sort(_ramp(root.lax, x), **kw)


@program("lax.top_k[weighted]")
def _top_k_weighted(root):
    return lambda x, k: root.lax.top_k(_ramp(root.lax, x), k)


@program("lax.sort[pair]")
def _sort_pair(root):
    return lambda a, b, **kw: root.lax.sort((a, b), **kw)


REDUCTIONS = ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"]


def _reductions(rng: np.random.Generator) -> Iterator[Case]:
    arrays = reduction_arrays(rng)
    base = arrays[0]
    for name in REDUCTIONS:
        for x in arrays:
            for axes in ((), (0,), (1,), (0, 1)):
                yield Case(f"lax.{name}", (x, Static(axes)))
        cube = rng.uniform(0.5, 2.0, (2, 3, 2))
        yield Case(f"lax.{name}", (cube, Static((0, 2))))
        yield Case(f"lax.{name}", (np.array([[True, False], [True, True]]), Static((0,))))
        yield Case(f"lax.{name}", (np.array([[1.0, NAN], [INF, 2.0]]), Static((1,))))
        yield Case(f"lax.{name}", (np.array([[1.0, 3.0, 3.0], [0.0, 0.0, -1.0]]), Static((1,))))
        yield Case(f"lax.{name}", (np.array([[0.0, -0.0], [-0.0, -0.0]]), Static((1,))))
        yield Case(f"lax.{name}", (np.array(2.5), Static(())))
        yield Case(f"lax.{name}", (np.zeros((0, 3)), Static((0,))))
        yield Case(f"lax.{name}", (np.zeros((0, 3), np.int32), Static((0,))))
        yield Case(f"lax.{name}", (base, Static((2,))))  # out of range: refused
        yield Case(f"lax.{name}", (base, Static((0, 0))))  # repeated: refused


def _arg_reductions(rng: np.random.Generator) -> Iterator[Case]:
    base = rng.uniform(-2.0, 2.0, (3, 4))
    arrays = [
        base,
        base.astype(np.float32),
        np.array([[1.0, 3.0, 3.0], [2.0, 2.0, -1.0]]),  # ties: the first
        np.array([[1.0, NAN, NAN, 2.0], [INF, -INF, 0.0, -0.0]]),
        np.array([[0.0, -0.0], [-0.0, 0.0]]),
        np.array([[1, -2, 3], [4, 4, -6]], np.int32),
        np.array([[7, 250], [250, 0]], np.uint8),
        np.array([[True, False], [False, True]]),
    ]
    for name in ("argmax", "argmin"):
        for x in arrays:
            for axis in (0, 1):
                yield Case(f"lax.{name}", (x, Static(axis)), {"index_dtype": "int32"})
        yield Case(f"lax.{name}", (base, Static(1)), {"index_dtype": "int64"})
        yield Case(f"lax.{name}", (base, Static(-1)), {"index_dtype": "int32"})
        yield Case(f"lax.{name}", (base, Static(0)), {"index_dtype": "uint8"})
        yield Case(f"lax.{name}", (base, Static(0)), {"index_dtype": "float32"})  # refused
        yield Case(f"lax.{name}", (np.zeros((0, 3)), Static(0)), {"index_dtype": "int32"})
        yield Case(f"lax.{name}", (np.zeros((0, 3)), Static(1)), {"index_dtype": "int32"})
        yield Case(f"lax.{name}", (np.array([1 + 1j, 1 + 2j]), Static(0)), {"index_dtype": "int32"})
        yield Case(f"lax.{name}", (base, Static(2)), {"index_dtype": "int32"})  # refused


def _cumsum(rng: np.random.Generator) -> Iterator[Case]:
    base = rng.uniform(-2.0, 2.0, (3, 4))
    for x in (
        base,
        base.astype(np.float32),
        np.array([[1, -2, 3], [4, 0, 2**31 - 1]], np.int32),
        (base + 1j * base[::-1]),
        np.array([[1.0, NAN, INF], [INF, -INF, 1.0]]),
    ):
        for keywords in ({}, {"axis": 1}, {"axis": 1, "reverse": True}, {"reverse": True}):
            yield Case("lax.cumsum", (x,), keywords)
    yield Case("lax.cumsum", (np.array([[True, True], [False, True]]),), {"axis": 0})
    yield Case("lax.cumsum", (np.array([200, 100], np.uint8),))
    yield Case("lax.cumsum", (np.zeros((0, 3)),), {"axis": 0})
    yield Case("lax.cumsum", (np.array(2.5),))  # 0-d: refused
    yield Case("lax.cumsum", (base,), {"axis": 2})  # refused


def _sorts(rng: np.random.Generator) -> Iterator[Case]:
    base = rng.uniform(-2.0, 2.0, (3, 5))
    special = np.array([NAN, 0.0, -0.0, INF, -INF, 1.0, -NAN, 1.0, 0.0])
    for x in (
        base,
        base.astype(np.float32),
        special,
        special.astype(np.float32),
        np.array([[3, -1, 2], [0, 0, -5]], np.int32),
        np.array([True, False, True]),
        np.array([2 + 1j, 1 + 3j, 1 - 1j, NAN]),
        np.array(1.5),
        np.zeros((0, 2)),
        np.array([200, 3, 100], np.uint8),
    ):
        yield Case("lax.sort", (x,))
    yield Case("lax.sort", (base,), {"dimension": 0})
    yield Case("lax.sort", (base,), {"dimension": 2})  # refused
    yield Case("lax.sort", (special,), {"is_stable": False})
    for keywords in ({}, {"dimension": 0}, {"is_stable": False}):
        yield Case(
            "lax.sort[weighted]",
            (np.array([[2.0, 2.0, 1.0, 0.5], [0.0, 3.0, 1.0, 1.0]]),),
            keywords,
        )
    keys = np.array([[2.0, 1.0, 2.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]])
    values = rng.uniform(-2.0, 2.0, (2, 5))
    yield Case("lax.sort[pair]", (keys, values))
    yield Case("lax.sort[pair]", (keys, values), {"num_keys": 2})
    yield Case("lax.sort[pair]", (keys, values), {"dimension": 0})
    yield Case("lax.sort[pair]", (keys, values.astype(np.float32)))  # dtypes may differ
    yield Case("lax.sort[pair]", (keys, np.arange(10, dtype=np.int32).reshape(2, 5)))
    yield Case("lax.sort[pair]", (keys, values[:, :3]))  # refused: unequal shapes
    yield Case("lax.sort[pair]", (keys, values), {"num_keys": 3})  # refused
    yield Case("lax.sort_key_val", (keys, values))
    yield Case("lax.sort_key_val", (keys, values), {"dimension": 0})
    yield Case("lax.sort_key_val", (keys.astype(np.int32), values.astype(np.float32)))
    yield Case("lax.sort_key_val", (special, np.arange(9.0)))
    yield Case("lax.sort_key_val", (keys, values[0]))  # refused


def _top_k(rng: np.random.Generator) -> Iterator[Case]:
    base = rng.uniform(-2.0, 2.0, (3, 5))
    ties = np.array([1.0, 3.0, 2.0, 3.0, 1.0, NAN, -INF])
    for x, k in (
        (base, 2),
        (base[0], 5),
        (base.astype(np.float32), 1),
        (ties, 3),
        (ties, 7),
        (np.array([4, -1, 4, 9], np.int32), 2),
        (base, 0),
        (base, 6),
        (np.array(1.5), 1),
        (np.array([200, 3, 100], np.uint8), 2),
        (np.array([True, False]), 1),
    ):
        yield Case("lax.top_k", (x, Static(k)))
    yield Case(
        "lax.top_k", (base, Static(2)), {"axis": 0}, derivatives=False
    )  # tf8 refuses; replay.py's derivative pass is unguarded
    yield Case(
        "lax.top_k[weighted]", (np.array([[2.0, 2.0, 1.0, 0.5], [0.0, 3.0, 1.0, 1.0]]), Static(3))
    )


def _dots(rng: np.random.Generator) -> Iterator[Case]:
    a, b = rng.uniform(-2.0, 2.0, (2, 3, 4)), rng.uniform(-2.0, 2.0, (4, 2))
    v, w = rng.uniform(-2.0, 2.0, (2, 4))
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    for x, y in (
        (v, w),
        (a, v),
        (a, b),
        (a.astype(np.float32), b.astype(np.float32)),
        (ints, ints[0]),
        (a + 1j * a, b),
        (a.astype(np.float32), b),
        (a, b.T),
        (np.zeros((3, 0)), np.zeros((0, 2))),
        (np.array(2.0), np.array(3.0)),
        (np.array([True, False]), np.array([True, True])),
    ):
        yield Case("lax.dot", (x, y))
    f32 = (a.astype(np.float32), b.astype(np.float32))
    yield Case("lax.dot", f32, {"preferred_element_type": "float64"})
    yield Case("lax.dot", (ints, ints[0]), {"preferred_element_type": "float32"})
    batch_l, batch_r = rng.uniform(-2.0, 2.0, (2, 3, 4)), rng.uniform(-2.0, 2.0, (2, 4, 5))
    for x, y, numbers in (
        (batch_l, batch_r, (((2,), (1,)), ((0,), (0,)))),
        (batch_l, batch_r, (((0, 2), (0, 1)), ((), ()))),
        (v, w, (((), ()), ((), ()))),  # an outer product
        (a, b, (((1,), (0,)), ((), ()))),
        (batch_l, batch_l, (((1, 2), (1, 2)), ((0,), (0,)))),
        (batch_l.astype(np.float32), batch_r.astype(np.float32), (((2,), (1,)), ((0,), (0,)))),
        (ints, ints, (((0,), (0,)), ((), ()))),
        (a, b, (((0,), (0,)), ((), ()))),  # sizes 3 and 4: refused
        (batch_l, batch_r, (((2,), (1,)), ((0,), (1,)))),  # refused
        (np.zeros((2, 0)), np.zeros((0, 3)), (((1,), (0,)), ((), ()))),
    ):
        yield Case("lax.dot_general", (x, y, Static(numbers)))
    numbers = Static((((2,), (1,)), ((0,), (0,))))
    yield Case(
        "lax.dot_general",
        (batch_l.astype(np.float32), batch_r.astype(np.float32), numbers),
        {"preferred_element_type": "float64"},
    )


def _fft(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(-1.0, 1.0, (2, 6))
    z = x + 1j * x[::-1]
    for operand, kind, lengths in (
        (z, "FFT", (6,)),
        (z, "IFFT", (6,)),
        (x, "RFFT", (6,)),
        (z[:, :4], "IRFFT", (6,)),
        (z, "FFT", (2, 6)),
        (x.astype(np.float32), "RFFT", (6,)),
        (x, "FFT", (6,)),
    ):
        yield Case("lax.fft", (operand, Static(kind), Static(lengths)))


def cases() -> Iterator[Case]:
    rng = np.random.default_rng(800)
    yield from _reductions(rng)
    yield from _arg_reductions(rng)
    yield from _cumsum(rng)
    yield from _sorts(rng)
    yield from _top_k(rng)
    yield from _dots(rng)
    yield from _fft(rng)
