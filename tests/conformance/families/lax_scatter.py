"""`jax.lax.gather` and the scatters (`scatter`, `scatter_add`, `scatter_sub`, `scatter_mul`,
`scatter_min`, `scatter_max`, `scatter_apply`) over dimension-number configurations: taken
rows and columns, windows, scalar reads, window axes in the middle, operand batching
dimensions, empty index vectors; repeated and out-of-bounds indices under each mode; and the
refusals of inconsistent dimension numbers.

Dimension numbers are `Static` tuples of their fields (the `[dn]` programs build the named
tuple in either library). The recorded derivatives use uniform tangents, which cannot tell
one position from another: the `[weighted]` programs scale the operand, the updates and the
result by 1, 2, 3, ... in C order, so a tangent or cotangent that lands in the wrong place
shows. Out-of-bounds indices under PROMISE_IN_BOUNDS (lax.gather's default) are left out:
JAX calls their derivatives undefined (its transpose drops what its JVP clamps). Nor are
the derivatives of `scatter_min`/`scatter_max` recorded under mode CLIP with out-of-bounds
indices: JAX 0.10's come out NaN there (its rule counts the updates with a scatter that
drops, then adds with one that clamps); tests/lax/test_scatter_gather.py checks tf8's
against finite differences."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..spec import Case, Static, program

SCATTERS = ("scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min", "scatter_max")
EXTREMA = ("scatter_min", "scatter_max")


def _ramp(lax, x, offset):
    """1 + offset, 2 + offset, ... in C order, in x's shape and dtype."""
    size = int(np.prod(x.shape, dtype=np.int64))
    ramp = lax.reshape(lax.convert_element_type(lax.iota(np.int32, size), x.dtype), x.shape)
    return ramp + (1 + offset)


@program("lax.gather[dn]")
def _gather(root):
    def fn(x, idx, dn, sizes, **kw):
        return root.lax.gather(x, idx, root.lax.GatherDimensionNumbers(*dn), sizes, **kw)

    return fn


@program("lax.gather[weighted]")
def _gather_weighted(root):
    lax = root.lax

    def fn(x, idx, dn, sizes, **kw):
        out = lax.gather(
            lax.mul(x, _ramp(lax, x, 0)), idx, lax.GatherDimensionNumbers(*dn), sizes, **kw
        )
        return lax.mul(out, _ramp(lax, out, 0.5))

    return fn


def _scatter_program(name: str, weighted: bool) -> None:
    @program(f"lax.{name}[{'weighted' if weighted else 'dn'}]")
    def build(root):
        lax = root.lax

        def fn(x, idx, u, dn, **kw):
            numbers = lax.ScatterDimensionNumbers(*dn)
            if not weighted:
                return getattr(lax, name)(x, idx, u, numbers, **kw)
            x, u = lax.mul(x, _ramp(lax, x, 0)), lax.mul(u, _ramp(lax, u, 0.25))
            out = getattr(lax, name)(x, idx, u, numbers, **kw)
            return lax.mul(out, _ramp(lax, out, 0.5))

        return fn


for _name in SCATTERS:
    _scatter_program(_name, False)
    _scatter_program(_name, True)


@program("lax.scatter_apply[sin]")
def _scatter_apply_sin(root):
    def fn(x, idx, dn, update_shape, **kw):
        numbers = root.lax.ScatterDimensionNumbers(*dn)
        return root.lax.scatter_apply(
            x, idx, root.lax.sin, numbers, update_shape=update_shape, **kw
        )

    return fn


@program("lax.scatter_apply[double]")
def _scatter_apply_double(root):
    def fn(x, idx, dn, update_shape, **kw):
        numbers = root.lax.ScatterDimensionNumbers(*dn)
        return root.lax.scatter_apply(
            x, idx, lambda v: root.lax.add(v, v), numbers, update_shape=update_shape, **kw
        )

    return fn


def _i(values) -> np.ndarray:
    return np.asarray(values, np.int64)


