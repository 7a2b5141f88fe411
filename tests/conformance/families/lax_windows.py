"""`jax.lax.reduce_window` (sums, maxima, minima, products and a function on pairs) over
strided, padded and dilated windows, 1-D to 4-D, and stax's pooling layers.

The computation is a function, so each is a program: `lax.reduce_window[max]` is
`reduce_window(x, -inf, lax.max, **window)`. Ties decide where a max-pool's derivative goes,
and uniform tangents cannot show it: the `[tagged]` programs give every element its own
derivative weight (1, 2, 3, ... in row-major order) while keeping its value, so the recorded
JVP and VJP name the element each window chose. Cases whose derivative JAX does not have (a
general computation's VJP, a window-dilated max-pool's VJP) record values only."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import numpy as np

from ..spec import Case, program

INF = np.inf


def _computation(root, kind):
    return {
        "sum": (0.0, root.lax.add),
        "max": (-INF, root.lax.max),
        "min": (INF, root.lax.min),
        "prod": (1.0, root.lax.mul),
        "max5": (5.0, root.lax.max),  # not max's identity: a fold in both
    }[kind]


def _tagged(lax, x):
    """x with derivative weight 1, 2, 3, ... per element (row-major), the same value."""
    index = 0
    size = 1
    for axis in reversed(range(x.ndim)):
        index = index + lax.broadcasted_iota(x.dtype, x.shape, axis) * size
        size *= x.shape[axis]
    fixed = lax.stop_gradient(x)
    return fixed + (x - fixed) * (index + 1)


for _kind in ("sum", "max", "min", "prod", "max5"):

    @program(f"lax.reduce_window[{_kind}]")
    def _plain(root, kind=_kind):
        init, computation = _computation(root, kind)
        return lambda x, **kw: root.lax.reduce_window(x, init, computation, **kw)

    @program(f"lax.reduce_window[{_kind}, tagged]")
    def _weighted(root, kind=_kind):
        init, computation = _computation(root, kind)
        return lambda x, **kw: root.lax.reduce_window(_tagged(root.lax, x), init, computation, **kw)


@program("lax.reduce_window[pair]")
def _pair(root):
    def both(a, b):
        return (root.lax.add(a[0], b[0]), root.lax.max(a[1], b[1]))

    return lambda x, y, **kw: root.lax.reduce_window((x, y), (0.0, -INF), both, **kw)


for _layer in ("MaxPool", "SumPool", "AvgPool"):

    @program(f"stax.{_layer}[apply]")
    def _pool(root, layer=_layer):
        stax = importlib.import_module(f"{root.__name__}.example_libraries.stax")
        return lambda x, **kw: getattr(stax, layer)(**kw)[1]((), x)


# window_dimensions, window_strides, padding, base_dilation, window_dilation
WINDOWS = [
    ((3,), (1,), "VALID", None, None),
    ((2,), (2,), "SAME", None, None),
    ((3,), (2,), "SAME_LOWER", None, None),
    ((2,), (1,), ((-1, 2),), None, None),
    ((2,), (3,), ((1, 1),), (2,), None),
    ((2,), (1,), ((0, 1),), None, (2,)),
    ((9,), (1,), "VALID", None, None),  # no window fits
]
WINDOWS_2D = [
    ((2, 2), (2, 2), "VALID", None, None),
    ((3, 2), (1, 2), "SAME", None, None),
    ((2, 3), (2, 1), ((1, 0), (2, 1)), (1, 2), None),
    ((2, 2), (1, 1), ((0, 1), (1, 0)), None, (2, 1)),
]


def _keywords(window) -> dict:
    dims, strides, padding, base, rates = window
    keywords = {"window_dimensions": dims, "window_strides": strides, "padding": padding}
    if base is not None:
        keywords["base_dilation"] = base
    if rates is not None:
        keywords["window_dilation"] = rates
    return keywords


def _smooth(window, kind: str) -> bool:
    """Whether JAX records the case's derivatives: not a fold's (its VJP fails), nor a
    max-pool's with window dilation or negative padding (JAX has no VJP for them)."""
    if kind == "sum":
        return True
    cropped = not isinstance(window[2], str) and min(min(pair) for pair in window[2]) < 0
    return kind in ("max", "min") and window[4] is None and not cropped


