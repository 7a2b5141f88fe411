"""lax.reduce (JAX's monoids as the reduction primitives, any other computation as a tree
fold, pytrees of operands) and reduce_and / reduce_or / reduce_xor: values against numpy and
Python loops, derivatives to second order, vmap against a loop, jit against eager, errors."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import tf8
from tf8 import lax
from tf8.errors import AxisError, DTypeError, ShapeError, TreeStructureError

RNG = np.random.default_rng(7)


def folded(step, x: np.ndarray, init, axes) -> np.ndarray:
    """`step` folded from `init` over the entries of `axes`, one at a time, in Python."""
    kept = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, (*axes, *kept)).reshape(-1, *[x.shape[i] for i in kept])
    return functools.reduce(step, list(moved), np.full(moved.shape[1:], init))


def _ops(fn) -> list[str]:
    """The instructions of the program `jit(fn)` compiles for a (3, 4) float64 argument."""
    program = tf8.make_program(fn)(np.ones((3, 4)))
    return [line for line in program.pretty().splitlines() if " = " in line]


@pytest.mark.parametrize(
    "computation,step,init",
    [
        (lax.add, np.add, 0.0),
        (lax.mul, np.multiply, 1.0),
        (lax.max, np.maximum, -np.inf),
        (lax.min, np.minimum, np.inf),
    ],
)
@pytest.mark.parametrize("axes", [(0,), (1,), (0, 1), (1, 0)])
def test_monoids_match_a_fold(computation, step, init, axes):
    x = RNG.uniform(0.5, 2.0, (3, 4))
    got = lax.reduce(x, init, computation, axes)
    np.testing.assert_allclose(got, folded(step, x, init, axes), rtol=1e-14)
    generic = lax.reduce(x, init, lambda a, b: computation(a, b), axes)  # the tree fold
    np.testing.assert_allclose(generic, got, rtol=1e-14)


def test_a_monoid_is_one_reduction_primitive_and_a_lambda_a_fold():
    monoid = " ".join(_ops(lambda v: lax.reduce(v, 0.0, lax.add, (1,))))
    assert "reduce_sum" in monoid
    fold = " ".join(_ops(lambda v: lax.reduce(v, 0.0, lambda a, b: a + b, (1,))))
    assert "reduce_sum" not in fold and "slice" in fold


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 11])
def test_the_fold_applies_a_non_identity_initial_value_once(n):
    """XLA's reduce starts from the initial value: reduce(x, 10, add) is 10 + sum(x) (JAX's
    values), whatever the length's parity; an empty axis gives it alone, no axis the operand."""
    x = RNG.uniform(-1.0, 1.0, (2, n))
    np.testing.assert_allclose(lax.reduce(x, 10.0, lax.add, (1,)), 10 + x.sum(1), rtol=1e-14)
    add = lambda a, b: a + b  # noqa: E731
    np.testing.assert_allclose(lax.reduce(x, 10.0, add, (1,)), 10 + x.sum(1), rtol=1e-14)
    np.testing.assert_array_equal(lax.reduce(x, 10.0, add, ()), x)
    np.testing.assert_array_equal(lax.reduce(np.zeros((2, 0)), 10.0, add, (1,)), [10.0, 10.0])


def test_pytrees_of_operands_reduce_together():
    """argmin as a reduction of (value, index) pairs: the smaller value, the first on ties."""
    x = np.array([[3.0, 1.0, 2.0, 1.0], [0.5, 4.0, 0.5, -1.0]])
    index = np.broadcast_to(np.arange(4), x.shape).astype(np.int64)

    def pick(a, b):
        take_b = lax.lt(b[0], a[0]) | (lax.eq(b[0], a[0]) & lax.lt(b[1], a[1]))
        return lax.select(take_b, b[0], a[0]), lax.select(take_b, b[1], a[1])

    values, where = lax.reduce((x, index), (np.inf, np.int64(2**62)), pick, (1,))
    np.testing.assert_array_equal(values, x.min(1))
    np.testing.assert_array_equal(where, x.argmin(1))
    both = lax.reduce({"s": x, "p": x}, {"s": 0.0, "p": 1.0}, lambda a, b: {
        "s": a["s"] + b["s"], "p": a["p"] * b["p"]}, (0,))  # fmt: skip
    np.testing.assert_allclose(both["s"], x.sum(0))
    np.testing.assert_allclose(both["p"], x.prod(0))


def test_weak_types_follow_jax():
    assert lax.reduce(np.ones(3), 0.0, lax.add, (0,))._weak is False
    assert lax.reduce(np.ones(3, np.float32), 0.0, lax.add, (0,)).dtype == np.float32
    assert lax.reduce(np.zeros((0,)), 0.0, lambda a, b: a + b, (0,))._weak is False