# (operand shape, in-bounds indices, out-of-bounds indices, gather numbers, slice sizes):
# offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
# start_indices_batching_dims
GATHERS = [
    ((5, 3), _i([[0], [4], [2], [4]]), _i([[0], [7], [-1], [4]]), ((1,), (0,), (0,)), (1, 3)),
    (
        (3, 5),
        _i([[[1], [4]], [[0], [0]]]),
        _i([[[1], [5]], [[-2], [0]]]),
        ((0,), (1,), (1,)),
        (3, 1),
    ),
    (
        (4, 5),
        _i([[0, 1], [2, 3], [2, 0]]),
        _i([[0, 1], [3, 4], [-1, 2]]),
        ((1, 2), (), (0, 1)),
        (2, 2),
    ),
    ((4, 5, 3), _i([[1], [3]]), _i([[1], [5]]), ((1, 2), (1,), (1,)), (2, 1, 3)),
    (
        (4,),
        _i([[[0], [3], [1]], [[2], [2], [0]]]),
        _i([[[0], [4], [1]], [[-1], [2], [9]]]),
        ((), (0,), (0,)),
        (1,),
    ),
    ((4, 5), _i([[0], [2], [1]]), _i([[0], [3], [-1]]), ((0, 2), (), (0,)), (2, 5)),
    (
        (2, 3, 4),
        _i([[[1], [3]], [[0], [2]]]),
        _i([[[1], [4]], [[-1], [2]]]),
        ((2,), (2,), (2,), (0,), (0,)),
        (1, 3, 1),
    ),
    (
        (3, 4),
        _i([[[1], [3], [0]], [[2], [2], [3]]]),
        _i([[[1], [5], [0]], [[2], [-3], [3]]]),
        ((), (1,), (1,), (0,), (1,)),
        (1, 1),
    ),
    ((3, 4), np.zeros((2, 0), np.int64), None, ((1, 2), (), ()), (2, 2)),
    ((3, 4), np.zeros((0, 1), np.int64), None, ((1,), (0,), (0,)), (1, 4)),
]


def _gathers(rng: np.random.Generator) -> Iterator[Case]:
    for shape, inside, outside, dn, sizes in GATHERS:
        x = rng.uniform(-2.0, 2.0, shape)
        base = (Static(dn), Static(sizes))
        yield Case("lax.gather[dn]", (x, inside, *base))
        yield Case("lax.gather[weighted]", (x, inside, *base))
        yield Case("lax.gather[weighted]", (x, inside, *base), {"mode": "clip"})
        if outside is None:
            continue
        for mode in ("clip", "fill"):
            yield Case("lax.gather[weighted]", (x, outside, *base), {"mode": mode})
        yield Case("lax.gather[dn]", (x, outside, *base), {"mode": "fill", "fill_value": 7.5})
        # clamped values; no derivatives (undefined out of bounds under PROMISE_IN_BOUNDS)
        yield Case("lax.gather[dn]", (x, outside, *base), derivatives=False)
    shape, inside, outside, dn, sizes = GATHERS[0]
    base = (Static(dn), Static(sizes))
    x = rng.uniform(-2.0, 2.0, shape)
    for operand in (
        x.astype(np.float32),
        (x + 1j * x[::-1]),
        np.arange(15, dtype=np.int32).reshape(5, 3),
        np.arange(15, dtype=np.uint8).reshape(5, 3),
        np.arange(15).reshape(5, 3) % 2 == 0,
    ):
        for mode in ("clip", "fill"):
            yield Case("lax.gather[dn]", (operand, outside, *base), {"mode": mode})
    yield Case("lax.gather[dn]", (x, outside.astype(np.int32), *base), {"mode": "fill"})
    yield Case("lax.gather[dn]", (x, outside.astype(np.uint8) % 6, *base), {"mode": "fill"})
    yield Case("lax.gather[dn]", (x, inside, *base), {"mode": "promise_in_bounds"})
    yield Case(
        "lax.gather[dn]",
        (np.arange(15).reshape(5, 3), outside, *base),
        {"mode": "fill", "fill_value": 2.7},
    )
    # refused
    yield Case("lax.gather[dn]", (x, inside, *base), {"mode": "nearest"})
    yield Case("lax.gather[dn]", (x, inside, *base), {"mode": "one_hot"})
    yield Case("lax.gather[dn]", (x, inside.astype(np.float64), *base))
    for bad_dn, bad_sizes in (
        (((1,), (0,), (0,)), (2, 3)),  # collapsed axis of size 2
        (((1,), (0,), (0, 1)), (1, 3)),  # index vector of length 1 for 2 axes
        (((1,), (0,), (0,)), (1, 4)),  # slice past the axis
        (((1,), (0,), (0,)), (1,)),  # one size for two axes
        (((0, 1), (), (0,)), (1, 3)),  # valid: the offset axes first
        (((2,), (0,), (0,)), (1, 3)),  # offset_dims out of range
        (((1,), (), (0,)), (1, 3)),  # a slice axis neither offset nor collapsed
        (((1,), (0,), (0,), (1,), (0,)), (1, 1)),  # batching sizes differ (3 vs 4)
    ):
        yield Case("lax.gather[dn]", (x, inside, Static(bad_dn), Static(bad_sizes)))
    cube = rng.uniform(-2.0, 2.0, (2, 3, 4))
    idx = _i([[[1], [3]], [[0], [2]]])
    for bad_dn in (
        ((2,), (2,), (2,), (0,), (1,)),  # valid: paired with the indices' axis 1 instead
        ((2,), (0, 2), (2,), (0,), (0,)),  # batching axis also collapsed
        ((2,), (2,), (2,), (0,), (2,)),  # the index vector as a batching axis
        ((2,), (2,), (2,), (0,), ()),  # unpaired
        ((2,), (2,), (0,), (0,), (0,)),  # batching axis also in start_index_map
    ):
        yield Case("lax.gather[dn]", (cube, idx, Static(bad_dn), Static((1, 3, 1))))


