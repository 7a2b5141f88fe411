"""`jax.scipy.special`'s functions that tf8.scipy.special shares, each on values inside its
domain, at its boundaries and poles, and at the special values (±0, ±inf, NaN).

Each function of one, two or three arguments runs over one grid (`_unary`, `_binary`,
`_betainc`): float64 and float32, a float16 array, int and bool arrays, 0-d, empty and
broadcasting shapes, weak Python scalars, and a complex array (which JAX refuses for most)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..spec import Case, Static
from ._values import finite

NAN, INF = np.nan, np.inf

# name -> (low, high) of the random samples, special values, int values
UNARY: dict[str, tuple[tuple[float, float], list[float], list[int]]] = {
    "erf": ((-3.0, 3.0), [0.0, -0.0, INF, -INF, NAN, 6.0], [-1, 0, 2]),
    "erfc": ((-2.0, 6.0), [0.0, -0.0, INF, -INF, NAN, 2.5, 10.0, 27.0], [-1, 0, 3]),
    "erfcx": ((-3.0, 8.0), [0.0, INF, -INF, NAN, 30.0, 1e3, -26.0], [-1, 0, 5]),
    "erfinv": ((-0.99, 0.99), [0.0, -0.0, 1.0, -1.0, 1.5, NAN, 1 - 1e-12], [-1, 0, 1]),
    "expit": ((-10.0, 10.0), [0.0, INF, -INF, NAN, 800.0, -800.0, 40.0], [-3, 0, 5]),
    "logit": ((0.01, 0.99), [0.0, 1.0, 0.5, -0.5, 1.5, NAN, 1e-300], [0, 1, 2]),
    "ndtr": ((-6.0, 6.0), [0.0, INF, -INF, NAN, -40.0, 10.0], [-2, 0, 3]),
    "log_ndtr": ((-30.0, 8.0), [0.0, INF, -INF, NAN, -1e3, -40.0, 40.0, 6.0], [-20, 0, 3]),
    "ndtri": ((0.01, 0.99), [0.0, 1.0, 0.5, NAN, 1e-300, 1 - 1e-10, 1.5, -0.5], [0, 1]),
    "gamma": ((-4.5, 8.0), [0.0, -0.0, -1.0, -2.0, INF, -INF, NAN, 171.5, 0.5], [-1, 0, 1, 5]),
    "gammaln": ((-4.5, 30.0), [0.0, -1.0, -2.5, INF, -INF, NAN, 1e5, 1.0, 2.0], [-1, 0, 1, 9]),
    "gammasgn": ((-4.5, 4.5), [0.0, -0.0, -1.0, -2.0, INF, -INF, NAN, -2.5, -3.5], [-1, 0, 3]),
    "digamma": ((-4.5, 30.0), [0.0, -0.0, -1.0, -2.5, INF, -INF, NAN, 1e4, 1.0], [-1, 0, 1, 9]),
    "factorial": ((0.0, 12.0), [0.0, 1.0, 5.5, -1.0, -0.5, INF, NAN, 20.0, 171.0], [-2, 0, 4]),
    "i0": ((-30.0, 30.0), [0.0, -0.0, INF, -INF, NAN, 700.0, -0.5, 1e-8], [-3, 0, 4]),
    "i0e": ((-30.0, 30.0), [0.0, -0.0, INF, -INF, NAN, 1e5, -0.5, 1e-8], [-3, 0, 4]),
    "i1": ((-30.0, 30.0), [0.0, -0.0, INF, -INF, NAN, 700.0, -0.5, 1e-8], [-3, 0, 4]),
    "i1e": ((-30.0, 30.0), [0.0, -0.0, INF, -INF, NAN, 1e5, -0.5, 1e-8], [-3, 0, 4]),
    "entr": ((0.01, 3.0), [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 1e-300], [-1, 0, 1, 3]),
}

# name -> (range of a, range of b, special values of a, and of b (pairwise), ints of a, of b)
BINARY: dict[str, tuple] = {
    "xlogy": (
        (-2.0, 2.0), (0.1, 3.0),
        [0.0, 0.0, 0.0, 0.0, 2.0, 1.0, NAN, INF, -0.0, 1.0],
        [0.0, -1.0, NAN, INF, 0.0, -1.0, 1.0, 2.0, 0.0, INF],
        [0, 1, -2], [0, 3, 5],
    ),
    "xlog1py": (
        (-2.0, 2.0), (-0.9, 3.0),
        [0.0, 0.0, 0.0, 2.0, 1.0, 1.0, NAN, INF, 1.0, -0.0],
        [-1.0, -2.0, NAN, -1.0, -2.0, 1e-12, 1.0, 0.5, INF, 0.0],
        [0, 1, -2], [-1, 3, 0],
    ),
    "rel_entr": (
        (0.05, 3.0), (0.05, 3.0),
        [0.0, 0.0, 1.0, -1.0, 1.0, 0.0, NAN, 1.0, INF, 1.0],
        [0.0, 1.0, 0.0, 1.0, -1.0, -1.0, 1.0, NAN, 1.0, INF],
        [0, 1, 2], [0, 3, 1],
    ),
    "kl_div": (
        (0.05, 3.0), (0.05, 3.0),
        [0.0, 0.0, 1.0, -1.0, 1.0, 0.0, NAN, 1.0, INF, 1.0],
        [0.0, 1.0, 0.0, 1.0, -1.0, -1.0, 1.0, NAN, 1.0, INF],
        [0, 1, 2], [0, 3, 1],
    ),
    "beta": (
        (0.2, 6.0), (0.2, 6.0),
        [0.0, -0.5, -1.5, -1.0, 1.0, INF, NAN, 200.0, 1e-08, 2.5],
        [1.0, 2.0, 0.7, 2.0, 1.0, 1.0, 1.0, 200.0, 1.0, -0.5],
        [1, 2, 5], [1, 3, 7],
    ),
    "betaln": (
        (0.2, 30.0), (0.2, 30.0),
        [0.0, -0.5, -1.5, -1.0, 1.0, INF, NAN, 100000.0, 1e-08, 2.5],
        [1.0, 2.0, 0.7, 2.0, 1.0, 1.0, 1.0, 100000.0, 1.0, -0.5],
        [1, 2, 50], [1, 3, 7],
    ),
    "poch": (
        (0.2, 6.0), (-1.5, 4.0),
        [1.0, -2.5, -2.0, 0.0, 3.0, 1.5, INF, NAN, 1.0, 50.0],
        [0.0, 2.0, 1.0, 1.0, -1.0, -2.5, 1.0, 1.0, NAN, 0.5],
        [1, 3, 5], [0, 2, 4],
    ),
    "gammainc": (
        (0.2, 12.0), (0.0, 15.0),
        [0.5, 2.0, 1.0, 0.0, -1.0, NAN, 1.0, 50.0, 50.0, 0.001],
        [0.0, INF, -1.0, 1.0, 1.0, 1.0, NAN, 40.0, 60.0, 0.001],
        [1, 2, 5], [0, 3, 1],
    ),
    "gammaincc": (
        (0.2, 12.0), (0.0, 15.0),
        [0.5, 2.0, 1.0, 0.0, -1.0, NAN, 1.0, 50.0, 50.0, 0.001],
        [0.0, INF, -1.0, 1.0, 1.0, 1.0, NAN, 40.0, 60.0, 0.001],
        [1, 2, 5], [0, 3, 1],
    ),
    "zeta": (
        (1.1, 12.0), (0.2, 6.0),
        [1.0, 0.5, 2.0, 2.0, 2.0, INF, 2.0, NAN, 3.0, 50.0],
        [1.0, 1.0, 0.0, -1.5, -2.0, 2.0, INF, 1.0, 0.001, 1.0],
        [2, 3, 4], [1, 2, 5],
    ),
    "boxcox": (
        (0.1, 5.0), (-2.0, 2.0),
        [1.0, 2.0, 2.0, 0.0, 0.0, -1.0, INF, NAN, 2.0, 3.0],
        [0.0, 0.0, 1e-20, 1.0, -1.0, 0.5, 0.5, 1.0, NAN, -0.0],
        [1, 2, 5], [0, 1, 2],
    ),
    "boxcox1p": (
        (-0.9, 5.0), (-2.0, 2.0),
        [0.0, 1e-12, 1.0, -1.0, -1.0, -2.0, INF, NAN, 2.0, 3.0],
        [0.0, 0.5, 1e-20, 1.0, -1.0, 0.5, 0.5, 1.0, NAN, -0.0],
        [0, 2, 5], [0, 1, 2],
    ),
    "comb": (
        (0.0, 12.0), (0.0, 5.0),
        [5.0, 5.0, 5.0, 5.0, 5.0, -3.0, 3.5, 60.0, NAN, INF],
        [2.0, 0.0, 5.0, 6.0, -1.0, 2.0, 1.5, 30.0, 1.0, 2.0],
        [5, 10, 4], [2, 3, 7],
    ),
    "polygamma": (
        (0.0, 3.0), (0.2, 10.0),
        [0.0, 1.0, 1.0, 2.0, 3.0, 1.0, -1.0, 1.5, 0.0, 4.0],
        [0.5, 0.0, -1.5, -2.0, INF, NAN, 2.0, 2.0, -0.5, 1000.0],
        [0, 1, 3], [1, 2, 4],
    ),
}  # fmt: skip

MULTIGAMMALN = [(1, 0.7), (2, 1.2), (3, 2.5), (4, 10.0)]  # (d, a above (d - 1) / 2)
REDUCTIONS = ["logsumexp", "softmax", "log_softmax"]


def _unary(name: str, rng: np.random.Generator) -> Iterator[Case]:
    (low, high), special, ints = UNARY[name]
    base = rng.uniform(low, high, (2, 3))
    middle = float(np.round((low + high) / 2, 2)) or 0.5
    for args in (
        (base,),
        (base.astype(np.float32),),
        (base.astype(np.float16),),
        (np.array(special),),
        (np.array(special, np.float32),),
        (np.array(middle),),  # 0-d
        (np.array(middle, np.float32),),
        (np.zeros((0,)),),  # empty
        (np.zeros((2, 0), np.float32),),
        (np.array(ints, np.int32),),
        (np.array(ints, np.int64),),
        (np.array([True, False]),),
        (middle,),  # weak Python scalars
        (ints[-1],),
        (np.array([0.5 + 0.5j, 1.0 - 0.25j]),),  # JAX refuses complex for most
    ):
        yield Case(f"scipy.special.{name}", args)


def _pair(a: Any, b: Any) -> tuple:
    return (np.array(a, float), np.array(b, float))


def _whole(n: Any) -> Any:
    """polygamma's order as JAX takes it: an int array, or a weak Python int."""
    if isinstance(n, float):
        return int(n)
    return n.astype(np.int32) if n.dtype.kind == "f" else n