def test_derivatives_of_the_fold_to_second_order():
    x = RNG.uniform(0.5, 1.5, (3, 5))
    soft = lambda a, b: lax.max(a, b) + lax.log1p(lax.exp(-lax.abs(a - b)))  # noqa: E731
    for fn, init in ((lambda a, b: a * b + a + b, 0.0), (soft, -np.inf)):
        for axes in ((1,), (0, 1)):
            tf8.check_grads(functools.partial(lax.reduce, init_values=init, computation=fn,
                                              dimensions=axes), [x], order=2)  # fmt: skip
    pair = lambda a, b: (lax.min(a[0], b[0]), a[1] * b[1])  # noqa: E731
    tf8.check_grads(lambda u, v: lax.reduce((u, v), (np.inf, 1.0), pair, (0,)), [x, x + 1], 2)
    # unlike JAX, the fold differentiates with respect to the initial value too
    grad = tf8.grad(lambda s: lax.reduce(x, s, lambda a, b: a + b, (0, 1)))(2.0)
    assert float(grad) == 1.0


def test_monoid_derivatives_to_second_order():
    x = RNG.uniform(0.5, 1.5, (3, 4))
    for computation, init in ((lax.add, 0.0), (lax.mul, 1.0), (lax.max, -np.inf)):
        reduce = functools.partial(
            lax.reduce, init_values=init, computation=computation, dimensions=(1,)
        )
        tf8.check_grads(reduce, [x], order=2)


def test_vmap_and_jit():
    x = RNG.uniform(0.5, 1.5, (4, 3, 5))
    fold = lambda v: lax.reduce(v, 1.0, lambda a, b: a * b, (1,))  # noqa: E731
    np.testing.assert_allclose(tf8.vmap(fold)(x), np.stack([fold(r) for r in x]), rtol=1e-14)
    np.testing.assert_array_equal(tf8.jit(fold)(x[0]), fold(x[0]))
    # under jit a traced initial value is no monoid's identity: the fold, same values
    traced = tf8.jit(lambda v, s: lax.reduce(v, s, lax.add, (0, 1)))
    np.testing.assert_allclose(traced(x[0], 0.0), x[0].sum(), rtol=1e-14)


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.uint8, np.int64, np.uint32])
@pytest.mark.parametrize("axes", [(0,), (1,), (0, 1), ()])
def test_bitwise_reductions_match_numpy(dtype, axes):
    x = RNG.integers(0, 200, (3, 5)).astype(dtype)
    for name, ufunc in (("reduce_and", np.bitwise_and), ("reduce_or", np.bitwise_or),
                        ("reduce_xor", np.bitwise_xor)):  # fmt: skip
        expected = ufunc.reduce(x, axis=axes) if axes else x
        got = getattr(lax, name)(x, axes)
        assert got.dtype == np.dtype(dtype), name
        np.testing.assert_array_equal(got, expected, err_msg=name)
    np.testing.assert_array_equal(lax.reduce(x, np.array(-1).astype(dtype), lax.bitwise_and, axes),
                                  np.bitwise_and.reduce(x, axis=axes) if axes else x)  # fmt: skip


def test_bitwise_reductions_of_empty_axes_are_the_identities():
    empty = np.zeros((0, 2), np.int32)
    np.testing.assert_array_equal(lax.reduce_and(empty, (0,)), [-1, -1])
    np.testing.assert_array_equal(lax.reduce_or(empty, (0,)), [0, 0])
    np.testing.assert_array_equal(lax.reduce_xor(np.zeros((0,), bool), (0,)), False)
    vmapped = tf8.vmap(lambda r: lax.reduce_xor(r, (0,)))(np.array([[1, 3, 4], [7, 7, 1]]))
    np.testing.assert_array_equal(vmapped, [6, 1])


def test_errors_name_the_function_and_the_arguments():
    x = np.ones((2, 3))
    with pytest.raises(TreeStructureError, match="reduce: operands"):
        lax.reduce((x, x), 0.0, lax.add, (0,))
    with pytest.raises(ShapeError, match="init_values must be scalars"):
        lax.reduce(x, np.zeros(2), lax.add, (0,))
    with pytest.raises(AxisError, match=r"reduce: dimensions \(2,\)"):
        lax.reduce(x, 0.0, lax.add, (2,))
    with pytest.raises(AxisError, match="repeat"):
        lax.reduce(x, 0.0, lambda a, b: a + b, (0, 0))
    with pytest.raises(DTypeError, match=r"reduce: the initial value .*float32"):
        lax.reduce(x.astype(np.float32), 0.0, lambda a, b: a + b, (0,))  # as JAX
    with pytest.raises(ShapeError, match="elementwise"):
        lax.reduce(x, 0.0, lambda a, b: lax.reduce_sum(a + b, (0,)), (0,))
    with pytest.raises(ShapeError, match="share one shape"):
        lax.reduce((x, x[0]), (0.0, 0.0), lambda a, b: a, (0,))
    with pytest.raises(DTypeError, match=r"reduce_or: needs a bool or integer operand"):
        lax.reduce_or(x, (0,))