# (operand shape, updates shape, in-bounds repeated, in-bounds unique, out-of-bounds, numbers):
# update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
# operand_batching_dims, scatter_indices_batching_dims
SCATTERS_DN = [
    (
        (5, 3),
        (4, 3),
        _i([[1], [4], [1], [1]]),
        _i([[0], [4], [2], [1]]),
        _i([[1], [7], [-1], [1]]),
        ((1,), (0,), (0,)),
    ),
    (
        (6,),
        (5,),
        _i([[2], [0], [2], [5], [0]]),
        _i([[2], [0], [3], [5], [1]]),
        _i([[2], [-1], [6], [5], [2]]),
        ((), (0,), (0,)),
    ),
    (
        (4, 5),
        (3, 2, 2),
        _i([[0, 1], [1, 2], [0, 1]]),
        _i([[0, 1], [2, 3], [2, 0]]),
        _i([[0, 1], [3, 4], [-1, 0]]),
        ((1, 2), (), (0, 1)),
    ),
    (
        (2, 3, 4),
        (2, 2, 3),
        _i([[[1], [1]], [[0], [2]]]),
        _i([[[1], [3]], [[0], [2]]]),
        _i([[[1], [4]], [[-1], [2]]]),
        ((2,), (2,), (2,), (0,), (0,)),
    ),
    (
        (4, 5),
        (2, 3, 5),
        _i([[0], [1], [0]]),
        _i([[0], [2], [9]]),
        _i([[0], [3], [-1]]),
        ((0, 2), (), (0,)),
    ),
    (
        (3, 4),
        (2, 2, 2),
        _i([[0, 0], [0, 0]]),
        _i([[0, 0], [1, 2]]),
        _i([[0, 0], [2, 3]]),
        ((1, 2), (), (0, 1)),
    ),
]


