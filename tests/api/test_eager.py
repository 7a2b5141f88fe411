"""Op-by-op dispatch and honest concretization (JAX's rules).

Outside every transform an op on concrete values runs at once: no program is compiled, a
Python loop's cost is linear in its length, and errors are the ones tracing always raised.
Under grad, a value being differentiated refuses float(), complex(), math.* and np.asarray
(they would silently drop its derivative); bool(), int() and an index of its concrete primal
still work, as in JAX.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from scaling_timer import assert_linear

import tf8
import tf8.numpy as tnp
from tf8.errors import ConcretizationError, ShapeError, TracerArrayConversionError


def test_eager_ops_compile_no_program(count_evaluations):
    t = tf8.tensor(np.linspace(0.0, 1.0, 7))
    y = tnp.sin(t) * 2.0 + tnp.exp(t)[::-1]
    assert float(tnp.sum(y)) == pytest.approx(np.sum(np.sin(t._value) * 2 + np.exp(t._value)[::-1]))
    assert tnp.argmax(y).dtype == np.int64 and int(tnp.argmax(y)) == int(np.argmax(np.asarray(y)))
    assert count_evaluations == []


def test_eager_errors_are_the_tracing_errors():
    with pytest.raises(ShapeError, match="broadcast"):
        tf8.tensor(np.ones(3)) + tf8.tensor(np.ones(4))
    with pytest.raises(tf8.errors.DTypeError):
        tf8.lax.add(np.ones(2, np.float32), np.ones(2))


def test_a_10000_step_eager_loop_costs_linear_time():
    def run(steps):
        w = tf8.tensor(np.ones(4))
        start = time.perf_counter()
        for _ in range(steps):
            w = w * 0.9999 + 0.0001
        float(w[0])
        return time.perf_counter() - start

    assert_linear(run, 1_000, 10_000)  # linear: 10x the steps, with a 3x margin


@pytest.mark.parametrize(
    "convert",
    [float, complex, math.sin, math.exp, lambda x: math.isclose(x, 1.0)],
    ids=["float", "complex", "math.sin", "math.exp", "math.isclose"],
)
def test_converting_a_differentiated_value_to_a_python_number_raises(convert):
    with pytest.raises(ConcretizationError, match=r"argument 0 of grad\(f\)"):

        def f(x):
            return x * convert(x)

        tf8.grad(f)(3.0)


def test_np_asarray_of_a_differentiated_value_raises():
    with pytest.raises(TracerArrayConversionError, match="argument 1 of grad"):
        tf8.grad(lambda a, b: a * np.asarray(b).sum(), argnums=(0, 1))(1.0, np.ones(2))


def test_bool_int_and_index_of_the_concrete_primal_work_under_grad():
    def f(x):
        if x > 0:  # bool() of the primal
            return x * int(x)  # int(): no derivative, as in JAX
        return -x

    np.testing.assert_allclose(tf8.grad(f)(2.5), 2.0)
    np.testing.assert_allclose(tf8.grad(f)(-1.5), -1.0)


def test_an_integer_index_derived_from_a_differentiated_value_indexes_numpy():
    table = np.array([10.0, 20.0, 30.0, 40.0])

    def f(v):
        i = tnp.floor(v).astype(int)  # an integer: no derivative flows through it
        return v * table[i]  # numpy indexing reads it through __index__

    np.testing.assert_allclose(tf8.grad(f)(2.25), table[2])
    np.testing.assert_allclose(f(tf8.tensor(1.5)), 1.5 * table[1])


def test_converting_a_value_that_is_not_differentiated_still_works_under_grad():
    w = np.array([1.0, 2.0])

    def f(x):
        scale = float(np.sum(w))  # a closed-over constant: not differentiated
        return tnp.sum(x * scale)

    np.testing.assert_allclose(tf8.grad(f)(np.ones(2)), [3.0, 3.0])


def test_under_jit_every_conversion_is_a_concretization_error():
    for convert in (float, bool, int):
        with pytest.raises(ConcretizationError):
            tf8.jit(lambda x: x * convert(x))(np.float64(2.0))  # noqa: B023


def test_no_jit_grad_of_a_long_chain_costs_linear_time():
    def make(steps):
        def f(x):
            for _ in range(steps):
                x = tnp.sin(x) * 0.999
            return tnp.sum(x)

        return tf8.grad(f)

    def run(steps):
        g = make(steps)
        start = time.perf_counter()
        g(np.linspace(0.0, 1.0, 8))
        return time.perf_counter() - start

    assert_linear(run, 200, 1_600)  # linear: 8x the ops, with a 3x margin


def test_an_integer_index_op_by_op_is_numpys():
    a = np.arange(12.0).reshape(3, 4)
    t = tf8.tensor(a)
    for i in (0, 2, -1, -3):
        row = t[i]
        np.testing.assert_array_equal(np.asarray(row), a[i])
        assert row.dtype == a.dtype and row.shape == (4,)
        assert not np.asarray(row).flags.writeable
    assert float(t[1][2]) == 6.0 and not np.asarray(t[1][2]).flags.writeable
    np.testing.assert_array_equal(np.asarray(t[3]), a[2])  # clamped, as JAX's
    weak = tnp.asarray(np.ones(3, np.float32)) * 1.0
    assert (tf8.jit(lambda s: s)(2.0) * t[0]).dtype == np.float64
    assert weak[0].dtype == np.float32
    # under grad the index is recorded (its gradient flows), not taken from numpy
    g = tf8.grad(lambda x: x[1] * 3.0 + x[-1])(np.ones(4))
    np.testing.assert_array_equal(g, [0.0, 3.0, 0.0, 1.0])


def test_the_eager_binary_fast_path_gives_the_general_paths_results():
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64, np.complex128):
        a = rng.standard_normal(5).astype(dtype)
        b = (rng.standard_normal(5) + 2.0).astype(dtype)
        x, y = tf8.tensor(a), tf8.tensor(b)
        for fn, ref in (
            (tnp.add, np.add),
            (tnp.subtract, np.subtract),
            (tnp.multiply, np.multiply),
            (tnp.true_divide, np.true_divide),
        ):
            out = fn(x, y)
            assert out.dtype == ref(a, b).dtype and not out._weak
            np.testing.assert_array_equal(np.asarray(out), ref(a, b))
            assert not np.asarray(out).flags.writeable
    # mixed avals, weak scalars and bools still take the general path
    assert (tf8.tensor(np.ones(3, np.float32)) * 2.0).dtype == np.float32
    assert (tf8.tensor(np.ones(3)) + tf8.tensor(np.ones((2, 3)))).shape == (2, 3)
    assert tnp.add(tf8.tensor(np.array([True])), tf8.tensor(np.array([True]))).dtype == np.bool_


def test_the_eager_unary_fast_path_gives_the_general_paths_results():
    a = np.linspace(0.1, 0.9, 5)
    for dtype in (np.float16, np.float32, np.float64, np.complex128):
        x = tf8.tensor(a.astype(dtype))
        for fn, ref in ((tnp.sin, np.sin), (tnp.exp, np.exp), (tnp.tanh, np.tanh)):
            out = fn(x)
            assert out.dtype == x.dtype and not out._weak
            np.testing.assert_allclose(np.asarray(out), ref(a.astype(dtype)), rtol=1e-3)
            assert not np.asarray(out).flags.writeable
    assert tnp.sin(tf8.tensor(np.arange(3))).dtype == np.float64  # ints: the general path
    assert tnp.sin(tf8.tensor(np.arange(3, dtype=np.uint8))).dtype == np.float32  # as JAX


def test_fast_paths_after_the_first_call_match_the_general_functions():
    # The first call caches the plan; later calls take the fast path (tf8/lax/eager.py).
    # Each result must equal the general function's (`__wrapped__`) bit for bit.
    rng = np.random.default_rng(1)
    for dtype in (np.float16, np.float32, np.float64, np.complex64):
        for shape in ((), (3,), (2, 3)):
            a = rng.standard_normal(shape).astype(dtype)
            b = (rng.standard_normal(shape) + 3.0).astype(dtype)
            x, y = tf8.tensor(a), tf8.tensor(b)
            for fn in (tnp.add, tnp.subtract, tnp.multiply, tnp.true_divide):
                for _ in range(2):
                    fast, general = fn(x, y), fn.__wrapped__(x, y)
                    assert fast.aval == general.aval and type(np.asarray(fast)) is np.ndarray
                    np.testing.assert_array_equal(np.asarray(fast), np.asarray(general))
                    assert not np.asarray(fast).flags.writeable
            for fn in (tnp.sin, tnp.exp):
                for _ in range(2):
                    np.testing.assert_array_equal(np.asarray(fn(x)), np.asarray(fn.__wrapped__(x)))
            if shape:
                for _ in range(2):
                    total = tnp.sum(x)
                    assert total.shape == () and total.dtype == x.dtype
                    np.testing.assert_array_equal(
                        np.asarray(total), np.asarray(tnp.sum.__wrapped__(x, None, None, False))
                    )
                    assert complex(total) == complex(np.sum(a, dtype=a.dtype))


def test_integer_true_division_never_takes_a_cached_integer_div_plan():
    # floor_divide of ints caches an integer `div` plan on int64 avals; `/` of those same
    # avals must still promote and divide in float (the fast path admits floats only).
    i, j = tf8.tensor(np.array([7, -7, 9])), tf8.tensor(np.array([2, 2, 4]))
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(i // j), [3, -4, 2])
        out = i / j
        assert out.dtype == np.float64
        np.testing.assert_array_equal(np.asarray(out), [3.5, -3.5, 2.25])


def test_float_of_an_eager_scalar_and_the_refusal_under_grad():
    s = tnp.sum(tf8.tensor(np.array([0.25, 0.5])))
    assert float(s) == 0.75 and float(tf8.tensor(np.array([2.0]))) == 2.0
    with pytest.raises(tf8.errors.ConcretizationError):
        tf8.grad(lambda x: x * float(tnp.sum(x)))(np.ones(2))
    with pytest.raises(tf8.errors.ConversionError):
        float(tf8.tensor(np.ones(2)))


def _same(fast, general):
    assert fast.aval == general.aval and fast._weak == general._weak
    assert not np.asarray(fast).flags.writeable
    np.testing.assert_array_equal(np.asarray(fast), np.asarray(general))


def test_broadcasting_scalar_and_numpy_operands_fast_paths_match_the_general_path():
    rng = np.random.default_rng(2)
    for dtype in (np.float16, np.float32, np.float64, np.complex128):
        a = rng.standard_normal((4, 3)).astype(dtype)
        row = (rng.standard_normal((1, 3)) + 3.0).astype(dtype)
        col = (rng.standard_normal((4, 1)) + 3.0).astype(dtype)
        x, r, c = tf8.tensor(a), tf8.tensor(row), tf8.tensor(col)
        for fn in (tnp.add, tnp.subtract, tnp.multiply, tnp.true_divide):
            general = fn.__wrapped__
            for _ in range(2):  # the second call meets cached shapes
                _same(fn(x, r), general(x, r))
                _same(fn(c, x), general(c, x))
                _same(fn(x, 0.1), general(x, 0.1))
                _same(fn(3, x), general(3, x))
                _same(fn(x, row), general(x, row))  # a numpy array of its dtype
                _same(fn(col, x), general(col, x))
        # a shape mismatch still gets the general path's error
        with pytest.raises(tf8.errors.ShapeError):
            x + tf8.tensor(np.ones(4, dtype))
    # a float64 numpy array and a float32 tensor promote as before (general path)
    f32 = tf8.tensor(np.ones(3, np.float32))
    assert (f32 + np.ones(3)).dtype == np.float64
    assert (f32 * 2**60).dtype == np.float32


def test_axis_sums_and_matrix_products_fast_paths_match_the_general_path():
    rng = np.random.default_rng(3)
    for dtype in (np.float32, np.float64):
        a = rng.standard_normal((4, 3, 2)).astype(dtype)
        x = tf8.tensor(a)
        for axis in (0, 1, -1, (0, 2), (2, 0), None):
            for keepdims in (False, True):
                for operand in (x, a):
                    for _ in range(2):
                        got = tnp.sum(operand, axis=axis, keepdims=keepdims)
                        want = tnp.sum.__wrapped__(operand, axis, None, keepdims)
                        _same(got, want)
                        np.testing.assert_allclose(
                            np.asarray(got), np.sum(a, axis=axis, keepdims=keepdims), rtol=1e-5
                        )
        for bad in (3, (0, 0), (0, -3)):
            with pytest.raises(tf8.errors.Tf8Error):
                tnp.sum(x, axis=bad)
        m = rng.standard_normal((3, 5)).astype(dtype)
        v = rng.standard_normal(3).astype(dtype)
        y = tf8.tensor(a[:, :, 0])
        pairs = ((y, m), (y, tf8.tensor(m)), (y, v), (v, tf8.tensor(m)), (a[0, :, 0], y.T))
        for left, right in pairs:
            for _ in range(2):
                _same(tnp.matmul(left, right), tnp.matmul.__wrapped__(left, right))
        with pytest.raises(tf8.errors.ShapeError):
            y @ np.ones((4, 2), dtype)


def test_the_one_aval_fast_paths_on_tapes_give_the_graph_paths_derivatives():
    # On tapes (top-level grad/jvp) the fast paths write each op down: the derivatives are
    # those of the graph path (the tape switched off), to rounding.
    import tf8.ad.tape as tape_module

    x0 = np.linspace(0.1, 0.9, 6).reshape(2, 3)
    m = np.arange(9.0).reshape(3, 3) / 10

    def f(x):
        h = tnp.sin(x) * x + tnp.tanh(x) - x / 3.0
        h = tnp.exp(h / 10.0) @ m
        h = h * tnp.sum(h, axis=1, keepdims=True) - tnp.sum(h, keepdims=True) / 4.0
        return tnp.sum(h * h + tnp.sum(h, axis=0, keepdims=True)) + tnp.sum(x.T @ x @ x[0])

    got = [tf8.grad(f)(x0), tf8.jvp(f, (x0,), (np.ones_like(x0),))[1], tf8.hessian(f)(x0)]
    with tape_module.graph_path_only():
        want = [tf8.grad(f)(x0), tf8.jvp(f, (x0,), (np.ones_like(x0),))[1], tf8.hessian(f)(x0)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-14)
    tf8.check_grads(f, (x0,), order=2, modes=("fwd", "rev"))