def _binary(name: str, rng: np.random.Generator) -> Iterator[Case]:
    (a_low, a_high), (b_low, b_high), first, second, int_a, int_b = BINARY[name]
    integral = name in ("polygamma", "comb")  # n whole (polygamma), or N and k (comb)
    a = rng.uniform(a_low, a_high, (2, 3))
    b = rng.uniform(b_low, b_high, (2, 3))
    if integral:
        a = np.floor(a)
    if name == "comb":
        b = np.floor(b)
    a_mid = float(np.round(a[0, 0], 2))
    b_mid = float(np.round(b[0, 0], 2))
    for args in (
        (a, b),
        (a.astype(np.float32), b.astype(np.float32)),
        (a.astype(np.float32), b),  # float32 with float64
        (a, b[0]),  # broadcasting
        (a[:, :1], b[0]),  # both broadcast
        (np.array(a_mid), b),  # 0-d with an array
        (np.zeros((0, 3)), b[0]),  # empty
        _pair(first, second),
        (np.array(first, np.float32), np.array(second, np.float32)),
        (np.array(int_a, np.int32), np.array(int_b, np.int32)),
        (np.array(int_a, np.int64), b[0]),
        (a_mid, b.astype(np.float32)),  # weak scalar with an array
        (a.astype(np.float32), b_mid),
        (a_mid, b_mid),
        (np.array([True, False]), np.array([True, True])),
    ):
        if name == "polygamma":
            args = (_whole(args[0]), args[1])
        yield Case(f"scipy.special.{name}", args)
    if name == "polygamma":  # JAX refuses a float order n for values it cannot check
        yield Case("scipy.special.polygamma", (np.array([1.0, 2.0]), np.array([1.5, 2.0])))
    if name == "zeta":  # JAX has no Riemann zeta (q None)
        yield Case("scipy.special.zeta", (np.array([2.0, 3.0]),))
    if name == "comb":
        yield Case("scipy.special.comb", (a, b), {"repetition": True})
        yield Case(
            "scipy.special.comb", (np.array([5, 3, 0]), np.array([2, 4, 0])), {"repetition": True}
        )


