"""`jax.numpy`'s statistics (quantiles, histograms, interpolation, differences), comparisons of
whole arrays, `clip`, and the functions of shapes and dtypes.

What returns no array (a shape, a dtype, a bool) is recorded through `numpy.<name>[array]`,
which turns it into one in either library: a dtype as `zeros((), dtype)`, a shape as an int64
array."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..grids import ARRAY_DTYPES, SCALARS, dtype_pairs
from ..spec import Case, Static, function, program
from .numpy_arrays import ramp

NAMES = [np.dtype(d).name for d in ARRAY_DTYPES]
QUANTILES = ["percentile", "quantile", "nanpercentile", "nanquantile"]


def _as_array(root: Any, name: str, wrap: Any) -> Any:
    fn = function(root, name)
    return lambda *args, **keywords: wrap(root.numpy, fn(*args, **keywords))


def _int64(jnp: Any, value: Any) -> Any:
    return jnp.array(value, dtype=jnp.int64)


def _dtype(jnp: Any, value: Any) -> Any:
    return jnp.zeros((), value)


for _name, _wrap in [
    ("shape", _int64),
    ("ndim", _int64),
    ("size", _int64),
    ("broadcast_shapes", _int64),
    ("promote_types", _dtype),
    ("result_type", _dtype),
    ("can_cast", _int64),
    ("iscomplexobj", _int64),
    ("isrealobj", _int64),
]:

    @program(f"numpy.{_name}[array]")
    def _wrapped(root: Any, name: str = f"numpy.{_name}", wrap: Any = _wrap) -> Any:
        return _as_array(root, name, wrap)


@program("numpy.issubdtype[array]")
def _issubdtype(root: Any) -> Any:
    """Each argument is the name of a dtype or of an abstract dtype (`floating`)."""
    jnp = root.numpy
    return lambda a, b: jnp.array(jnp.issubdtype(getattr(jnp, a), getattr(jnp, b)))


@program("numpy.einsum_path[array]")
def _einsum_path(root: Any) -> Any:
    """The contraction order, flattened, and how many markers it holds (numpy's path starts
    with the string 'einsum_path'); the report beside it is free text."""
    jnp = root.numpy

    def run(*args: Any, **keywords: Any) -> Any:
        path = jnp.einsum_path(*args, **keywords)[0]
        pairs = [k for pair in path if not isinstance(pair, str) for k in pair]
        markers = sum(isinstance(pair, str) for pair in path)
        return jnp.array(pairs, dtype=jnp.int64), jnp.array(markers, dtype=jnp.int64)

    return run


@program("numpy.histogram[weights]")
def _histogram(root: Any) -> Any:
    """`histogram` with weights (its positional order differs from numpy's)."""
    return lambda a, bins, weights, **keywords: root.numpy.histogram(
        a, bins, weights=weights, **keywords
    )


def statistics() -> Iterator[Case]:
    rng = np.random.default_rng(11)
    a = rng.permutation(15).reshape(3, 5) * 0.7 - 4.0  # no ties
    withnan = a.copy()
    withnan[0, 1] = withnan[2, 3] = np.nan
    for name in QUANTILES:
        scale = 100.0 if "percentile" in name else 1.0
        qs = np.array([0.1, 0.3, 0.55, 0.9]) * scale
        for q, keywords in [
            (0.3 * scale, {}),
            (qs, {}),
            (qs, {"axis": 0}),
            (qs[1:3], {"axis": 1, "keepdims": True}),
            (0.55 * scale, {"axis": (0, 1)}),
            (np.array(0.3 * scale, np.float32), {"axis": 1}),
            *(
                (qs[:3], {"axis": 1, "method": m})
                for m in ("lower", "higher", "midpoint", "nearest", "inverted_cdf")
            ),
        ]:
            yield Case(f"numpy.{name}", (a, q), keywords)
        yield Case(f"numpy.{name}", (a, np.array([0.0, 1.0]) * scale), derivatives=False)
        yield Case(f"numpy.{name}", (a.astype(np.float32), qs.astype(np.float32)), {"axis": 1})
        yield Case(f"numpy.{name}", (a.astype(np.int32), qs), {"axis": 0})
        meaningful = name.startswith("nan")  # a derivative through NaN is not
        yield Case(f"numpy.{name}", (withnan, qs), {"axis": 1}, derivatives=meaningful)
        yield Case(f"numpy.{name}", (withnan, 0.3 * scale), derivatives=meaningful)
        yield Case(
            f"numpy.{name}", (np.full((2, 3), np.nan), qs[:2]), {"axis": 1}, derivatives=False
        )
        yield Case(f"numpy.{name}", (a + 1j, qs))  # complex: refused
        yield Case(f"numpy.{name}", (a, qs), {"method": "bogus"})
    x = np.array([0.05, 0.15, 0.2, 0.35, 0.5, 0.55, 0.6, 0.95, 1.0, 0.0, 0.4, 0.41])
    edges = np.array([0.0, 0.2, 0.5, 0.6, 1.0])
    for args, keywords in [
        ((x,), {}),
        ((x,), {"bins": 4}),
        ((x, edges), {}),
        ((x,), {"bins": 3, "range": (0.0, 0.6)}),
        ((x, edges), {"density": True}),
        ((x.astype(np.float32),), {"bins": 3}),
        ((np.array([1, 5, 2, 2, 9], np.int32),), {"bins": 4}),
        ((x, edges[::-1]), {}),
        ((np.array([3.0, 3.0]),), {"bins": 2}),
    ]:
        yield Case("numpy.histogram", args, keywords)
    weights = np.linspace(0.5, 2.0, x.size)
    yield Case("numpy.histogram[weights]", (x, edges, weights))
    yield Case("numpy.histogram[weights]", (x, Static(3), weights), {"density": True})
    counts = np.array([0, 1, 1, 3, 2, 1, 7])
    for args, keywords in [
        ((counts,), {}),
        ((counts,), {"minlength": 10}),
        ((counts, np.linspace(0.5, 2, 7)), {}),
        ((counts,), {"length": 5}),
        ((counts,), {"length": 9, "minlength": 3}),
        ((counts.astype(np.uint8), np.linspace(0.5, 2, 7).astype(np.float32)), {"length": 8}),
        ((np.array([True, False, True]),), {}),
        ((np.zeros((0,), np.int32),), {}),
        ((counts - 2,), {"length": 6}),
        ((counts * 0.5,), {}),
        ((counts.reshape(7, 1),), {}),
        ((counts, np.ones(3)), {}),
    ]:
        # without length=, the length depends on the data: JAX differentiates only with it
        yield Case("numpy.bincount", args, keywords, derivatives="length" in keywords)
    xp, fp = np.array([0.0, 1.0, 2.5, 4.0]), np.array([1.0, -1.0, 0.5, 3.0])
    xs = np.array([-0.5, 0.3, 1.2, 2.0, 3.9, 4.5])
    for args, keywords in [
        ((xs, xp, fp), {}),
        ((xs, xp, fp), {"left": -9.0, "right": 9.0}),
        ((1.7, xp, fp), {}),
        ((xs, xp, fp + 0.5j * fp[::-1]), {}),
        ((xs.astype(np.float32), xp, fp), {}),
        ((xs.astype(np.float32), xp.astype(np.float32), fp.astype(np.float32)), {}),
        ((np.array([1, 3]), np.array([0, 2, 4]), np.array([0, 1, 0])), {}),
        ((xs, xp, fp), {"period": 3.0}),
        ((xs.reshape(2, 3), xp, fp), {}),
        ((xs, xp, fp), {"left": "extrapolate", "right": "extrapolate"}),
        ((xs, xp, fp[:3]), {}),
    ]:
        yield Case("numpy.interp", args, keywords)
    yield Case("numpy.interp", (np.array([np.nan, np.inf]), xp, fp), derivatives=False)
    f = np.array([1.0, 2.0, 4.0, 7.0, 11.0])
    f2 = rng.uniform(-1, 1, (3, 4))
    for args, keywords in [
        ((f,), {}),
        ((f, 0.5), {}),
        ((f, np.array([0.0, 0.5, 1.5, 2.0, 3.5])), {}),
        ((f2,), {}),
        ((f2,), {"axis": 0}),
        ((f2, 2.0, 0.5), {}),
        ((f2,), {"axis": (1,)}),
        ((f.astype(np.float32),), {}),
        ((np.array([1, 4, 9, 16], np.int32),), {}),
        ((np.array([1.0]),), {}),
        ((f2, 1.0, 2.0, 3.0), {}),
    ]:
        yield Case("numpy.gradient", args, keywords)
    for x, keywords in [
        (f, {}),
        (f, {"n": 2}),
        (f, {"n": 0}),
        (f, {"n": 7}),
        (f2, {"axis": 0}),
        (f2, {"prepend": 0.0}),
        (f2, {"append": 1.5, "axis": 0}),
        (f2, {"prepend": 1, "append": 2}),
        (np.array([True, False, False, True]), {}),
        (np.array([1, 0, 5], np.uint8), {}),
        (np.array([3, -1, 4], np.int32), {"n": 2}),
        (f2.astype(np.complex64), {}),
        (f.astype(np.float32), {}),
        (np.array(1.0), {}),
        (f, {"n": -1}),
    ]:
        yield Case("numpy.diff", (x,), keywords)


def comparisons() -> Iterator[Case]:
    x = np.array([1.0, 2.0, np.inf, -np.inf, np.nan, 0.0])
    close = x * (1 + 1e-9)
    for name in ("isclose", "allclose"):
        for a, b, keywords in [
            (x, close, {}),
            (x, close, {"equal_nan": True}),
            (x, x + 1e-3, {}),
            (x, x + 1e-3, {"rtol": 1e-2}),
            (x, x + 1e-3, {"atol": 0.01, "rtol": 0.0}),
            (x.astype(np.float32), close, {}),
            (x, 1.0, {}),
            (np.array([1, 2, 3], np.int32), np.array([1.0, 2.0 + 1e-9, 4.0]), {}),
            (np.array([1, 2], np.int32), np.array([1, 3], np.int32), {}),
            (x[:3] + 1j, close[:3] + 1j, {}),
            (x[:2], x[:2, None], {}),
            (x, x[:2], {}),
            (np.array([True, False]), np.array([True, True]), {}),
        ]:
            yield Case(f"numpy.{name}", (a, b), keywords)
    for name in ("array_equal", "array_equiv"):
        for a, b, keywords in [
            (x, x.copy(), {}),
            (x, x.copy(), {"equal_nan": True}),
            (x[:2], x[:2], {}),
            (x[:2], x[:3], {}),
            (np.array([1, 2], np.int32), np.array([1.0, 2.0]), {}),
            (x[:2], np.tile(x[:2], (3, 1)), {}),
            (np.array(1.0), 1.0, {}),
            (np.zeros((0,)), np.zeros((0, 2)), {}),
            (np.array([1 + 1j]), np.array([1 + 1j], np.complex64), {}),
        ]:
            if not (name == "array_equiv" and keywords):  # JAX's has no equal_nan
                yield Case(f"numpy.{name}", (a, b), keywords)
    for lo, hi in [
        (0.5, 2.5),
        (np.array([0.0, 1.0, 2.0]), 2.5),
        (2.0, 1.0),
        (Static(None), 1.5),
        (0.5, Static(None)),
        (np.array(1.0, np.float32), np.array(2.0, np.float32)),
    ]:
        yield Case("numpy.clip", (ramp((2, 3)) - 0.25, lo, hi))
    for dtype in ARRAY_DTYPES:
        yield Case("numpy.clip", (ramp((2, 3), dtype), 1, 3))
    yield Case("numpy.clip", (np.array([1, 5, -3], np.int32), 0.5, 2.5))
    yield Case("numpy.clip", (np.array([np.nan, -np.inf, 3.0]), -1.0, 1.0))
    yield Case("numpy.clip", (ramp((2, 3)) - 0.25,), {"min": 1.0})
    yield Case("numpy.clip", (ramp((2, 3)) - 0.25,), {"max": 1.0, "min": 0.0})
    yield Case("numpy.clip", (ramp((2, 3)), Static(None), Static(None)))


def metadata() -> Iterator[Case]:
    arrays = [np.array(1.5), ramp((3,)), ramp((2, 0, 3), np.int32), ramp((2, 3), np.complex64)]
    for arg in [*arrays, *SCALARS]:
        for name in ("shape", "ndim", "size", "iscomplexobj", "isrealobj"):
            yield Case(f"numpy.{name}[array]", (arg,), derivatives=False)
    yield Case("numpy.size[array]", (ramp((2, 3)),), {"axis": 1}, derivatives=False)
    for shapes in [((2, 1), (3,)), ((), (4,)), ((1, 0), (5, 1)), ((2,),), ((2,), (3,))]:
        yield Case("numpy.broadcast_shapes[array]", tuple(map(Static, shapes)))
    for a in NAMES:
        for b in NAMES:
            yield Case("numpy.promote_types[array]", (Static(a), Static(b)))
    for a, b in dtype_pairs():
        yield Case("numpy.result_type[array]", (a, b), derivatives=False)
    for args in [
        (1.5,),
        (Static("float32"), 2),
        (np.int32(1) * np.ones(2, np.int32), 1.5, 1j),
        (Static("int32"), Static("uint32")),
        (np.ones(2, np.float16), Static("int64")),
    ]:
        yield Case("numpy.result_type[array]", args, derivatives=False)
    for source, target, casting in [
        ("int32", "float64", "safe"),
        ("float64", "float32", "safe"),
        ("float64", "float32", "same_kind"),
        ("int64", "uint8", "unsafe"),
        ("float32", "int32", "same_kind"),
        ("complex64", "float64", "safe"),
        ("bool", "uint8", "safe"),
        ("uint8", "int32", "safe"),
        ("uint32", "int32", "safe"),
        ("float16", "float16", "no"),
        ("int64", "float64", "safe"),
        ("float32", "float64", "equiv"),
    ]:
        yield Case("numpy.can_cast[array]", (Static(source), Static(target)), {"casting": casting})
    for a, b in [
        ("float32", "floating"),
        ("int32", "signedinteger"),
        ("uint8", "signedinteger"),
        ("uint32", "unsignedinteger"),
        ("complex64", "inexact"),
        ("bool_", "number"),
        ("float16", "number"),
        ("floating", "inexact"),
        ("inexact", "floating"),
        ("int64", "integer"),
        ("complex128", "complexfloating"),
        ("float64", "float64"),
        ("float32", "generic"),
        ("float32", "float64"),
    ]:
        yield Case("numpy.issubdtype[array]", (Static(a), Static(b)))
    rng = np.random.default_rng(3)
    a, b, c = rng.uniform(size=(8, 2)), rng.uniform(size=(2, 9)), rng.uniform(size=(9, 3))
    for subscripts, operands, keywords in [
        ("ij,jk->ik", (a, b), {}),
        ("ij,jk,kl->il", (a, b, c), {}),
        ("ij,jk,kl->il", (a, b, c), {"optimize": "greedy"}),
        ("ij,jk,kl->il", (a, b, c), {"optimize": "optimal"}),
        ("ij,jk,kl,lm->im", (a, b, c, c.T), {}),
    ]:
        yield Case(
            "numpy.einsum_path[array]", (Static(subscripts), *operands), keywords, derivatives=False
        )


def cases() -> Iterator[Case]:
    yield from statistics()
    yield from comparisons()
    yield from metadata()
