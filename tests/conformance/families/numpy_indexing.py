"""`jax.numpy`'s indexing, sorting and searching, set-like functions, and diagonals.

The data-dependent shapes (`nonzero`, `unique`, `compress`, ...) are recorded with and without
`size=`: JAX computes them eagerly and refuses them under `jit` without it; the corpus holds
the eager outcome only. `partition` and `argpartition` order only around `kth`, so their
programs return the sorted parts on each side and the `kth` element; `select` and `lexsort`
take their arrays as one list through `numpy.<name>[seq]`."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import Any

import numpy as np

from ..grids import ARRAY_DTYPES, SPECIAL, dtype_pairs
from ..spec import Case, Static, function, program
from .numpy_arrays import ramp

DATA_DEPENDENT = {
    f"numpy.{name}"
    for name in (
        "unique", "unique_all", "unique_counts", "unique_inverse", "unique_values", "extract",
        "compress", "trim_zeros",
    )
}  # fmt: skip
TIES = np.array([[3, 1, 2, 1, 0], [0, 4, 4, 2, 1]])  # ties in each row, a permutation of none


@program("numpy.lexsort[seq]")
def _lexsort(root: Any) -> Any:
    return lambda *keys, **keywords: root.numpy.lexsort(list(keys), **keywords)


@program("numpy.select[seq]")
def _select(root: Any) -> Any:
    def run(*arrays: Any, **keywords: Any) -> Any:
        half = len(arrays) // 2
        return root.numpy.select(list(arrays[:half]), list(arrays[half:]), **keywords)

    return run


for _name in ("partition", "argpartition"):

    @program(f"numpy.{_name}[parts]")
    def _parts(root: Any, name: str = _name) -> Any:
        jnp = root.numpy

        def run(a: Any, kth: int) -> Any:
            out = function(root, f"numpy.{name}")(a, kth)
            if name == "argpartition":
                out = jnp.take_along_axis(a, out, axis=-1)
            k = kth % a.shape[-1]
            return jnp.sort(out[..., :k]), out[..., k], jnp.sort(out[..., k + 1 :])

        return run


def indexing() -> Iterator[Case]:
    a = ramp((3, 4))
    for indices, keywords in [
        (np.array([0, 2]), {}),
        (np.array([[1, 0], [2, 2]]), {"axis": 1}),
        (np.array([-1, 3]), {"axis": 0}),
        (np.array(2), {"axis": 1}),
        (np.array([1, 11], np.int32), {}),
        (np.array([0, 1], np.uint8), {"axis": 0}),
        (np.array([1, 5]), {"axis": 1}),
        (np.array([1, 5]), {"axis": 1, "mode": "clip"}),
        (np.array([1, -6]), {"axis": 1, "mode": "wrap"}),
        (np.array([1, 5]), {"axis": 1, "mode": "fill"}),
        (np.array([0, 5]), {"axis": 0, "fill_value": -1.0}),
        (np.zeros((0,), np.int64), {"axis": 0}),
        (np.array([0.0, 1.0]), {}),
        (np.array([0, 1]), {"axis": 2}),
    ]:
        yield Case("numpy.take", (a, indices), keywords)
    for dtype in ARRAY_DTYPES:
        yield Case("numpy.take", (ramp((5,), dtype), np.array([4, 0, 1])))
        yield Case("numpy.take", (ramp((5,), dtype), np.array([1, 7])))  # out of bounds: filled
    yield Case("numpy.take", (ramp((4,)), 1))
    order = np.argsort(-a, axis=1)
    for indices, axis in [
        (order, 1),
        (order[:, :2], 1),
        (np.array([[2, 0, 1, 0]]), 0),
        (np.array([[3], [-1], [0]]), 1),
        (np.array([5, 0, 11]), None),
        (np.array([[1, 4]]), 1),
        (order[:2], 0),
        (order[:, :, None], 1),
    ]:
        yield Case("numpy.take_along_axis", (a, indices), {"axis": axis})
    yield Case("numpy.take_along_axis", (ramp((3, 4), np.int32), order), {"axis": 1})
    yield Case("numpy.take_along_axis", (ramp((3, 4), np.complex64), order), {"axis": -1})
    yield Case("numpy.take_along_axis", (a, order.astype(np.float64)), {"axis": 1})
    yield Case("numpy.put", (a, np.array([0, 5]), np.array([-1.0, -2.0])), {"inplace": False})
    yield Case("numpy.put", (a, np.array([1, 13]), 9.0), {"mode": "clip", "inplace": False})
    yield Case("numpy.put", (a, np.array([1]), 9.0))  # JAX refuses in place
    yield Case("numpy.place", (a, a > 5, np.array([-1.0, -2.0])), {"inplace": False})
    yield Case(
        "numpy.place", (ramp((4,), np.int32), np.array([1, 0, 1, 1]) > 0, 7), {"inplace": False}
    )
    yield Case("numpy.place", (ramp((4,)), np.array([True, False, False, True]), 7.0))  # in place
    yield Case("numpy.fill_diagonal", (a, 0.0), {"inplace": False})
    yield Case(
        "numpy.fill_diagonal",
        (ramp((5, 2)), np.array([1.0, 2.0])),
        {"inplace": False},
    )
    yield Case("numpy.put_along_axis", (a, order[:, :1], -1.0, Static(1)), {"inplace": False})
    yield Case(
        "numpy.put_along_axis", (a, np.array([[0, 1, 2, 0]]), a[:1], Static(0)), {"inplace": False}
    )


def choosing() -> Iterator[Case]:
    condition = np.array([True, False, True])
    for x, y in dtype_pairs():  # the promotion lattice
        yield Case("numpy.where", (condition, x, y))
    x, y = ramp((2, 3)), -ramp((3,))
    for c in [x > 2, np.array(True), np.array([[1], [0]]), np.array([0.0, 2.0, np.nan]), 1]:
        yield Case("numpy.where", (c, x, y))
    yield Case("numpy.where", (x > 2, 1.5, 2))
    yield Case(
        "numpy.where", (x > 2, SPECIAL[:6].reshape(2, 3), np.float32(0.5) * np.ones(3, np.float32))
    )
    yield Case("numpy.where", (x > 2, x))  # one of x and y
    yield Case("numpy.where", (ramp((2,)), ramp((2,)), ramp((3,))))  # shapes do not broadcast
    for c, keywords in [
        (x > 2, {}),
        (np.array([0, 3, 0, 1]), {}),
        (x > 2, {"size": 2}),
        (x > 2, {"size": 6, "fill_value": -1}),
        (np.zeros((0,)), {}),
        (np.array([0.0, np.nan, -0.0]), {}),
    ]:
        yield Case("numpy.where", (c,), keywords)
    conditions = [x < 2, x > 4]
    for choices, keywords in [
        ([x, y], {}),
        ([x, 2 * x], {"default": -1.0}),
        ([ramp((2, 3), np.int32), y], {}),
        ([x.astype(np.float32), np.float32(3) * np.ones(3, np.float32)], {}),
        ([x, y], {"default": 7}),
    ]:
        yield Case("numpy.select[seq]", (*conditions, *choices), keywords)
    yield Case("numpy.select[seq]", (x < 2, np.array([True, False, True]), x, y))
    yield Case("numpy.select[seq]", (x < 2, x, y))  # more choices than conditions
    yield Case("numpy.select[seq]", (x, x > 4, x, y))  # a condition that is not boolean
    for name in ("nonzero", "argwhere", "flatnonzero"):
        for arg in [
            np.array([[0.0, 1.5, 0.0], [2.0, -0.0, np.nan]]),
            np.array([0, 3, 0, 1], np.int32),
            np.array([[True, False], [True, True]]),
            np.zeros((0, 2)),
            np.array([0j, 1j]),
        ]:
            yield Case(f"numpy.{name}", (arg,))
        for keywords in [{"size": 2}, {"size": 5}, {"size": 5, "fill_value": -1}, {"size": 0}]:
            yield Case(f"numpy.{name}", (np.array([[0.0, 1.5, 0.0], [2.0, 3.0, 0.0]]),), keywords)
        yield Case(f"numpy.{name}", (np.array(2.0),))
    condition = np.array([True, False, True, True])
    values = ramp((4,))
    for keywords in [{}, {"size": 2}, {"size": 4}, {"size": 4, "fill_value": -1.0}, {"size": 5}]:
        yield Case("numpy.extract", (condition, values), keywords)
        yield Case("numpy.compress", (condition, values), keywords)
    yield Case("numpy.extract", (condition.reshape(2, 2), values.reshape(2, 2)))
    yield Case("numpy.extract", (np.array([1, 0, 2, 0]), ramp((4,), np.int32)))
    yield Case("numpy.compress", (condition[:3], ramp((3, 4))), {"axis": 1})
    yield Case("numpy.compress", (condition[:2], ramp((3, 4))), {"axis": 0})  # shorter: allowed
    yield Case(
        "numpy.compress", (condition[:3], ramp((3, 4))), {"axis": 1, "size": 3, "fill_value": 9}
    )
    yield Case("numpy.compress", (condition, ramp((3,))))  # longer than the array
    yield Case("numpy.compress", (np.array([1.0, 0.0]), ramp((2,))))  # not boolean


def ordering() -> Iterator[Case]:
    for dtype in ARRAY_DTYPES:
        x = TIES.astype(dtype) if dtype != np.bool_ else TIES % 2 == 1
        if np.dtype(dtype).kind == "c":
            x = x + 1j * np.array([[0, 1, -1, 0, 0], [1, 0, 2, 0, 0]])
        yield Case("numpy.sort", (x,))
        yield Case("numpy.argsort", (x,))
    x = ramp((3, 4)) * np.array([1, -1, 1, -1])
    specials = [SPECIAL, SPECIAL.astype(np.float32), np.array([np.nan, 1 + 1j, np.nan * 1j, -1j])]
    for name in ("sort", "argsort"):
        for keywords in [
            {"axis": 0},
            {"axis": None},
            {"descending": True},
            {"axis": 0, "descending": True},
        ]:
            yield Case(f"numpy.{name}", (x,), keywords)
        for arg in [*specials, np.zeros((2, 0)), np.array(1.5), 2.5]:
            yield Case(f"numpy.{name}", (arg,))
        yield Case(f"numpy.{name}", (TIES.astype(np.float64),), {"descending": True})
        yield Case(f"numpy.{name}", (TIES.astype(np.float64),), {"stable": False, "axis": 0})
        yield Case(f"numpy.{name}", (x,), {"axis": 2})
    yield Case("numpy.sort", (TIES.astype(np.float64),), {"stable": False})
    for keys, keywords in [
        ((np.array([3, 1, 2, 1]), np.array([0, 0, 1, 1])), {}),
        (
            (
                np.array([1.5, -1.0, 1.5, 0.0]),
                np.array([1.0, 1.0, 0.0, 1.0]),
                np.array([1, 1, 1, 1]),
            ),
            {},
        ),
        ((TIES, TIES[::-1]), {"axis": 0}),
        ((TIES, TIES[::-1].astype(np.float32)), {}),
        ((np.array([1, 0]),), {}),
        ((np.array([True, False, True]), np.array([2, 1, 0])), {}),
        ((np.array([1, 0]), np.array([1, 0, 1])), {}),
    ]:
        yield Case("numpy.lexsort[seq]", keys, keywords)
    distinct = ramp((2, 6)) * np.array([1, -1, 1, -1, 1, -1])
    for name in ("partition[parts]", "argpartition[parts]"):
        for x in [distinct, distinct.astype(np.float32), distinct.astype(np.int32), distinct[0]]:
            for kth in (0, 2, -1):
                yield Case(f"numpy.{name}", (x, Static(kth)))
        yield Case(f"numpy.{name}", (np.array([2.0, np.nan, -1.0, np.inf]), Static(1)))
    yield Case("numpy.partition", (distinct, Static(7)))  # kth past the end
    yield Case("numpy.argpartition", (distinct, Static(7)))
    a = np.array([-1.0, 0.0, 0.5, 0.5, 2.0, 3.0])
    v = np.array([[-2.0, 0.5, 0.25], [3.0, 4.0, np.nan]])
    for keywords in [
        {},
        *({"method": m} for m in ("scan", "scan_unrolled", "sort", "compare_all")),
    ]:
        yield Case("numpy.searchsorted", (a, v), keywords)
        yield Case("numpy.searchsorted", (a, v), dict(keywords, side="right"))
    for args in [
        (a.astype(np.float32), v),
        (a.astype(np.int32), v),
        (np.array([1, 3, 3, 7], np.int32), np.array([3, 0, 9])),
        (a, 0.5),
        (a, np.array(2)),
        (np.zeros((0,)), v),
        (np.array([True, True]), np.array([False, True])),
        (np.array([1 + 1j, 1 + 2j, 2 + 0j]), np.array([1 + 1.5j, 3j])),
        (a.reshape(2, 3), v),
    ]:
        yield Case("numpy.searchsorted", args)
    sorter = np.array([3, 0, 2, 1])
    yield Case("numpy.searchsorted", (np.array([3.0, 0.0, 2.0, 1.0]), v, Static("left"), sorter))
    yield Case("numpy.searchsorted", (a, v), {"side": "middle"})


def sets() -> Iterator[Case]:
    x = np.array([3, 1, 2, 1, 3, 3, 0])
    rows = np.array([[1, 2], [0, 5], [1, 2], [0, 4]], np.float32)
    withnan = np.array([1.0, np.nan, 0.5, np.nan, 1.0, -0.0, 0.0])
    for arg in [
        x,
        x.astype(np.float64),
        x.astype(np.uint8),
        x % 2 == 1,
        withnan,
        x.reshape(1, 7) - 0.5j,
        np.zeros((0,)),
        np.array(2.5),
        1.5,
    ]:
        yield Case("numpy.unique", (arg,))
    for keywords in [
        {"return_index": True},
        {"return_inverse": True},
        {"return_counts": True},
        {"return_index": True, "return_inverse": True, "return_counts": True},
        {"size": 3},
        {"size": 6},
        {"size": 6, "fill_value": -9},
        {"size": 6, "return_counts": True},
        {"size": 6, "return_index": True, "return_inverse": True},
    ]:
        yield Case("numpy.unique", (x.astype(np.float64),), keywords)
    yield Case("numpy.unique", (withnan,), {"equal_nan": False})
    yield Case("numpy.unique", (withnan,), {"return_counts": True, "equal_nan": False})
    yield Case("numpy.unique", (rows,), {"axis": 0})
    yield Case("numpy.unique", (rows,), {"axis": 0, "return_inverse": True, "return_counts": True})
    yield Case("numpy.unique", (rows,), {"axis": 1})
    yield Case("numpy.unique", (x.reshape(7, 1),), {"return_inverse": True})
    yield Case("numpy.unique", (x,), {"axis": 1})  # out of bounds
    for name in ("unique_all", "unique_counts", "unique_inverse", "unique_values"):
        for arg in [x, withnan, x.reshape(7, 1).astype(np.float32), np.zeros((0,))]:
            yield Case(f"numpy.{name}", (arg,))
        yield Case(f"numpy.{name}", (x.astype(np.float64),), {"size": 6})
        yield Case(f"numpy.{name}", (x.astype(np.float64),), {"size": 6, "fill_value": -1.0})
    filt = np.array([0.0, 0.0, 1.5, 0.0, -2.0, 0.0])
    for arg, keywords in [
        (filt, {}),
        (filt, {"trim": "f"}),
        (filt, {"trim": "b"}),
        (np.zeros(3, np.int32), {}),
    ]:
        yield Case("numpy.trim_zeros", (arg,), keywords)


def diagonals() -> Iterator[Case]:
    square, wide, cube = ramp((3, 3)), ramp((2, 4), np.int32), ramp((2, 3, 4))
    for arg, k in [
        (ramp((3,)), 0),
        (ramp((3,)), 1),
        (ramp((2,), np.complex64), -2),
        (square, 0),
        (square, 1),
        (wide, -1),
        (wide, 3),
        (wide, 9),
        (cube, 0),
        (np.array(1.0), 0),
    ]:
        yield Case("numpy.diag", (arg,), {"k": k})
    for arg, k in [(ramp((3,)), 0), (square, 1), (ramp((2,), np.int32), -1), (np.array(2.0), 0)]:
        yield Case("numpy.diagflat", (arg,), {"k": k})
    for keywords in [
        {},
        {"offset": 1},
        {"offset": -1},
        {"axis1": 1, "axis2": 2},
        {"axis1": 2, "axis2": 0, "offset": 2},
        {"offset": 5},
        {"axis1": 1, "axis2": 1},
    ]:
        yield Case("numpy.diagonal", (cube,), keywords)
    yield Case("numpy.diagonal", (wide,))
    yield Case("numpy.diagonal", (ramp((3,)),))  # needs two dimensions
    for name in ("tril", "triu"):
        for arg in [square, wide, cube, ramp((3, 2), np.bool_), ramp((2, 2), np.complex128)]:
            yield Case(f"numpy.{name}", (arg,))
        for k in (1, -1, 5):
            yield Case(f"numpy.{name}", (wide,), {"k": k})
        yield Case(f"numpy.{name}", (ramp((3,)),))
    for n, ndim in [(3, 2), (2, 3), (0, 2)]:
        yield Case("numpy.diag_indices", (Static(n),), {"ndim": ndim})
    for arg in [square, ramp((2, 2, 2)), wide]:
        yield Case("numpy.diag_indices_from", (arg,))
    for name in ("tril", "triu"):
        for args in [(3,), (3, 1), (3, -1), (3, 0, 4), (2, 0, 1), (0,)]:
            yield Case(f"numpy.{name}_indices", tuple(map(Static, args)))
        for arg, k in [(square, 0), (wide, 1), (ramp((4, 2)), -1), (ramp((3,)), 0)]:
            yield Case(f"numpy.{name}_indices_from", (arg,), {"k": k})
    for args in [
        (np.array([0, 2]), np.array([1, 0, 3])),
        (np.array([1]),),
        (np.zeros((0,), np.int32), np.array([1, 2], np.uint8)),
        (np.array([[1, 2]]),),
        (ramp((2,)), ramp((3,))),
    ]:
        yield Case("numpy.ix_", args)


def cases() -> Iterator[Case]:
    for case in chain(indexing(), choosing(), ordering(), sets(), diagonals()):
        if case.name in DATA_DEPENDENT and "size" not in case.keywords:
            case.derivatives = False  # JAX differentiates these only with size=
        yield case