def _betainc(rng: np.random.Generator) -> Iterator[Case]:
    a, b = rng.uniform(0.2, 8.0, (2, 2, 3))
    x = rng.uniform(0.0, 1.0, (2, 3))
    name = "scipy.special.betainc"
    yield Case(name, (a, b, x))  # JAX differentiates in x only (refuses a, b)
    yield Case(name, (2.5, 0.5, x))
    yield Case(name, (2.5, 0.5, x.astype(np.float32)))
    yield Case(name, (a.astype(np.float32), b.astype(np.float32), x.astype(np.float32)))
    yield Case(name, (a[0], 3.0, x))  # broadcasting
    yield Case(name, (1.5, 0.5, np.array(0.25)))
    yield Case(name, (1.5, 0.5, np.zeros((0, 3))))
    special = np.array([0.0, 1.0, 0.5, -0.5, 1.5, NAN, INF, 1e-300, 1 - 1e-12])
    yield Case(name, (2.0, 3.0, special))
    yield Case(name, (np.array([0.0, -1.0, INF, NAN, 1.0]), 2.0, np.full(5, 0.5)))
    yield Case(name, (np.array([1, 2, 5]), np.array([3, 1, 2]), np.array([0.2, 0.5, 0.9])))
    yield Case(name, (np.array([1, 2, 5]), np.array([3, 1, 2]), np.array([0, 1, 1])))
    yield Case(name, (200.0, 300.0, np.array([0.35, 0.4, 0.45])))