def _monoids(rng: np.random.Generator) -> Iterator[Case]:
    x1 = rng.uniform(-2.0, 2.0, 7)
    x2 = rng.uniform(-2.0, 2.0, (5, 6))
    for kind in ("sum", "max", "min"):
        for window in WINDOWS:
            yield Case(
                f"lax.reduce_window[{kind}]",
                (x1,),
                _keywords(window),
                derivatives=_smooth(window, kind),
            )
        for window in WINDOWS_2D:
            yield Case(
                f"lax.reduce_window[{kind}]",
                (x2,),
                _keywords(window),
                derivatives=_smooth(window, kind),
            )
        nchw = rng.uniform(-2.0, 2.0, (2, 3, 6, 6))
        pool = {
            "window_dimensions": (1, 1, 2, 2),
            "window_strides": (1, 1, 2, 2),
            "padding": "VALID",
        }
        yield Case(f"lax.reduce_window[{kind}]", (nchw,), pool)
        same = {
            "window_dimensions": (1, 3, 3, 1),
            "window_strides": (1, 2, 1, 1),
            "padding": "SAME",
        }
        yield Case(f"lax.reduce_window[{kind}]", (nchw,), same)
        cube = rng.uniform(-2.0, 2.0, (3, 4, 5))
        dilated = {
            "window_dimensions": (1, 2, 3),
            "window_strides": (1, 2, 1),
            "padding": ((0, 0), (1, 1), (0, 2)),
            "base_dilation": (2, 1, 1),
        }
        yield Case(f"lax.reduce_window[{kind}]", (cube,), dilated)
        for dtype in (np.float32, np.int32, np.uint8, np.int64):
            ints = rng.integers(0, 9, (4, 5)).astype(dtype)
            yield Case(f"lax.reduce_window[{kind}]", (ints,), _keywords(WINDOWS_2D[1]))
        yield Case(f"lax.reduce_window[{kind}]", (np.zeros((0, 4)),), _keywords(WINDOWS_2D[0]))
        yield Case(
            f"lax.reduce_window[{kind}]",
            (np.array(2.5),),
            {"window_dimensions": ()},
            derivatives=kind == "sum",
        )  # (XLA aborts on a 0-d max-pool's derivative)
        specials = np.array([1.0, np.nan, 3.0, -INF, INF, -0.0, 0.0])
        yield Case(f"lax.reduce_window[{kind}]", (specials,), _keywords(WINDOWS[1]))


def _ties(rng: np.random.Generator) -> Iterator[Case]:
    """Equal values in a window: the derivative goes to the first (row-major), in both modes;
    a window of -inf only: the JVP gives 0, the VJP the first element."""
    arrays = [
        np.array([1.0, 1.0, 1.0, 2.0, 2.0, 0.0]),
        np.array([-INF, -INF, 3.0, 3.0]),
        np.array([1.0, np.nan, 3.0, 0.0, np.nan]),
    ]
    grid = rng.integers(-2, 3, (5, 6)).astype(np.float64)  # many ties
    for kind in ("max", "min"):
        for x in arrays:
            for window in WINDOWS[:5]:
                name = f"lax.reduce_window[{kind}, tagged]"
                yield Case(name, (x,), _keywords(window), derivatives=_smooth(window, kind))
        for window in WINDOWS[:5]:  # (tagging turns -inf into NaN: untagged)
            yield Case(
                f"lax.reduce_window[{kind}]",
                (np.array([-INF, -INF, 3.0, 3.0]) * (1 if kind == "max" else -1),),
                _keywords(window),
                derivatives=_smooth(window, kind),
            )
        for window in WINDOWS_2D[:3]:
            yield Case(f"lax.reduce_window[{kind}, tagged]", (grid,), _keywords(window))
        yield Case(
            f"lax.reduce_window[{kind}, tagged]", (np.ones((2, 2)),), _keywords(WINDOWS_2D[0])
        )
    yield Case("lax.reduce_window[sum, tagged]", (grid,), _keywords(WINDOWS_2D[2]))


def _folds(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(0.5, 1.5, (5, 6))
    for kind in ("prod", "max5"):
        for window in WINDOWS_2D:
            yield Case(f"lax.reduce_window[{kind}]", (x,), _keywords(window), derivatives=False)
    y = rng.uniform(-1.0, 1.0, (5, 6))
    yield Case("lax.reduce_window[pair]", (x, y), _keywords(WINDOWS_2D[1]), derivatives=False)


def _refused(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(-1.0, 1.0, (3, 4))
    bad = [
        {"window_dimensions": (2,)},
        {"window_dimensions": (2, 2), "window_strides": (1,)},
        {"window_dimensions": (0, 2)},
        {"window_dimensions": (2, 2), "window_strides": (1, 0)},
        {"window_dimensions": (2, 2), "padding": "FULL"},
        {"window_dimensions": (2, 2), "base_dilation": (0, 1)},
    ]
    for keywords in bad:
        yield Case("lax.reduce_window[sum]", (x,), keywords)
    yield Case("lax.reduce_window[prod]", (x.astype(np.float32),), {"window_dimensions": (2, 2)})
    yield Case("lax.reduce_window[sum]", (x > 0,), {"window_dimensions": (2, 2)})


def _stax(rng: np.random.Generator) -> Iterator[Case]:
    nhwc = rng.uniform(-2.0, 2.0, (2, 5, 6, 3))
    for layer in ("MaxPool", "SumPool", "AvgPool"):
        for keywords in (
            {"window_shape": (2, 2)},
            {"window_shape": (2, 2), "strides": (2, 2)},
            {"window_shape": (3, 3), "strides": (2, 1), "padding": "SAME"},
            {"window_shape": (2, 3), "padding": "SAME", "spec": "NCHW"},
        ):
            yield Case(f"stax.{layer}[apply]", (nhwc,), keywords)


def cases() -> Iterator[Case]:
    rng = np.random.default_rng(31)
    yield from _monoids(rng)
    yield from _ties(rng)
    yield from _folds(rng)
    yield from _refused(rng)
    yield from _stax(rng)
