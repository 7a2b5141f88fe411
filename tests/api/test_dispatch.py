"""numpy's own functions on TracedTensors trace through `__array_function__`/`__array_ufunc__`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import errors

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 4))
W = RNG.normal(size=(4, 2))

CALLS: dict[str, Callable[..., Any]] = {
    "sin": lambda xp, x, w: xp.sin(x),
    "sum": lambda xp, x, w: xp.sum(x),
    "dot": lambda xp, x, w: xp.dot(x, w),
    "tanh of matmul": lambda xp, x, w: xp.tanh(x @ w),
    "mean axis": lambda xp, x, w: xp.mean(x, axis=0),
    "add scalar": lambda xp, x, w: xp.add(x, 1),
    "where": lambda xp, x, w: xp.where(x > 0, x, 0),
    "reshape": lambda xp, x, w: xp.reshape(x, (2, -1)),
    "concatenate": lambda xp, x, w: xp.concatenate([x, x], axis=1),
    "clip": lambda xp, x, w: xp.clip(x, -0.5, 0.5),
    "norm": lambda xp, x, w: xp.linalg.norm(x, axis=1),
    "exp chain": lambda xp, x, w: xp.log(xp.exp(x) + 1.0).sum(axis=1),
    "maximum": lambda xp, x, w: xp.maximum(x, 0.0),
    "matmul ufunc": lambda xp, x, w: xp.matmul(x, w),
    "transpose": lambda xp, x, w: xp.transpose(x) @ x,
    "stack": lambda xp, x, w: xp.stack([x, 2 * x]),
    "pad": lambda xp, x, w: xp.pad(x, 1),
    "cumsum": lambda xp, x, w: xp.cumsum(x, axis=1),
    "softmax": lambda xp, x, w: xp.exp(x) / xp.sum(xp.exp(x), axis=-1, keepdims=True),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_numpy_calls_trace_and_match_numpy(name: str) -> None:
    fn = CALLS[name]
    got = fn(np, tf8.tensor(X), tf8.tensor(W))
    assert isinstance(got, tf8.TracedTensor), f"np.{name} did not trace"
    np.testing.assert_allclose(np.asarray(got), fn(np, X, W), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_numpy_and_tf8_numpy_build_the_same_program(name: str) -> None:
    """Written with np. and with tnp. calls, a function compiles to the same fingerprint."""
    fn = CALLS[name]
    compiler = tf8.GraphCompiler()

    def program(xp: Any) -> Any:
        x, w = tf8.placeholder((3, 4), name="x"), tf8.placeholder((4, 2), name="w")
        return compiler.compile(fn(xp, x, w))

    with_np, with_tnp = program(np), program(tnp)
    assert with_np.fingerprint == with_tnp.fingerprint
    runtime = tf8.Runtime()
    (a,) = runtime.prepare(with_np).run(
        *[{"x": X, "w": W}[k.input_key.name] for k in with_np.placeholders]
    )
    np.testing.assert_allclose(a, fn(np, X, W), rtol=1e-12)


def test_numpy_arrays_on_the_left_trace() -> None:
    t = tf8.tensor(X)
    for got, expected in [
        (X + t, X + X),
        (X * t, X * X),
        (X - t, X - X),
        (X @ t.T, X @ X.T),
        (X < t, X < X),
        (np.float32(2.0) * t, 2.0 * X),
        (W.T @ t.T, W.T @ X.T),
    ]:
        assert isinstance(got, tf8.TracedTensor)
        np.testing.assert_allclose(np.asarray(got), expected)


def test_numpy_scalars_are_strong_as_in_numpy_2() -> None:
    t = tf8.tensor(X.astype(np.float32))
    assert (t * np.float64(2.0)).dtype == np.float64
    assert (t * 2.0).dtype == np.float32
    assert np.multiply(t, np.float32(2.0)).dtype == np.float32


def test_ufunc_methods() -> None:
    t = tf8.tensor(X)
    cases = [
        (np.add.reduce(t), np.add.reduce(X)),
        (np.add.reduce(t, axis=1, keepdims=True), np.add.reduce(X, axis=1, keepdims=True)),
        (np.multiply.reduce(t, axis=None), np.multiply.reduce(X, axis=None)),
        (np.maximum.reduce(t, axis=1), np.maximum.reduce(X, axis=1)),
        (np.logical_or.reduce(t > 1), np.logical_or.reduce(X > 1)),
        (np.add.accumulate(t, axis=1), np.add.accumulate(X, axis=1)),
        (np.multiply.accumulate(t), np.multiply.accumulate(X)),
        (np.multiply.outer(t[0], t[1]), np.multiply.outer(X[0], X[1])),
        (np.subtract.outer(t[:, 0], t[0]), np.subtract.outer(X[:, 0], X[0])),
        (np.add(t, 1, dtype=np.float32), np.add(X, 1, dtype=np.float32)),
    ]
    for got, expected in cases:
        assert isinstance(got, tf8.TracedTensor)
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)


def test_extension_families_dispatch_too() -> None:
    t = tf8.tensor(X)
    np.testing.assert_allclose(
        np.asarray(np.linalg.svd(t, compute_uv=False)), np.linalg.svd(X, compute_uv=False)
    )
    np.testing.assert_allclose(np.asarray(np.einsum("ij,kj->ik", t, t)), X @ X.T)
    np.testing.assert_allclose(np.asarray(np.fft.fft(t)), np.fft.fft(X))


def test_helpers_numpy_code_calls() -> None:
    t = tf8.tensor(X)
    assert np.shape(t) == (3, 4) and np.ndim(t) == 2 and np.size(t) == 12
    assert np.iscomplexobj(t) is False
    np.testing.assert_allclose(np.asarray(np.round(t, 2)), np.round(X, 2))
    np.testing.assert_allclose(t, X)  # numpy.testing converts the traced value


def test_a_numpy_function_tf8_lacks_runs_on_computed_values_and_refuses_traced_ones() -> None:
    t = tf8.tensor(X)  # computed: numpy runs on its value, as with JAX's arrays
    counts, xs, ys = np.histogram2d(t[0], t[1], bins=2)
    expected = np.histogram2d(X[0], X[1], bins=2)
    np.testing.assert_array_equal(counts, expected[0])
    with pytest.raises(errors.UnsupportedOperationError, match=r"numpy\.histogram2d is not"):
        tf8.jit(lambda u: np.histogram2d(u[0], u[1])[0])(X)
    with pytest.raises(errors.UnsupportedOperationError, match=r"numpy\.histogram2d is not"):
        tf8.grad(lambda u: np.histogram2d(u[0], u[1])[0].sum())(X)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda t: np.sort(t, order="x"), r"order="),
        (lambda t: np.putmask(t, X > 0, 1.0), r"numpy\.putmask"),
        (lambda t: np.gcd(t, t), r"ufunc gcd is not supported"),
        (lambda t: np.add(t, 1, out=np.zeros((3, 4))), r"out=.*immutable"),
        (lambda t: np.sum(t, out=np.zeros(())), r"out=.*immutable"),
        (lambda t: np.sum(t, where=X > 0), r"numpy\.sum: .*'where'"),
        (lambda t: np.add.at(t, [0], 1.0), r"numpy\.add\.at .*at\[i\]"),
        (lambda t: np.add.reduceat(t, [0, 1]), r"numpy\.add\.reduceat is not supported"),
        (lambda t: np.add(t, 1, where=X > 0), r"numpy\.add: arguments \['where'\]"),
        (lambda t: tnp.median(t, out=np.zeros(())), r"median: out="),
        (lambda t: t.sort(), r"in place"),
    ],
)
def test_unsupported_numpy_calls_raise_naming_the_function(call: Callable, message: str) -> None:
    with pytest.raises(
        (errors.UnsupportedOperationError, errors.InPlaceAssignmentError), match=message
    ):
        call(tf8.tensor(X))


def test_unsupported_calls_never_silently_become_constants() -> None:
    p = tf8.placeholder((3, 4))
    with pytest.raises(errors.UnsupportedOperationError):
        np.putmask(p, X > 0, 1.0)
    with pytest.raises(errors.ConcretizationError):
        np.trim_zeros(p[0])
    assert isinstance(np.sin(p), tf8.TracedTensor)
    assert isinstance(np.sort(p), tf8.TracedTensor)
