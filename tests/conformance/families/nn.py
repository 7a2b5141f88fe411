"""`jax.nn`'s activations and normalisers that tf8.nn shares, at their kinks (0, ±1, ±3, 6),
far out (±1000, no overflow), and at ±inf and NaN, with their keyword variants; and
`jax.nn.initializers`, each built (`normal(stddev=0.5)`) then called on a raw uint32[2] key,
as programs (tf8's random draws are meant to equal JAX's bit for bit)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..spec import Case, Static, program
from ._values import finite

NAN, INF = np.nan, np.inf

ACTIVATIONS = [
    "celu", "elu", "gelu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "leaky_relu", "log_sigmoid", "relu", "relu6", "selu", "sigmoid", "silu", "soft_sign",
    "softplus", "swish",
]  # fmt: skip
KINKS = [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 6.0, -6.0, 1000.0, -1000.0]  # derivatives too
NONFINITE = [INF, -INF, NAN]  # values only: no derivative is defined there
# an activation's keyword variants, each as static keywords and as traced arguments
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "gelu": [{"approximate": False}, {"approximate": True}],
    "leaky_relu": [{"negative_slope": 0.2}, {"negative_slope": -1.5}],
    "elu": [{"alpha": 0.5}, {"alpha": 2.0}],
    "celu": [{"alpha": 0.5}, {"alpha": 2.0}],
}


def _activation(name: str, rng: np.random.Generator) -> Iterator[Case]:
    full = f"nn.{name}"
    x = rng.uniform(-8.0, 8.0, (2, 3))
    for args in (
        (x,),
        (x.astype(np.float32),),
        (x.astype(np.float16),),
        (np.array(KINKS),),
        (np.array(KINKS, np.float32),),
        (np.array(NONFINITE),),
        (np.array(-0.7),),  # 0-d
        (np.zeros((0,)),),  # empty
        (np.zeros((2, 0), np.float32),),
        (np.array([-7, -1, 0, 2, 9], np.int32),),
        (np.array([True, False]),),
        (0.75,),  # weak Python scalars
        (-2,),
        (np.array([0.5 + 0.5j, -1.0 - 0.25j]),),
    ):
        yield Case(full, args, derivatives=finite(args))
    for keywords in VARIANTS.get(name, []):
        yield Case(full, (x,), keywords)
        yield Case(full, (np.array(KINKS + NONFINITE, np.float32),), keywords, derivatives=False)
        if name != "gelu":  # the parameter traced: weak, then an array
            (value,) = keywords.values()
            yield Case(full, (x.astype(np.float32), value))
            yield Case(full, (x, np.full(3, value)))


def _normalisers(rng: np.random.Generator) -> Iterator[Case]:
    base = rng.uniform(-3.0, 3.0, (3, 4))
    mask = rng.uniform(size=(3, 4)) > 0.3
    mask[:, 0] = True
    rows = [
        base,
        base.astype(np.float32),
        np.array([[1, -2, 3], [4, 0, -6]], np.int32),
        np.array([[1.0, -INF], [-INF, -INF]]),  # a row of -inf
        np.array([[1000.0, 999.0], [-1000.0, 1.0]]),
        np.array([[1.0, NAN], [INF, 2.0]]),
    ]
    for name in ("softmax", "log_softmax"):
        full = f"nn.{name}"
        for x in rows:
            for keywords in ({}, {"axis": 0}):
                yield Case(full, (x,), keywords, derivatives=finite((x,)))
        yield Case(full, (rng.uniform(-2.0, 2.0, (2, 3, 2)),), {"axis": [0, 2]})
        yield Case(full, (rng.uniform(-2.0, 2.0, (2, 3)),), {"axis": None})
        yield Case(full, (np.array(1.5),), {"axis": None})
        yield Case(full, (np.zeros((0, 3)),))
        yield Case(full, (2.5,), {"axis": None})
        yield Case(full, (base, Static(-1), mask))  # where, positionally
        yield Case(full, (base, Static(0), mask[:, :1]))  # a broadcast mask
        yield Case(full, (base.astype(np.float32), Static(1), np.zeros((3, 4), bool)))
    full = "nn.logsumexp"
    yield Case(full, (base,))
    yield Case(full, (base,), {"axis": 1, "keepdims": True})
    yield Case(full, (base.astype(np.float32),), {"axis": 0})
    yield Case(full, (base, Static(1), rng.uniform(-1.0, 2.0, (3, 4))), {"return_sign": True})
    yield Case(full, (base, Static(0), Static(None), Static(False), Static(False), mask))
    yield Case(full, (np.array([[1.0, -INF], [-INF, -INF]]),), {"axis": 1}, derivatives=False)

    full = "nn.standardize"
    yield Case(full, (base,))
    yield Case(full, (base,), {"axis": 0})
    yield Case(full, (base,), {"axis": [0, 1], "epsilon": 0.0})
    yield Case(full, (base.astype(np.float32),), {"epsilon": 0.1})
    yield Case(full, (np.array([[1, 2, 3], [4, 4, 4]]),))  # ints; a constant row
    yield Case(full, (base, Static(-1), np.full((3, 1), 0.5), np.full((3, 1), 2.0)))
    yield Case(full, (base, Static(-1), Static(None), np.full((3, 1), 2.0)))
    yield Case(full, (base, Static(-1), Static(None), Static(None), Static(1e-5), mask))
    yield Case(full, (np.zeros((2, 0)),), {"axis": 0})
    yield Case(full, (np.array([[1.0, INF], [NAN, 2.0]]),), derivatives=False)

    full = "nn.glu"
    yield Case(full, (base,))
    yield Case(full, (base.astype(np.float32),), {"axis": 1})
    yield Case(full, (rng.uniform(-3.0, 3.0, (4, 3)),), {"axis": 0})
    yield Case(full, (np.array([[1, 2], [3, -4]]),))
    yield Case(full, (np.array(KINKS[:10] + [INF, NAN]).reshape(2, 6),), derivatives=False)
    yield Case(full, (np.zeros((3, 0)),))
    yield Case(full, (rng.uniform(-3.0, 3.0, (4, 3)),))  # refused: an odd axis

    full = "nn.one_hot"  # integers in, so no derivatives
    labels = np.array([0, 2, 1, 5, -1])
    for args, keywords in (
        ((labels, Static(3)), {}),
        ((labels,), {"num_classes": 4}),
        ((labels, Static(3)), {"dtype": "float32"}),
        ((labels, Static(3)), {"dtype": "int32"}),
        ((labels, Static(3)), {"dtype": "bool"}),
        ((labels.reshape(1, 5), Static(3)), {"axis": 0}),
        ((np.array([[0, 1], [2, 3]], np.int32), Static(4)), {"axis": 1}),
        ((np.array([0.0, 1.5, 2.0, NAN]), Static(3)), {}),
        ((np.array(2), Static(3)), {}),
        ((np.zeros((0,), np.int64), Static(3)), {}),
        ((1, Static(3)), {}),
        ((labels, Static(3)), {"axis": 2}),  # refused: out of range
    ):
        yield Case(full, args, keywords, derivatives=False)


# initializer builder -> the keyword sets it is built with (a case each), in JAX's names
BUILDERS: dict[str, list[dict[str, Any]]] = {
    "constant": [{"value": 0.5}, {"value": -2}],
    "normal": [{}, {"stddev": 0.5}],
    "uniform": [{}, {"scale": 2.0}],
    "truncated_normal": [{}, {"stddev": 1.5}, {"stddev": 1.0, "lower": -0.5, "upper": 1.0}],
    "variance_scaling": [
        {"scale": 1.0, "mode": mode, "distribution": distribution}
        for mode in ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
        for distribution in ("truncated_normal", "normal", "uniform")
    ]
    + [
        {"scale": 2.0, "mode": "fan_in", "distribution": "normal", "in_axis": 0, "out_axis": 1},
        {"scale": 1.0, "mode": "fan_avg", "distribution": "uniform", "batch_axis": 0},
        {"scale": 1.0, "mode": "fan_in", "distribution": "normal", "in_axis": [0, 1]},
        {"scale": 1.0, "mode": "fan_max", "distribution": "normal"},  # refused
        {"scale": 1.0, "mode": "fan_in", "distribution": "cauchy"},  # refused
    ],
    "glorot_normal": [{}, {"in_axis": 0, "out_axis": -1}],
    "glorot_uniform": [{}],
    "xavier_normal": [{}],
    "xavier_uniform": [{}, {"batch_axis": 0}],
    "he_normal": [{}],
    "he_uniform": [{}],
    "kaiming_normal": [{}],
    "kaiming_uniform": [{}],
    "lecun_normal": [{}, {"in_axis": [0, 1]}],
    "lecun_uniform": [{}],
    "orthogonal": [{}, {"scale": 2.0}, {"column_axis": 0}],
    "delta_orthogonal": [{}, {"scale": 0.5}],
}
SHAPES = [(3, 4), (2, 3, 5)]  # a dense layer's weights, a 1-d convolution's kernel
CONVOLUTIONS = [(3, 4, 4), (3, 3, 2, 5)]  # delta_orthogonal's kernels


def _built(builder: str) -> Callable[[Any], Callable]:
    def build(root: Any) -> Callable:
        make = getattr(root.nn.initializers, builder)

        def init(key: Any, shape: tuple, dtype: str, **keywords: Any) -> Any:
            return make(**keywords)(key, shape, dtype)

        return init

    return build


for _builder in BUILDERS:
    program(f"nn.initializers.{_builder}(...)")(_built(_builder))


def _key(seed: int) -> np.ndarray:
    return np.array([0, seed], np.uint32)


def _initializers() -> Iterator[Case]:
    for name in ("zeros", "ones"):
        for shape, dtype in (((3, 4), "float32"), ((2, 0), "float64"), ((), "int32")):
            yield Case(f"nn.initializers.{name}", (_key(1), Static(shape), Static(dtype)))
    seed = 0
    for builder, variants in BUILDERS.items():
        name = f"nn.initializers.{builder}(...)"
        shapes = CONVOLUTIONS if builder == "delta_orthogonal" else SHAPES
        for keywords in variants:
            for shape in shapes:
                for dtype in ("float32", "float64"):
                    seed += 1
                    args = (_key(seed), Static(shape), Static(dtype))
                    yield Case(name, args, keywords, derivatives=False)
        key = _key(seed)
        if builder in ("normal", "uniform", "variance_scaling", "orthogonal"):
            yield Case(name, (key, Static((2, 2)), Static("complex64")), variants[0])
        if builder not in ("constant", "normal", "uniform", "truncated_normal"):
            yield Case(name, (key, Static((5,)), Static("float32")), variants[0])  # refused
        yield Case(name, (key, Static((0, 3)), Static("float32")), variants[0])
    program_name = "nn.initializers.delta_orthogonal(...)"
    yield Case(program_name, (_key(3), Static((3, 5, 4)), Static("float32")))  # refused


def cases() -> Iterator[Case]:
    for name in ACTIVATIONS:
        yield from _activation(name, np.random.default_rng(len(name)))
    yield from _normalisers(np.random.default_rng(7))
    yield from _initializers()
