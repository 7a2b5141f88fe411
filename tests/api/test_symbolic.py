"""tf8.numpy on symbolic placeholders: compile once, run for several sizes, guards at run time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import errors
from tf8.ops.shapes import sym

N = sym("n")
SIZES = (1, 2, 5)


def run_for_sizes(fn: Callable[[Any], Any], sizes: tuple[int, ...] = SIZES, cols: int = 3) -> None:
    """Trace `fn` once on an (n, cols) placeholder; every size must match numpy's answer."""
    out = fn(tf8.placeholder(("n", cols)))
    prepared = tf8.Runtime().prepare(tf8.GraphCompiler().compile(out))
    for n in sizes:
        a = np.arange(n * cols, dtype=np.float64).reshape(n, cols) - 2.0
        (got,) = prepared.run(a)
        expected = fn(a)
        assert got.shape == np.shape(expected), (n, got.shape, np.shape(expected))
        np.testing.assert_allclose(got, expected, rtol=1e-12)


CASES: dict[str, Callable[[Any], Any]] = {
    "reshape -1": lambda x: x.reshape(-1),
    "reshape -1 keeps n": lambda x: x.reshape(-1, 3, 1),
    "reshape n*3 by -1": lambda x: x.reshape(3, -1),
    "concatenate": lambda x: np.concatenate([x, 2 * x], axis=0),
    "concatenate columns": lambda x: np.concatenate([x, x[:, :1]], axis=1),
    "stack": lambda x: np.stack([x, x + 1], axis=1),
    "x[:k]": lambda x: x[:2],
    "x[1:]": lambda x: x[1:],
    "x[1:] - x[:-1]": lambda x: x[1:] - x[:-1],
    "x[-2:]": lambda x: x[-2:],
    "x[1:4]": lambda x: x[1:4],
    "x[::2]": lambda x: x[::2],
    "x[::-1]": lambda x: x[::-1],
    "x[0]": lambda x: x[0],
    "x[-1]": lambda x: x[-1],
    "x[:, [2, 0]]": lambda x: x[:, [2, 0]],
    "pad": lambda x: np.pad(x, ((1, 2), (0, 1))),
    "pad edge": lambda x: np.pad(x, ((2, 1), (1, 0)), mode="edge"),
    "mean over n": lambda x: np.mean(x, axis=0),
    "mean over all": lambda x: np.mean(x),
    "var over n": lambda x: np.var(x, axis=0, keepdims=True),
    "std": lambda x: x.std(axis=0, ddof=0),
    "sum": lambda x: np.sum(x * x, axis=0),
    "cumsum": lambda x: np.cumsum(x, axis=0),
    "roll": lambda x: np.roll(x, 1, axis=0),
    "flip": lambda x: np.flip(x, 0),
    "tile": lambda x: np.tile(x, (2, 1)),
    "repeat": lambda x: np.repeat(x, 2, axis=0),
    "transpose matmul": lambda x: x.T @ x,
    "diagonal": lambda x: np.diagonal(x),
    "where": lambda x: np.where(x > 0, x, 0.0),
    "at set": lambda x: x.at[0].set(7.0) if isinstance(x, tf8.TracedTensor) else _set_row0(x),
    "zeros like": lambda x: np.zeros_like(x) + x,
    "array_split": lambda x: np.array_split(x, 2)[0],
}


def _set_row0(a: np.ndarray) -> np.ndarray:
    out = a.copy()
    out[0] = 7.0
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_traced_once_runs_for_every_size(name: str) -> None:
    run_for_sizes(CASES[name])


def test_symbolic_sizes_are_exact_numpy_clamping() -> None:
    x = tf8.placeholder(("n", 3))
    assert x[1:].shape == x[:-1].shape  # both max(n - 1, 0): no guard needed
    assert x[::-1].shape == x.shape
    assert x.reshape(-1).shape == (N * 3,)
    assert tnp.concatenate([x, x]).shape == (N * 2, 3)
    assert tnp.pad(x, ((1, 2), (0, 0))).shape == (N + 3, 3)
    assert tnp.stack([x, x]).shape == (2, N, 3)