def _multigammaln(rng: np.random.Generator) -> Iterator[Case]:
    name = "scipy.special.multigammaln"
    for d, low in MULTIGAMMALN:
        a = low + rng.uniform(0.0, 5.0, (2, 3))
        yield Case(name, (a, Static(d)))
        yield Case(name, (a.astype(np.float32), Static(d)))
    yield Case(name, (np.array(3.5), Static(2)))
    yield Case(name, (np.zeros((0,)), Static(2)))
    yield Case(name, (np.array([2, 5]), Static(3)))
    yield Case(name, (4.5, Static(2)))
    yield Case(name, (np.array([0.2, 0.5, INF, NAN]), Static(2)))  # below the domain: NaN/inf


def _reductions(rng: np.random.Generator) -> Iterator[Case]:
    base = rng.uniform(-3.0, 3.0, (3, 4))
    arrays = [
        base,
        base.astype(np.float32),
        np.array([[1, -2, 3], [4, 0, -6]], np.int32),
        np.array([[1.0, -INF], [-INF, -INF]]),  # a row of -inf
        np.array([[1000.0, 999.0], [-1000.0, 1.0]]),  # no overflow
        np.array([[1.0, NAN], [INF, 2.0]]),
    ]
    for name in REDUCTIONS:
        full = f"scipy.special.{name}"
        for x in arrays:
            for keywords in ({}, {"axis": 0}, {"axis": -1}):
                yield Case(full, (x,), keywords)
        yield Case(full, (rng.uniform(-2.0, 2.0, (2, 3, 2)),), {"axis": [0, 2]})
        yield Case(full, (np.array(1.5),))
        yield Case(full, (np.zeros((0, 3)),), {"axis": 1})
        yield Case(full, (np.array([True, False]),))
        yield Case(full, (2.5,))
    name = "scipy.special.logsumexp"
    yield Case(name, (base,), {"axis": 1, "keepdims": True})
    yield Case(name, (np.zeros((0, 3)),), {"axis": 0})
    weights = rng.uniform(0.5, 2.0, (3, 4))
    yield Case(name, (base, Static(1), weights))  # b, positionally (it is an array)
    yield Case(name, (base, Static(None), weights))
    signed = np.where(np.arange(12).reshape(3, 4) % 3 == 0, -weights, weights)
    yield Case(name, (base, Static(1), signed))  # a negative sum: NaN
    yield Case(name, (base, Static(1), signed), {"return_sign": True})
    yield Case(name, (base, Static(0), np.array([[0.0], [1.0], [2.0]])), {"return_sign": True})
    yield Case(name, (base,), {"axis": 0, "return_sign": True})
    yield Case(name, (base.astype(np.float32), Static(0), weights))
    mask = rng.uniform(size=(3, 4)) > 0.3
    mask[:, 0] = True
    none, false = Static(None), Static(False)
    yield Case(name, (base, Static(1), none, false, false, mask))  # where, positionally
    yield Case(name, (base, none, none, false, false, mask))
    yield Case(name, (base, Static(0), weights, Static(True), false, mask))


def _all() -> Iterator[Case]:
    for name in UNARY:
        yield from _unary(name, np.random.default_rng(len(name)))
    for name in BINARY:
        yield from _binary(name, np.random.default_rng(len(name) + 100))
    yield from _betainc(np.random.default_rng(1))
    yield from _multigammaln(np.random.default_rng(2))
    yield from _reductions(np.random.default_rng(3))
    yield Case("scipy.special.factorial", (np.array([3.0, 4.0]),), {"exact": True})  # refused
    yield Case("scipy.special.log_ndtr", (np.array([-5.0, 0.5]),), {"series_order": 3})


def cases() -> Iterator[Case]:
    """Every case; those with ±inf or NaN among their arguments record values only."""
    for case in _all():
        case.derivatives = case.derivatives and finite(case.args)
        yield case
