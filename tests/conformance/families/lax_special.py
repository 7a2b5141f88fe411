"""`jax.lax`'s special functions of several arrays (incomplete gamma and beta, polygamma,
zeta) on their domains and at its edges, and the ternary `clamp` and `select`.

JAX differentiates betainc only in x and polygamma only in x: their derivative cases pass
the other parameters as (traced, undifferentiated) Python scalars. It does not
differentiate igamma_grad_a, random_gamma_grad and zeta at all."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..spec import Case

NAN, INF = np.nan, np.inf


def _positive(rng: np.random.Generator, low: float, high: float) -> Iterator[tuple]:
    """Pairs of positive arguments: dtypes, broadcasting, 0-d, empty, weak scalars, refusals."""
    a, x = rng.uniform(low, high, (2, 2, 3))
    yield a, x
    yield a.astype(np.float32), x.astype(np.float32)
    yield a, x[0]  # broadcasting: refused, lax wants equal shapes
    yield np.array(1.5), x  # 0-d against an array
    yield np.zeros((0, 3)), np.zeros((0, 3))
    yield 1.5, x  # a weak Python float (float64)
    yield a, 2.5
    yield a.astype(np.float32), x  # float32 with float64: refused
    yield np.array([1, 2], np.int32), np.array([1, 2], np.int32)  # integers: refused
    yield np.array([90.0, 100.0, 120.0]), np.array([100.0, 100.0, 100.0])  # large


GAMMA_EDGES = (
    np.array([0.0, 1.0, 1.0, 1.0, 1.0, INF, NAN, 0.5, -1.0, 2.0]),
    np.array([1.0, 0.0, INF, NAN, -1.0, 1.0, 1.0, 1e-30, 1.0, 1e30]),
)
ZETA_EDGES = (
    np.array([1.0, 0.5, 2.0, 2.0, 2.0, 2.0, 3.0, INF, NAN, 2.0]),
    np.array([1.0, 1.0, 0.0, -1.0, -1.5, INF, 1e-300, 1.0, 1.0, NAN]),
)


def _gamma_family(rng: np.random.Generator) -> Iterator[Case]:
    for name in ("igamma", "igammac", "igamma_grad_a", "random_gamma_grad"):
        differentiated = name in ("igamma", "igammac")
        for args in _positive(rng, 0.2, 4.0):
            if name == "random_gamma_grad" and any(isinstance(a, float) for a in args):
                continue  # JAX's random_gamma_grad fails on a Python scalar (a.shape)
            yield Case(f"lax.{name}", args, derivatives=differentiated)
        for args in (GAMMA_EDGES, tuple(a.astype(np.float32) for a in GAMMA_EDGES)):
            yield Case(f"lax.{name}", args, derivatives=differentiated)


def _zeta(rng: np.random.Generator) -> Iterator[Case]:
    x, q = rng.uniform(1.1, 6.0, (2, 3)), rng.uniform(0.2, 4.0, (2, 3))
    yield Case("lax.zeta", (x, q), derivatives=False)
    yield Case("lax.zeta", (x.astype(np.float32), q.astype(np.float32)), derivatives=False)
    yield Case("lax.zeta", (2.0, q), derivatives=False)
    yield Case("lax.zeta", (np.array(3.0), np.array(0.5)), derivatives=False)
    yield Case("lax.zeta", (np.zeros((0,)), np.zeros((0,))), derivatives=False)
    yield Case("lax.zeta", ZETA_EDGES, derivatives=False)
    yield Case("lax.zeta", (x.astype(np.float32), q), derivatives=False)  # refused


def _polygamma(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(0.2, 4.0, (2, 3))
    m = np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 1.0]])
    yield Case("lax.polygamma", (m, x), derivatives=False)
    yield Case("lax.polygamma", (m.astype(np.float32), x.astype(np.float32)), derivatives=False)
    yield Case(
        "lax.polygamma", (np.array([0.5, -1.0, 1.0]), np.array([1.0, 1.0, -2.0])), derivatives=False
    )
    yield Case("lax.polygamma", (np.array([1.0, 2.0]), np.array([0.0, -0.0])), derivatives=False)
    yield Case("lax.polygamma", (np.array([1, 2], np.int32), np.array([1, 2], np.int32)))
    for order in (0.0, 1.0, 3.0):  # x differentiated, m a weak scalar
        yield Case("lax.polygamma", (order, x))
    yield Case("lax.polygamma", (1.0, x.astype(np.float32)))  # float64 scalar: refused


def _betainc(rng: np.random.Generator) -> Iterator[Case]:
    a, b = rng.uniform(0.3, 5.0, (2, 2, 3))
    x = rng.uniform(0.05, 0.95, (2, 3))
    yield Case("lax.betainc", (a, b, x), derivatives=False)
    f32 = [v.astype(np.float32) for v in (a, b, x)]
    yield Case("lax.betainc", tuple(f32), derivatives=False)
    edges = np.array([0.0, 1.0, 0.5, 0.5, -0.1, 1.1, NAN, 0.5])
    ones = np.ones(8)
    params = np.array([1.0, 1.0, 0.0, INF, 1.0, 1.0, 1.0, NAN])
    yield Case("lax.betainc", (params, ones, edges), derivatives=False)
    for p, q in ((1.5, 2.0), (0.5, 0.5), (30.0, 2.0)):  # x differentiated
        yield Case("lax.betainc", (p, q, x))
    yield Case("lax.betainc", (1.5, 2.0, f32[2]))  # float64 scalars: refused
    yield Case("lax.betainc", (np.array(2.0), np.array(3.0), np.array(0.25)))
    yield Case("lax.betainc", (a, b[0], x))  # unequal shapes: refused


def _clamp(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(-2.0, 2.0, (2, 3))
    low, high = rng.uniform(-1.0, 0.0, (2, 3)), rng.uniform(0.0, 1.0, (2, 3))
    yield Case("lax.clamp", (low, x, high))
    yield Case("lax.clamp", tuple(v.astype(np.float32) for v in (low, x, high)))
    # 0-d bounds broadcast; JAX's JVP of clamp then fails (select of unequal shapes), so
    # the derivative cases give bounds of x's shape
    yield Case("lax.clamp", (np.array(-0.5), x, np.array(0.5)), derivatives=False)
    yield Case("lax.clamp", (-0.5, x, 0.5))  # weak Python bounds (float64)
    yield Case("lax.clamp", (-0.5, x.astype(np.float32), 0.5))  # refused
    yield Case("lax.clamp", (low[0], x, high[0]))  # bounds of another shape: refused
    ties = np.array([-1.0, 1.0, 0.0, NAN, -INF, INF])
    ones = np.ones_like(ties)
    yield Case("lax.clamp", (-ones, ties, ones))  # at the kinks, NaN
    full = lambda v: np.full_like(x, v)  # noqa: E731
    # low above high: the value is high; the derivative is not defined
    yield Case("lax.clamp", (full(1.0), x, full(-1.0)), derivatives=False)
    yield Case("lax.clamp", (full(NAN), x, full(1.0)))
    yield Case("lax.clamp", (np.array([-0.0, -0.0]), np.array([0.0, -0.0]), np.zeros(2)))
    yield Case(
        "lax.clamp", (np.array(2, np.int32), np.array([1, 5, -3], np.int32), np.array(4, np.int32))
    )
    yield Case(
        "lax.clamp", (np.array(1, np.uint8), np.array([0, 200], np.uint8), np.array(9, np.uint8))
    )
    yield Case("lax.clamp", (np.array(0.0), np.zeros((0, 2)), np.array(1.0)), derivatives=False)
    yield Case("lax.clamp", (np.array(False), np.array([True, False]), np.array(True)))
    yield Case("lax.clamp", (np.array([0j]), np.array([1 + 1j]), np.array([2 + 0j])))


def _select(rng: np.random.Generator) -> Iterator[Case]:
    a, b = rng.uniform(-2.0, 2.0, (2, 2, 3))
    pred = a > b
    yield Case("lax.select", (pred, a, b))
    yield Case("lax.select", (pred, a.astype(np.float32), b.astype(np.float32)))
    # a 0-d predicate broadcasts; an int predicate is accepted
    # (no derivatives: tf8 refuses these, and replay.py's derivative pass is unguarded)
    yield Case("lax.select", (np.array(True), a, b), derivatives=False)
    yield Case("lax.select", (True, a, b), derivatives=False)
    yield Case("lax.select", (pred, a, 1.5))  # a weak scalar case: refused (shape)
    yield Case("lax.select", (np.array(True), np.array(1.0), 2.0))
    yield Case("lax.select", (pred, a, b.astype(np.float32)))  # unequal dtypes: refused
    yield Case("lax.select", (pred.astype(np.int32), a, b), derivatives=False)
    yield Case("lax.select", (pred[0], a, b))  # a predicate of another shape: refused
    yield Case("lax.select", (pred, (a + 1j * b), (b - 1j * a)))
    yield Case("lax.select", (pred, a.astype(np.int32), b.astype(np.int32)))
    yield Case("lax.select", (np.array([True, False]), np.array([NAN, 1.0]), np.array([2.0, NAN])))
    yield Case("lax.select", (np.zeros((0,), bool), np.zeros((0,)), np.zeros((0,))))


def cases() -> Iterator[Case]:
    rng = np.random.default_rng(600)
    yield from _gamma_family(rng)
    yield from _zeta(rng)
    yield from _polygamma(rng)
    yield from _betainc(rng)
    yield from _clamp(rng)
    yield from _select(rng)