def _scatters(rng: np.random.Generator) -> Iterator[Case]:
    for shape, ushape, repeated, unique, outside, dn in SCATTERS_DN:
        x = rng.uniform(-2.0, 2.0, shape)
        u = rng.uniform(-2.0, 2.0, ushape)
        numbers = Static(dn)
        for name in SCATTERS:
            weighted = f"lax.{name}[weighted]"
            yield Case(weighted, (x, unique, u, numbers), {"unique_indices": True})
            mul = name == "scatter_mul"  # JAX differentiates it only with unique indices
            yield Case(weighted, (x, repeated, u, numbers), derivatives=not mul)
            for mode in ("clip", "drop"):
                yield Case(
                    weighted,
                    (x, outside, u, numbers),
                    {"mode": mode},
                    derivatives=not mul and not (mode == "clip" and name in EXTREMA),
                )
            yield Case(
                f"lax.{name}[dn]",
                (x, outside, u, numbers),
                {"mode": "promise_in_bounds"},
                derivatives=False,
            )
    shape, ushape, repeated, unique, outside, dn = SCATTERS_DN[1]
    x = np.array([1.0, 5.0, -2.0, 3.0, 0.5, 4.0])
    ties = np.array([5.0, 1.0, 5.0, 3.0, 1.0])  # ties among the updates and with the operand
    for name in ("scatter_min", "scatter_max"):
        yield Case(f"lax.{name}[dn]", (x, repeated, ties, Static(dn)))
        yield Case(
            f"lax.{name}[dn]",
            (
                np.array([np.nan, 1, 2, 3, 4, 5.0]),
                repeated,
                np.array([0.0, np.nan, 1, 2, 3]),
                Static(dn),
            ),
        )
    operands = (
        (x.astype(np.float32), ties.astype(np.float32)),
        (x + 1j, ties - 2j),
        (np.arange(6, dtype=np.int32), np.array([7, -1, 3, 2, 9], np.int32)),
        (np.arange(6, dtype=np.uint8), np.array([200, 100, 3, 2, 9], np.uint8)),
        (np.arange(6) % 2 == 0, np.array([True, False, False, True, True])),
    )
    for name in SCATTERS:
        for xo, uo in operands:
            for mode in (None, "clip"):
                yield Case(
                    f"lax.{name}[dn]",
                    (xo, outside, uo, Static(dn)),
                    {"mode": mode},
                    derivatives=not (mode == "clip" and name in EXTREMA),
                )
        yield Case(f"lax.{name}[dn]", (x, outside.astype(np.int32), ties, Static(dn)))
        # refused: dtypes differ, float indices, an unknown mode
        yield Case(f"lax.{name}[dn]", (x, repeated, ties.astype(np.float32), Static(dn)))
        yield Case(f"lax.{name}[dn]", (x, repeated.astype(np.float64), ties, Static(dn)))
        yield Case(f"lax.{name}[dn]", (x, repeated, ties, Static(dn)), {"mode": "wrap"})
    x, u = rng.uniform(-2.0, 2.0, (5, 3)), rng.uniform(-2.0, 2.0, (4, 3))
    idx = _i([[1], [4], [1], [1]])
    for bad in (
        ((1,), (1,), (0,)),  # valid: a window of 3 along axis 0, axis 1 inserted
        ((0, 1), (0,), (0,)),  # too many window axes
        ((1,), (0,), (0, 1)),  # index vector of length 1 for 2 axes
        ((1,), (0,), (2,)),  # operand axis out of range
        ((), (0, 1), (0,)),  # updates have a window axis left over
        ((1,), (0,), (0,), (0,), (0,)),  # batching axis also inserted (and 5 vs 4)
        ((1,), (0,), (0,), (1,), ()),  # unpaired batching dims
    ):
        yield Case("lax.scatter_add[dn]", (x, idx, u, Static(bad)))
    yield Case("lax.scatter_add[dn]", (x, idx, u[:3], Static(((1,), (0,), (0,)))))
    whole = Static(((1, 2), (), ()))  # an empty index vector: each window is the operand
    for name in SCATTERS:
        yield Case(
            f"lax.{name}[weighted]",
            (x, np.zeros((2, 0), np.int64), rng.uniform(-2.0, 2.0, (2, 5, 3)), whole),
            derivatives=name != "scatter_mul",
        )
    yield Case("lax.scatter_add[dn]", (x, idx, np.zeros((4, 4)), Static(((1,), (0,), (0,)))))


def _scatter_apply(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(-2.0, 2.0, (5, 3))
    dn = Static(((1,), (0,), (0,)))
    for idx, keywords in (
        (_i([[1], [4], [1], [1]]), {}),
        (_i([[1], [7], [-1], [1]]), {"mode": "clip"}),
        (_i([[1], [7], [-1], [1]]), {}),
        (_i([[0], [4], [2], [1]]), {"unique_indices": True}),
    ):
        for name in ("lax.scatter_apply[sin]", "lax.scatter_apply[double]"):
            # JAX has no derivative for scatter_apply (tf8 has: tests/lax)
            yield Case(name, (x, idx, dn, Static((4, 3))), keywords, derivatives=False)
    yield Case(
        "lax.scatter_apply[double]",
        (np.arange(15, dtype=np.int32).reshape(5, 3), _i([[1], [1]]), dn, Static((2, 3))),
    )
    yield Case("lax.scatter_apply[double]", (x, _i([[1], [1]]), dn, Static((2, 4))))  # refused


def cases() -> Iterator[Case]:
    rng = np.random.default_rng(31)
    yield from _gathers(rng)
    yield from _scatters(rng)
    yield from _scatter_apply(rng)
