"""`jax.lax`'s control flow (cond, switch, scan, fori_loop, while_loop) and stop_gradient,
as programs whose bodies use ops both libraries have.

Each loop runs on float64, float32 and weakly typed (Python float) values: whether a result
keeps an operand's weak type is one of the facts recorded. Loop bounds are Python ints
(`Static`, so JAX can reverse-differentiate fori_loop) or traced int arrays (a while loop,
which JAX only differentiates forward). Refusals: a predicate or index of the wrong dtype or
shape, branches or a carry whose types disagree."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..spec import Case, Static, program


@program("lax.cond[sin_cos]")
def _cond_sin_cos(root):
    lax = root.lax
    return lambda pred, x: lax.cond(pred, lax.sin, lax.cos, x)


@program("lax.cond[pair]")
def _cond_pair(root):
    def true_fun(x, y):
        return x * y, y

    def false_fun(x, y):
        return y, x + y

    return lambda pred, x, y: root.lax.cond(pred, true_fun, false_fun, x, y)


@program("lax.cond[constant_branch]")
def _cond_constant(root):
    return lambda pred, x: root.lax.cond(pred, lambda x: x * 2.0, lambda x: 1.5, x)


@program("lax.cond[unequal_dtypes]")
def _cond_unequal(root):
    lax = root.lax
    to32 = lambda x: lax.convert_element_type(x, "float32")  # noqa: E731
    return lambda pred, x: lax.cond(pred, lambda x: x, to32, x)


@program("lax.switch[three]")
def _switch_three(root):
    lax = root.lax
    return lambda index, x: lax.switch(index, [lax.sin, lax.cos, lambda x: x * x], x)


@program("lax.switch[one]")
def _switch_one(root):
    return lambda index, x: root.lax.switch(index, [lambda x: x * 3.0], x)


def _add_mul(carry, x):
    return carry + x, carry * x


@program("lax.scan[add_mul]")
def _scan_add_mul(root):
    return lambda init, xs, **kw: root.lax.scan(_add_mul, init, xs, **kw)


@program("lax.scan[length]")
def _scan_length(root):
    return lambda init, length, **kw: root.lax.scan(
        lambda c, _: (c * 1.5 + 1.0, c), init, None, length=length, **kw
    )


@program("lax.scan[pair]")
def _scan_pair(root):
    def body(carry, x):
        a, b = carry
        return (a + x, b * x), a - b

    return lambda a, b, xs, **kw: root.lax.scan(body, (a, b), xs, **kw)


@program("lax.scan[counter]")
def _scan_counter(root):
    def body(carry, x):
        i, c = carry
        return (i + 1, c * x), c

    return lambda start, init, xs: root.lax.scan(body, (start, init), xs)


@program("lax.scan[to_float32]")
def _scan_to_float32(root):
    lax = root.lax
    body = lambda c, x: (lax.convert_element_type(c * x, "float32"), x)  # noqa: E731
    return lambda init, xs: lax.scan(body, init, xs)


def _decay(root):
    lax = root.lax
    return lambda i, x: x * 0.5 + lax.convert_element_type(i, x.dtype)


@program("lax.fori_loop[decay]")
def _fori_decay(root):
    return lambda lower, upper, x: root.lax.fori_loop(lower, upper, _decay(root), x)


@program("lax.while_loop[double]")
def _while_double(root):
    lax = root.lax

    def below(x):
        return lax.reduce_max(x, tuple(range(x.ndim))) < 10.0

    return lambda x: lax.while_loop(below, lambda x: x * 2.0, x)


@program("lax.while_loop[counter]")
def _while_counter(root):
    def below(carry):
        return carry[0] < carry[2]

    def step(carry):
        i, x, n = carry
        return i + 1, x * 1.5, n

    return lambda start, x, n: root.lax.while_loop(below, step, (start, x, n))


@program("lax.while_loop[vector_predicate]")
def _while_vector(root):
    return lambda x: root.lax.while_loop(lambda x: x < 10.0, lambda x: x * 2.0, x)


@program("lax.while_loop[to_float32]")
def _while_to_float32(root):
    lax = root.lax
    body = lambda x: lax.convert_element_type(x * 2.0, "float32")  # noqa: E731
    return lambda x: lax.while_loop(lambda x: x < 10.0, body, x)


@program("lax.map[square]")
def _map_square(root):
    return lambda xs: root.lax.map(lambda x: x * x + 1.0, xs)


@program("lax.map[pair]")
def _map_pair(root):
    return lambda xs, ys: root.lax.map(lambda p: (p[0] * p[1], p[1]), (xs, ys))


@program("lax.stop_gradient[product]")
def _stop_product(root):
    return lambda x: x * root.lax.stop_gradient(x)


@program("lax.stop_gradient[second_order]")
def _stop_second(root):
    return lambda x: x * x * root.lax.stop_gradient(x * x) + root.lax.sin(x)


@program("lax.stop_gradient[pair]")
def _stop_pair(root):
    return lambda x, y: root.lax.stop_gradient((x, y * 2.0))


def _branches(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(-1.0, 1.0, (2, 3))
    operands = [x, x.astype(np.float32), np.array(0.3), 0.5, np.zeros((0,))]
    for pred in (np.array(True), np.array(False), True):
        for operand in operands:
            yield Case("lax.cond[sin_cos]", (pred, operand))
    for pred in (np.array(2, np.int32), np.array(0, np.int64), np.array([True])):
        yield Case("lax.cond[sin_cos]", (pred, x))
    # a float predicate (nonzero is true); tf8 refuses it, and replay.py's derivative pass
    # is unguarded: no derivatives
    yield Case("lax.cond[sin_cos]", (np.array(1.5), x), derivatives=False)
    y = rng.uniform(-1.0, 1.0, (2, 3))
    for pred in (np.array(True), np.array(False)):
        yield Case("lax.cond[pair]", (pred, x, y))
        yield Case("lax.cond[pair]", (pred, x.astype(np.float32), y.astype(np.float32)))
        yield Case("lax.cond[pair]", (pred, 0.5, 2.0))
        yield Case("lax.cond[pair]", (pred, x, y.astype(np.float32)))
        yield Case("lax.cond[constant_branch]", (pred, 0.5))
        yield Case("lax.cond[constant_branch]", (pred, np.array(0.5)))
        yield Case("lax.cond[constant_branch]", (pred, np.array(0.5, np.float32)))
        yield Case("lax.cond[unequal_dtypes]", (pred, x))
    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    for index in (
        i32(0),
        i32(1),
        i32(2),
        i32(-1),
        i32(7),
        1,
        np.array(2, np.int64),
        np.array(1, np.uint8),
        np.array(1.0),
        np.array(True),
        np.array([1], np.int32),
    ):
        yield Case("lax.switch[three]", (index, x))
    yield Case("lax.switch[three]", (i32(1), x.astype(np.float32)))
    yield Case("lax.switch[three]", (i32(2), 0.5))
    yield Case("lax.switch[one]", (i32(5), x))


def _scans(rng: np.random.Generator) -> Iterator[Case]:
    xs = rng.uniform(0.5, 1.5, (5,))
    grid = rng.uniform(0.5, 1.5, (4, 3))
    for keywords in ({}, {"reverse": True}, {"unroll": 2}, {"length": 5}):
        yield Case("lax.scan[add_mul]", (np.array(0.5), xs), keywords)
    for init, seq in (
        (np.array(0.5, np.float32), xs.astype(np.float32)),
        (0.5, xs),
        (0.5, xs.astype(np.float32)),
        (np.array(0.5), np.zeros((0,))),
        (grid[0], grid),
        (np.array(0.5, np.float32), xs),
        (np.array(0.5), xs.astype(np.float32)),
        (np.array(2, np.int32), np.array([1, 2, 3], np.int32)),
        (np.array(0.5), np.array(2.0)),
        (grid[0, :2], grid),
    ):
        yield Case("lax.scan[add_mul]", (init, seq))
    yield Case("lax.scan[add_mul]", (np.array(0.5), xs), {"length": 3})  # refused
    for init, length in (
        (np.array(0.5), 4),
        (np.array(0.5, np.float32), 3),
        (0.5, 4),
        (grid[0], 2),
        (np.array(0.5), 0),
    ):
        yield Case("lax.scan[length]", (init, Static(length)))
    yield Case("lax.scan[length]", (np.array(0.5), Static(4)), {"reverse": True})
    for a, b, seq in (
        (np.array(0.5), np.array(2.0), xs),
        (0.5, 2.0, xs),
        (np.array(0.5, np.float32), np.array(2.0, np.float32), xs.astype(np.float32)),
        (0.5, np.array(2.0, np.float32), xs.astype(np.float32)),
    ):
        yield Case("lax.scan[pair]", (a, b, seq))
    yield Case("lax.scan[pair]", (np.array(0.5), np.array(2.0), xs), {"reverse": True})
    yield Case("lax.scan[counter]", (0, np.array(1.0), xs))
    yield Case(
        "lax.scan[counter]",
        (np.array(0, np.int32), np.array(1.0, np.float32), xs.astype(np.float32)),
    )
    yield Case("lax.scan[counter]", (0, 1.0, xs))
    yield Case("lax.scan[to_float32]", (np.array(0.5), xs))  # refused
    yield Case("lax.scan[to_float32]", (np.array(0.5, np.float32), xs.astype(np.float32)))


def _loops(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(-1.0, 1.0, (2, 3))
    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    for lower, upper in ((0, 5), (3, 3), (5, 2), (-2, 1)):
        yield Case("lax.fori_loop[decay]", (Static(lower), Static(upper), x))
    yield Case("lax.fori_loop[decay]", (Static(0), Static(4), x.astype(np.float32)))
    yield Case("lax.fori_loop[decay]", (Static(0), Static(4), np.array(1.0)))
    yield Case("lax.fori_loop[decay]", (Static(0), Static(4), 1.0))  # a weak init
    yield Case("lax.fori_loop[decay]", (i32(0), i32(4), x))  # traced bounds
    yield Case("lax.fori_loop[decay]", (i32(0), i32(4), 1.0))
    yield Case("lax.fori_loop[decay]", (i32(4), i32(0), x.astype(np.float32)))
    yield Case("lax.fori_loop[decay]", (0, 4, x))  # weak Python ints
    yield Case("lax.fori_loop[decay]", (i32(0), np.array(4, np.int64), x))  # unequal dtypes
    yield Case("lax.fori_loop[decay]", (np.array(0.0), np.array(4.0), x))  # float bounds
    for init in (
        np.array(0.7),
        np.array(0.7, np.float32),
        0.7,
        np.array(20.0),
        np.array([0.7, 3.0]),
        np.array([20.0, 0.5]),  # no iteration: the largest is past 10
        np.array(1e-3),  # each init grows past 10, or the loop would not end
    ):
        yield Case("lax.while_loop[double]", (init,))
    yield Case("lax.while_loop[counter]", (0, x, i32(3)))
    yield Case("lax.while_loop[counter]", (i32(0), x.astype(np.float32), i32(0)))
    yield Case("lax.while_loop[counter]", (0, 1.0, 3))
    yield Case("lax.while_loop[vector_predicate]", (np.array([0.7, 3.0]),))  # refused
    yield Case("lax.while_loop[to_float32]", (np.array(0.7),))  # refused


def _maps(rng: np.random.Generator) -> Iterator[Case]:
    xs = rng.uniform(-1.0, 1.0, (4, 3))
    for operand in (xs, xs.astype(np.float32), xs[0], np.zeros((0, 3)), np.array(1.5)):
        yield Case("lax.map[square]", (operand,))
    yield Case("lax.map[pair]", (xs, xs[:, 0]))
    yield Case("lax.map[pair]", (xs, xs[:3]))  # unequal leading axes: refused


def _stops(rng: np.random.Generator) -> Iterator[Case]:
    # no Python scalar operand: JAX's stop_gradient returns it as it is, not an array
    x = rng.uniform(-1.0, 1.0, (2, 3))
    for operand in (
        x,
        x.astype(np.float32),
        np.array(0.3),
        np.array([1, 2], np.int32),
        x + 1j * x,
        np.zeros((0,)),
        np.array(True),
    ):
        yield Case("lax.stop_gradient", (operand,))
    for operand in (x, x.astype(np.float32), np.array(0.3)):
        yield Case("lax.stop_gradient[product]", (operand,))
        yield Case("lax.stop_gradient[second_order]", (operand,))
    yield Case("lax.stop_gradient[pair]", (x, x[0]))
    yield Case("lax.stop_gradient[pair]", (x.astype(np.float32), np.array(2.0, np.float32)))


def cases() -> Iterator[Case]:
    rng = np.random.default_rng(900)
    yield from _branches(rng)
    yield from _scans(rng)
    yield from _loops(rng)
    yield from _maps(rng)
    yield from _stops(rng)