def test_sizes_beyond_the_axis_clamp_as_numpy() -> None:
    run_for_sizes(lambda x: x[:4], sizes=(0, 2, 6))
    run_for_sizes(lambda x: x[2:], sizes=(0, 1, 3))
    run_for_sizes(lambda x: x[-4:-1], sizes=(0, 2, 6))


def test_mismatched_symbolic_dims_fail_the_run_time_guard() -> None:
    x, y = tf8.placeholder(("n",)), tf8.placeholder(("m",))
    prepared = tf8.Runtime().prepare(tf8.GraphCompiler().compile(x + y))
    np.testing.assert_array_equal(prepared.run(np.ones(3), np.ones(3))[0], 2 * np.ones(3))
    with pytest.raises(errors.ShapeGuardError):
        prepared.run(np.ones(3), np.ones(4))


def test_reshape_that_needs_divisibility_is_guarded() -> None:
    x = tf8.placeholder(("n",))
    prepared = tf8.Runtime().prepare(tf8.GraphCompiler().compile(x.reshape(-1, 2)))
    np.testing.assert_array_equal(prepared.run(np.arange(4.0))[0], np.arange(4.0).reshape(2, 2))
    with pytest.raises(errors.ShapeGuardError):
        prepared.run(np.arange(5.0))


def test_split_and_integer_index_guards() -> None:
    x = tf8.placeholder(("n", 3))
    halves = tf8.Runtime().prepare(tf8.GraphCompiler().compile(tnp.split(x, 2)[1]))
    np.testing.assert_array_equal(halves.run(np.ones((4, 3)))[0], np.ones((2, 3)))
    with pytest.raises(errors.ShapeGuardError):
        halves.run(np.ones((5, 3)))
    third = tf8.Runtime().prepare(tf8.GraphCompiler().compile(x[2]))
    np.testing.assert_array_equal(third.run(np.ones((3, 3)))[0], np.ones(3))
    with pytest.raises(errors.ShapeGuardError):
        third.run(np.ones((2, 3)))


@pytest.mark.parametrize(
    "reduce", [tnp.max, tnp.min, tnp.argmax, tnp.argmin], ids=lambda f: f.__name__
)
def test_max_over_a_symbolic_axis_guards_against_it_being_empty(reduce: Any) -> None:
    # A concrete empty axis is refused at trace time; a symbolic one must be refused at run
    # time with a tf8 error rather than numpy's "zero-size array to reduction" ValueError.
    x = tf8.placeholder(("n", 3))
    prepared = tf8.Runtime().prepare(tf8.GraphCompiler().compile(reduce(x, axis=0)))
    a = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    np.testing.assert_array_equal(prepared.run(a)[0], reduce(a, axis=0))
    with pytest.raises(errors.ShapeGuardError, match="must not be empty"):
        prepared.run(np.ones((0, 3)))
    across = tf8.Runtime().prepare(tf8.GraphCompiler().compile(reduce(x, axis=1)))
    assert across.run(np.ones((0, 3)))[0].shape == (0,)  # reducing the known axis is fine


def test_a_symbolic_stop_makes_an_iota() -> None:
    x = tf8.placeholder(("n",), "int64")
    out = x + tnp.arange(x.shape[0])
    prepared = tf8.Runtime().prepare(tf8.GraphCompiler().compile(out))
    for n in SIZES:
        np.testing.assert_array_equal(prepared.run(np.zeros(n, np.int64))[0], np.arange(n))


def test_unsupported_symbolic_slicing_is_clear() -> None:
    x = tf8.placeholder(("n",))
    with pytest.raises(errors.UnsupportedOperationError, match="negative-step"):
        x[3:0:-1]
    with pytest.raises(errors.UnsupportedOperationError, match="symbolic dimension"):
        tnp.asarray(x.shape[0])
