"""Every tf8.numpy function against numpy on random inputs (hypothesis, the "ci" profile).

Each case is written once as `fn(xp, *arrays)`: it runs with `xp=numpy` on numpy arrays and
with `xp=tf8.numpy` on `tf8.tensor` leaves; shapes, dtypes and values must agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp
from tf8.ops.dtypes import canonical_dtype

Case = Callable[..., Any]


def compare(got: Any, expected: Any, rtol: float = 1e-7, atol: float = 1e-12) -> None:
    """Same structure, shape, dtype and values (NaNs equal)."""
    if isinstance(expected, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(expected)
        for g, e in zip(got, expected):
            compare(g, e, rtol, atol)
        return
    exp = np.asarray(expected)
    out = np.asarray(got)
    assert out.shape == exp.shape, (out.shape, exp.shape)
    # tf8 has ten dtypes: numpy's int8/int16/uint16 results widen as tf8 canonicalises; and
    # it promotes on JAX's lattice (int32 with float32 is float32, numpy's float64): numpy's
    # kind here, the exact dtype against JAX's in tests/conformance.
    assert out.dtype.kind == canonical_dtype(exp.dtype).kind, (out.dtype, exp.dtype)
    if out.dtype.itemsize < exp.dtype.itemsize and out.dtype.kind in "fc":
        exp = exp.astype(out.dtype)
        rtol, atol = max(rtol, 2e-6), max(atol, 1e-6)
    if exp.dtype.kind in "biu":
        np.testing.assert_array_equal(out, exp)
    else:
        np.testing.assert_allclose(out, exp, rtol=rtol, atol=atol, equal_nan=True)


def check(fn: Case, *arrays: np.ndarray, rtol: float = 1e-7, atol: float = 1e-12) -> None:
    expected = fn(np, *arrays)
    got = fn(tnp, *[tf8.tensor(a) for a in arrays])
    compare(got, expected, rtol, atol)


# --- random inputs ------------------------------------------------------------------------

KINDS: dict[str, Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]] = {
    "f": lambda r, s: r.normal(size=s) * 2,
    "f32": lambda r, s: (r.normal(size=s) * 2).astype(np.float32),
    "pos": lambda r, s: r.uniform(0.1, 3.0, size=s),
    "unit": lambda r, s: r.uniform(-0.95, 0.95, size=s),
    "big": lambda r, s: r.uniform(1.05, 5.0, size=s),
    "i": lambda r, s: r.integers(-5, 6, size=s),
    "i32": lambda r, s: r.integers(-5, 6, size=s).astype(np.int32),
    "b": lambda r, s: r.random(size=s) < 0.5,
    "c": lambda r, s: r.normal(size=s) + 1j * r.normal(size=s),
}

seeds = st.integers(0, 2**32 - 1)
dims = st.integers(1, 4)


def draw(kind: str, seed: int, shape: tuple[int, ...]) -> np.ndarray:
    return np.asarray(KINDS[kind](np.random.default_rng(seed), shape))


# --- elementwise: unary ---------------------------------------------------------------------

UNARY: dict[str, tuple[Case, tuple[str, ...]]] = {
    "exp": (lambda xp, a: xp.exp(a), ("f", "f32", "i", "c")),
    "expm1": (lambda xp, a: xp.expm1(a), ("f",)),
    "log": (lambda xp, a: xp.log(a), ("pos",)),
    "log1p": (lambda xp, a: xp.log1p(a), ("pos",)),
    "log2": (lambda xp, a: xp.log2(a), ("pos",)),
    "log10": (lambda xp, a: xp.log10(a), ("pos",)),
    "exp2": (lambda xp, a: xp.exp2(a), ("f", "i")),
    "sqrt": (lambda xp, a: xp.sqrt(a), ("pos", "c")),
    "cbrt": (lambda xp, a: xp.cbrt(a), ("f", "i")),
    "trig": (lambda xp, a: (xp.sin(a), xp.cos(a), xp.tan(a)), ("f", "f32")),
    "hyperbolic": (lambda xp, a: (xp.sinh(a), xp.cosh(a), xp.tanh(a)), ("f",)),
    "inverse trig": (lambda xp, a: (xp.arcsin(a), xp.arccos(a), xp.arctan(a)), ("unit",)),
    "arcsinh": (lambda xp, a: xp.arcsinh(a), ("f",)),
    "arccosh": (lambda xp, a: xp.arccosh(a), ("big",)),
    "arctanh": (lambda xp, a: xp.arctanh(a), ("unit",)),
    "deg2rad": (lambda xp, a: (xp.deg2rad(a), xp.rad2deg(a), xp.radians(a)), ("f", "f32")),
    "sinc": (lambda xp, a: xp.sinc(a), ("f",)),
    "abs": (lambda xp, a: (xp.abs(a), xp.absolute(a)), ("f", "i", "b", "c")),
    "fabs": (lambda xp, a: xp.fabs(a), ("f", "i")),
    "sign": (lambda xp, a: xp.sign(a), ("f", "i", "c")),
    "rounding": (lambda xp, a: (xp.floor(a), xp.ceil(a), xp.trunc(a), xp.fix(a)), ("f", "i")),
    "rint": (lambda xp, a: (xp.rint(a), xp.round(a), xp.around(a, 2)), ("f",)),
    "round ints": (lambda xp, a: xp.round(a * 37, -1), ("i",)),
    "square": (lambda xp, a: xp.square(a), ("f", "i", "b")),
    "reciprocal": (lambda xp, a: xp.reciprocal(a), ("pos",)),
    "negative": (lambda xp, a: (xp.negative(a), xp.positive(a)), ("f", "i")),
    "complex parts": (lambda xp, a: (xp.real(a), xp.imag(a), xp.conj(a), xp.angle(a)), ("c", "f")),
    "angle deg": (lambda xp, a: xp.angle(a, deg=True), ("c",)),
    "predicates": (lambda xp, a: (xp.isnan(a), xp.isinf(a), xp.isfinite(a)), ("f", "i", "c")),
    "signbit": (lambda xp, a: (xp.signbit(a), xp.copysign(2.0, a)), ("f",)),
    "logical_not": (lambda xp, a: (xp.logical_not(a), xp.invert(a)), ("b", "i")),
    "nan_to_num": (lambda xp, a: xp.nan_to_num(xp.log(a)), ("f",)),
    "real_if_close": (lambda xp, a: xp.real_if_close(a + 0j), ("f",)),
    "astype": (lambda xp, a: (a.astype(xp.float32), a.astype(xp.int64)), ("f",)),
    "nonfinite": (lambda xp, a: xp.isinf(a / 0.0), ("f",)),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(UNARY))
@given(seed=seeds, shape=st.lists(dims, max_size=3).map(tuple))
def test_unary(name: str, seed: int, shape: tuple[int, ...]) -> None:
    fn, kinds = UNARY[name]
    for kind in kinds:
        rtol = 2e-5 if kind == "f32" else 1e-7
        check(fn, draw(kind, seed, shape), rtol=rtol, atol=1e-6 if kind == "f32" else 1e-12)


# --- elementwise: binary with broadcasting ---------------------------------------------------

BINARY: dict[str, tuple[Case, str, str]] = {
    "arithmetic": (lambda xp, a, b: (a + b, a - b, a * b, a / b, xp.add(a, b)), "f", "f"),
    "int arithmetic": (lambda xp, a, b: (a + b, a * b, xp.subtract(a, b), a // 3, a % 4), "i", "i"),
    "mixed dtypes": (lambda xp, a, b: (a + b, a * b, xp.maximum(a, b)), "i32", "f32"),
    "division": (
        lambda xp, a, b: (xp.floor_divide(a, b), xp.remainder(a, b), xp.mod(a, b)),
        "f",
        "pos",
    ),
    "power": (lambda xp, a, b: (xp.power(a, b), a**b, xp.float_power(a, b)), "pos", "f"),
    "extrema": (
        lambda xp, a, b: (xp.maximum(a, b), xp.minimum(a, b), xp.fmax(a, b), xp.fmin(a, b)),
        "f",
        "f",
    ),
    "bool extrema": (lambda xp, a, b: (xp.maximum(a, b), xp.minimum(a, b), a & b, a | b), "b", "b"),
    "arctan2": (lambda xp, a, b: (xp.arctan2(a, b), xp.hypot(a, b)), "f", "f"),
    "logaddexp": (lambda xp, a, b: (xp.logaddexp(a, b), xp.logaddexp2(a, b)), "f", "f"),
    "heaviside": (lambda xp, a, b: xp.heaviside(xp.round(a), b), "f", "f"),
    "compare": (lambda xp, a, b: (a < b, a <= b, a > b, a >= b, a == b, a != b), "f", "f"),
    "logical": (
        lambda xp, a, b: (xp.logical_and(a, b), xp.logical_or(a, b), xp.logical_xor(a, b)),
        "i",
        "b",
    ),
    "bitwise": (lambda xp, a, b: (a & b, a | b, a ^ b, ~a), "i", "i"),
    "where": (lambda xp, a, b: (xp.where(a > 0, a, b), xp.where(a > 0, a, 0)), "f", "f"),
    "isclose": (lambda xp, a, b: (xp.isclose(a, a + b * 1e-9), xp.allclose(a, a)), "f", "f"),
    "divmod": (lambda xp, a, b: xp.divmod(a, b), "f", "pos"),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(BINARY))
@given(
    seed=seeds,
    shapes=st.sampled_from(
        [((), ()), ((3,), ()), ((2, 3), (3,)), ((2, 1), (1, 4)), ((4,), (4,)), ((2, 1, 3), (2, 3))]
    ),
)
def test_binary_broadcasting(name: str, seed: int, shapes: tuple) -> None:
    fn, ka, kb = BINARY[name]
    a, b = draw(ka, seed, shapes[0]), draw(kb, seed + 1, shapes[1])
    check(fn, a, b, rtol=2e-6 if "f32" in (ka, kb) else 1e-7)


@pytest.mark.parametrize(
    "scalar", [2, 2.5, True, 1 + 2j, np.float32(2), np.int32(3), np.float64(0.5)], ids=repr
)
@pytest.mark.parametrize("kind", ["f", "f32", "i", "i32", "b"])
def test_scalar_promotion_follows_numpy_2(scalar: Any, kind: str) -> None:
    a = draw(kind, 0, (3,))
    fn = (
        (lambda xp, a: (a + scalar, scalar * a, xp.multiply(a, scalar)))
        if kind != "b"
        else (lambda xp, a: (a * scalar, xp.add(a, scalar)))
    )
    try:
        expected = fn(np, a)
    except (TypeError, OverflowError):
        return  # numpy refuses (e.g. bool + complex is fine, but some mixes are not)
    compare(fn(tnp, tf8.tensor(a)), expected)


@pytest.mark.parametrize("exponent", [2, 2.0, 3, 3.0], ids=repr)
@pytest.mark.parametrize("kind", ["f", "f32", "i", "i32", "b", "c"])
def test_power_by_a_python_scalar_promotes_as_numpy(exponent: Any, kind: str) -> None:
    # x ** 2 takes a multiply fast path; an integer x ** 2.0 must still come out float.
    a = draw(kind, 0, (3,))
    fn = lambda xp, a: (a**exponent, xp.power(a, exponent))  # noqa: E731
    compare(fn(tnp, tf8.tensor(a)), fn(np, a))


# --- reductions --------------------------------------------------------------------------------

REDUCTIONS: dict[str, Case] = {
    "sum": lambda xp, a, axis, k: xp.sum(a, axis=axis, keepdims=k),
    "prod": lambda xp, a, axis, k: xp.prod(a, axis=axis, keepdims=k),
    "mean": lambda xp, a, axis, k: xp.mean(a, axis=axis, keepdims=k),
    "var": lambda xp, a, axis, k: xp.var(a, axis=axis, keepdims=k),
    "std": lambda xp, a, axis, k: xp.std(a, axis=axis, keepdims=k, ddof=1),
    "max": lambda xp, a, axis, k: (xp.max(a, axis=axis, keepdims=k), xp.amin(a, axis, keepdims=k)),
    "all": lambda xp, a, axis, k: (
        xp.all(a > 0, axis=axis, keepdims=k),
        xp.any(a, axis, keepdims=k),
    ),
    "ptp": lambda xp, a, axis, k: xp.ptp(a, axis=axis, keepdims=k),
    "nansum": lambda xp, a, axis, k: (
        xp.nansum(xp.log(a), axis=axis, keepdims=k),
        xp.nanmean(xp.log(a), axis=axis, keepdims=k),
    ),
    "count_nonzero": lambda xp, a, axis, k: xp.count_nonzero(xp.round(a), axis=axis, keepdims=k),
    "methods": lambda xp, a, axis, k: (a.sum(axis, keepdims=k), a.mean(axis=axis), a.max(axis)),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("kind", ["f", "i32", "f32"])
@given(seed=seeds, axis=st.sampled_from([None, 0, -1, (0, 2), ()]), keepdims=st.booleans())
def test_reductions(name: str, kind: str, seed: int, axis: Any, keepdims: bool) -> None:
    a = draw(kind, seed, (2, 3, 4))
    fn = REDUCTIONS[name]
    tol = 2e-5 if kind == "f32" else 1e-7
    check(
        lambda xp, a: fn(xp, a, axis, keepdims), a, rtol=tol, atol=1e-5 if kind == "f32" else 1e-12
    )


@pytest.mark.parametrize("kind", ["f", "i", "b"])
@given(seed=seeds, axis=st.sampled_from([None, 0, 1, -1]), keepdims=st.booleans())
def test_arg_and_cumulative_reductions(kind: str, seed: int, axis: Any, keepdims: bool) -> None:
    a = draw(kind, seed, (3, 4))
    check(lambda xp, a: (xp.argmax(a, axis, keepdims=keepdims), xp.argmin(a, axis)), a)
    check(lambda xp, a: (xp.cumsum(a, axis), xp.cumprod(a, axis), a.cumsum(axis)), a)


def test_reductions_of_lists_and_empty_arrays() -> None:
    a, b = np.arange(3.0), np.arange(3.0) * 2
    check(lambda xp, a, b: (xp.mean([a, b]), xp.sum([a, b], axis=0), xp.max([a, b])), a, b)
    check(lambda xp, a: (xp.all(a), xp.any(a), xp.sum(a)), np.zeros((0, 3)))
    check(lambda xp, a: xp.average(a, axis=1, weights=np.arange(1.0, 5.0)), draw("f", 1, (3, 4)))
    check(lambda xp, a: xp.average(a, weights=a + 10), draw("f", 2, (3, 4)))


# --- shapes, joining, structure ----------------------------------------------------------------

STRUCTURAL: dict[str, Case] = {
    "reshape": lambda xp, a: (xp.reshape(a, (4, -1)), a.reshape(2, 12), xp.reshape(a, -1)),
    "transpose": lambda xp, a: (xp.transpose(a), xp.transpose(a, (1, 0, 2)), a.T, a.mT),
    "swapaxes": lambda xp, a: (
        xp.swapaxes(a, 0, 2),
        xp.moveaxis(a, 0, -1),
        xp.moveaxis(a, [0, 1], [2, 0]),
    ),
    "expand": lambda xp, a: (
        xp.expand_dims(a, (0, 3)),
        xp.squeeze(a[:1]),
        xp.ravel(a),
        a.flatten(),
    ),
    "atleast": lambda xp, a: (
        xp.atleast_1d(a[0, 0, 0]),
        xp.atleast_2d(a[0, 0]),
        xp.atleast_3d(a[0]),
    ),
    "flip": lambda xp, a: (
        xp.flip(a),
        xp.flip(a, 1),
        xp.fliplr(a),
        xp.flipud(a),
        xp.rot90(a[0], 1),
    ),
    "rot90": lambda xp, a: (xp.rot90(a, 2, (1, 2)), xp.rot90(a[0], 3)),
    "roll": lambda xp, a: (xp.roll(a, 2), xp.roll(a, -1, axis=1), xp.roll(a, (1, 5), axis=(0, 2))),
    "tile": lambda xp, a: (xp.tile(a, 2), xp.tile(a[0], (2, 1, 3))),
    "repeat": lambda xp, a: (
        xp.repeat(a, 2),
        xp.repeat(a, 3, axis=1),
        xp.repeat(a, [1, 0, 2], axis=1),
    ),
    "pad": lambda xp, a: (xp.pad(a, 1), xp.pad(a, ((0, 1), (2, 0), (1, 1)), constant_values=7)),
    "pad values": lambda xp, a: xp.pad(a, 1, constant_values=((1, 2), (3, 4), (5, 6))),
    "pad modes": lambda xp, a: tuple(
        xp.pad(a, ((1, 2), (3, 0), (0, 5)), mode=m)
        for m in ("edge", "reflect", "symmetric", "wrap")
    ),
    "triangles": lambda xp, a: (xp.tril(a), xp.triu(a, 1), xp.tril(a[0, 0], -1), xp.triu(a[0], -2)),
    "diagonal": lambda xp, a: (
        xp.diagonal(a),
        xp.diagonal(a, 1, 1, 2),
        xp.diagonal(a[0], -1),
        xp.trace(a[0], 1),
    ),
    "diag": lambda xp, a: (
        xp.diag(a[0]),
        xp.diag(a[0], -1),
        xp.diag(a[0, 0], 2),
        xp.diagflat(a[0, :2]),
    ),
    "trace": lambda xp, a: (xp.trace(a), xp.trace(a, -1, 1, 2), a[0].trace()),
    "concatenate": lambda xp, a: (
        xp.concatenate([a, a], axis=1),
        xp.concatenate([a, a], axis=None),
        xp.concatenate((a[0], [[1.0, 2, 3, 4]])),
    ),
    "stack": lambda xp, a: (
        xp.stack([a, a]),
        xp.stack([a[0], a[1]], axis=-1),
        xp.stack([a[0, 0, 0], 2.0]),
    ),
    "hvstack": lambda xp, a: (
        xp.hstack([a, a]),
        xp.vstack([a[0], a[1]]),
        xp.hstack([a[0, 0], a[1, 0]]),
        xp.vstack([a[0, 0], a[0, 1]]),
    ),
    "dstack": lambda xp, a: (
        xp.dstack([a[0], a[1]]),
        xp.column_stack([a[0, 0], a[0, 1]]),
        xp.column_stack([a[0], a[1]]),
    ),
    "split": lambda xp, a: (
        xp.split(a, 2),
        xp.split(a, [1, 3], axis=1),
        xp.hsplit(a, 3),
        xp.vsplit(a, [1]),
    ),
    "array_split": lambda xp, a: (
        xp.array_split(a, 3, axis=2),
        xp.array_split(a, [2, 10], axis=2),
        xp.dsplit(a, 2),
    ),
    "broadcast": lambda xp, a: (xp.broadcast_to(a[0, 0], (2, 4)), *xp.broadcast_arrays(a, a[0, 0])),
    "take": lambda xp, a: (
        xp.take(a, [0, 2, -1], axis=1),
        xp.take(a, [[0, 5]]),
        xp.take(a, [5, -7], 2, mode="wrap"),
        xp.take(a, [9, -3], 2, mode="clip"),
    ),
    "clip": lambda xp, a: (
        xp.clip(a, -0.5, 0.5),
        xp.clip(a, a_min=0, a_max=None),
        xp.clip(a, max=0.2),
        a.clip(-1, 1),
    ),
    "copy": lambda xp, a: (xp.copy(a), xp.asarray(a), xp.array(a, ndmin=5)),
}


@pytest.mark.parametrize("name", sorted(STRUCTURAL))
@given(seed=seeds)
def test_structural(name: str, seed: int) -> None:
    check(STRUCTURAL[name], draw("f", seed, (2, 3, 4)))


# --- products and norms ------------------------------------------------------------------------

PRODUCTS: dict[str, Case] = {
    "matmul": lambda xp, a, b: (
        a @ b.T,
        xp.matmul(a[0], b.T),
        xp.matmul(b[0], b.T),
        xp.matmul(a, b.T[None]),
    ),
    "dot": lambda xp, a, b: (
        xp.dot(a, b.T),
        xp.dot(a[0], b[0]),
        xp.dot(a, b[0]),
        xp.dot(2.0, a),
        a.dot(b.T),
    ),
    "tensordot": lambda xp, a, b: (
        xp.tensordot(a, b, axes=([1], [1])),
        xp.tensordot(a, b.T, 1),
        xp.tensordot(a, b, 2),
        xp.tensordot(a, b, 0),
    ),
    "inner": lambda xp, a, b: (xp.inner(a, b), xp.inner(a[0], b[1]), xp.inner(a, 3.0)),
    "outer": lambda xp, a, b: (xp.outer(a[0], b[1]), xp.outer(a, b)),
    "vdot": lambda xp, a, b: (xp.vdot(a, b), xp.vdot(a + 1j * b, b - 2j * a), xp.kron(a, b[:2])),
    "vecdot": lambda xp, a, b: xp.vecdot(a, b),
    "norm vectors": lambda xp, a, b: tuple(
        xp.linalg.norm(a[0], o) for o in (None, 1, 2, 3, 0, np.inf, -np.inf, -1.5)
    ),
    "norm axes": lambda xp, a, b: (
        xp.linalg.norm(a, axis=1),
        xp.linalg.norm(a, 1, axis=0, keepdims=True),
        xp.linalg.norm(a, keepdims=True),
    ),
    "norm matrices": lambda xp, a, b: tuple(
        xp.linalg.norm(a, o) for o in (None, "fro", 1, -1, 2, -2, "nuc", np.inf, -np.inf)
    ),
    "norm complex": lambda xp, a, b: (
        xp.linalg.norm(a + 1j * b),
        xp.linalg.norm(a + 1j * b, 1, axis=1),
    ),
    "norm batched": lambda xp, a, b: xp.linalg.norm(
        xp.stack([a, b]), "fro", axis=(2, 1), keepdims=True
    ),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
@pytest.mark.parametrize("kind", ["f", "i", "c"])
@given(seed=seeds)
def test_products(name: str, kind: str, seed: int) -> None:
    a, b = draw(kind, seed, (3, 4)), draw(kind, seed + 1, (3, 4))
    check(PRODUCTS[name], a, b, rtol=1e-6, atol=1e-10)


def test_matmul_of_bool_matrices_is_a_boolean_product() -> None:
    a = draw("b", 0, (3, 3))
    check(lambda xp, a: (a @ a, xp.matmul(a, a.T)), a)


# --- creation --------------------------------------------------------------------------------

CREATION: dict[str, Callable[[Any], Any]] = {
    "zeros": lambda xp: (xp.zeros(3), xp.zeros((2, 3), xp.int32), xp.zeros(()), xp.empty(2).shape),
    "ones": lambda xp: (
        xp.ones((2, 1)),
        xp.ones(4, dtype=bool),
        xp.full((2, 2), 7),
        xp.full(3, 2.5, xp.float32),
    ),
    "like": lambda xp: (
        xp.zeros_like(xp.ones((2, 3))),
        xp.ones_like(xp.zeros(2, xp.int32)),
        xp.full_like(xp.zeros(3), 4.0),
        xp.zeros_like(xp.ones(2), shape=(3, 1)),
    ),
    "eye": lambda xp: (
        xp.eye(3),
        xp.eye(3, 4, k=1),
        xp.eye(4, 2, k=-1, dtype=xp.int64),
        xp.identity(2),
        xp.tri(3, 4, 1),
    ),
    "arange": lambda xp: (
        xp.arange(5),
        xp.arange(2, 11, 3),
        xp.arange(10, 0, -3),
        xp.arange(3, dtype=xp.float32),
        xp.arange(0.5, 3.0, 0.25),
        xp.arange(5, 2),
    ),
    "linspace": lambda xp: (
        xp.linspace(0, 1, 7),
        xp.linspace(-2, 3, 4, endpoint=False),
        xp.linspace(0, 1, 1),
        xp.logspace(0, 2, 5),
        xp.linspace([0, 1], [2, 5], 3, axis=1),
    ),
    "meshgrid": lambda xp: (
        *xp.meshgrid(xp.arange(3), xp.arange(2.0)),
        *xp.meshgrid(xp.arange(2), xp.arange(3), indexing="ij"),
    ),
    "array": lambda xp: (
        xp.array([[1, 2], [3, 4]]),
        xp.asarray([1.5, 2]),
        xp.array(3),
        xp.array([True, False]),
    ),
}


@pytest.mark.parametrize("name", sorted(CREATION))
def test_creation(name: str) -> None:
    compare(CREATION[name](tnp), CREATION[name](np))


def test_linspace_with_traced_bounds() -> None:
    lo, hi = np.array([0.0, 1.0]), np.array([2.0, 5.0])
    check(lambda xp, a, b: xp.linspace(a, b, 5), lo, hi, rtol=1e-12)
    check(lambda xp, a, b: xp.linspace(a[0], b[1], 4, endpoint=False), lo, hi, rtol=1e-12)


def test_array_of_traced_values_stacks() -> None:
    a = np.array([1.0, 2.0])
    check(lambda xp, a: xp.array([a[0], a[1], 3.0]), a)
    check(lambda xp, a: xp.array([[a[0], 1.0], [2.0, a[1]]]), a)
    check(lambda xp, a: xp.asarray([a, a * 2], dtype=xp.float32), a)
    check(lambda xp, a: xp.concatenate([a, [5.0, 6.0]]), a)
