"""Runtime.prepare / Prepared.run: symbolic shapes, guards, the prepare cache, bindings, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, NumpyEngine, Runtime
from tf8.errors import CompileError, RunDTypeError, RunInputError, ShapeGuardError
from tf8.ops.shapes import sym


def compile_(*outputs):
    return GraphCompiler().compile(*outputs)


def exp_sum_program():
    x = tf8.placeholder(("n",), "float64", name="x")
    return compile_(tnp.sum(tnp.exp(x) * 2.0))


# --- one symbolic program, every size ------------------------------------------------------


def test_symbolic_program_compiles_once_and_runs_for_every_size():
    compiled = exp_sum_program()
    runtime = Runtime()
    rng = np.random.default_rng(0)
    for n in (1, 3, 1000):
        a = rng.normal(size=n)
        out = runtime.prepare(compiled).run(a)
        assert isinstance(out, list) and len(out) == 1
        assert out[0].shape == () and out[0].dtype == np.float64
        np.testing.assert_allclose(out[0], np.sum(np.exp(a) * 2.0), rtol=1e-13)
    assert (runtime.cache_stats.misses, runtime.cache_stats.hits) == (1, 2)


@given(n=st.integers(0, 50), m=st.integers(1, 4))
def test_symbolic_reshape_and_broadcast_run_for_every_size(n, m):
    x = tf8.placeholder(("n", "m"), "float64")
    out = tnp.sum(x.reshape(-1) * 2.0) + tnp.sum(x, axis=0)
    prepared = Runtime().prepare(compile_(out))
    a = np.arange(n * m, dtype=np.float64).reshape(n, m)
    (value,) = prepared.run(a)
    np.testing.assert_allclose(value, np.sum(a.reshape(-1) * 2.0) + a.sum(axis=0))


def test_shape_guard_violation_is_a_clear_error():
    x, y = tf8.placeholder(("n",), name="x"), tf8.placeholder(("m",), name="y")
    compiled = compile_(x + y)
    assert [(str(g.lhs), str(g.rhs)) for g in compiled.guards] in ([("m", "n")], [("n", "m")])
    prepared = Runtime().prepare(compiled)
    np.testing.assert_array_equal(prepared.run(np.ones(3), np.ones(3))[0], np.full(3, 2.0))
    with pytest.raises(
        ShapeGuardError, match=r"shape guard failed: .*\b[mn] = [34] but [mn] = [34]"
    ):
        prepared.run(np.ones(3), np.ones(4))


def test_one_dimension_name_with_two_sizes_is_a_shape_guard_error():
    x = tf8.placeholder(("n", "n"), name="square")
    prepared = Runtime().prepare(compile_(x * 2.0))
    with pytest.raises(ShapeGuardError, match=r"input 'square': dimension n is 3 on axis 1, but 2"):
        prepared.run(np.ones((2, 3)))


# --- the prepare cache ----------------------------------------------------------------------


def test_same_structure_twice_is_one_miss_then_one_hit():
    runtime = Runtime()
    first = runtime.prepare(compile_(tnp.tanh(tf8.tensor(np.ones(4))) * 3.0))
    second = runtime.prepare(compile_(tnp.tanh(tf8.tensor(np.zeros(4))) * 3.0))
    assert (runtime.cache_stats.misses, runtime.cache_stats.hits) == (1, 1)
    assert first.prepared is second.prepared, "a hit reuses the lowered program"
    np.testing.assert_allclose(second.run()[0], np.zeros(4))
    np.testing.assert_allclose(first.run()[0], np.tanh(np.ones(4)) * 3.0)
    runtime.prepare(compile_(tnp.tanh(tf8.tensor(np.ones(5))) * 3.0))
    assert (runtime.cache_stats.misses, runtime.cache_stats.hits) == (2, 1)
    runtime.clear_cache()
    runtime.prepare(compile_(tnp.tanh(tf8.tensor(np.ones(4))) * 3.0))
    assert runtime.cache_stats.misses == 3


def test_prepare_takes_a_compiled_graph():
    with pytest.raises(CompileError, match=r"takes a CompiledGraph.*got TracedTensor"):
        Runtime().prepare(tf8.tensor(np.ones(2)))


def test_prepared_program_and_pass_statistics_are_printable():
    prepared = Runtime(engines=[NumpyEngine()]).prepare(exp_sum_program())
    text = prepared.pretty()
    assert "exp" in text and "reduce_sum" in text and "[numpy]" in text
    assert prepared.pass_stats, "every prepare reports its passes"
    for stats in prepared.pass_stats:
        assert stats.name in text
        assert stats.instructions_after <= stats.instructions_before


# --- bindings ---------------------------------------------------------------------------------


def test_bindings_override_a_bound_input_by_name_or_key():
    w = tf8.tensor(np.array([1.0, 2.0]), name="w")
    x = tf8.placeholder((2,), name="x")
    prepared = Runtime().prepare(compile_(w * x))
    np.testing.assert_array_equal(prepared.run(np.ones(2))[0], [1.0, 2.0])
    new = np.array([5.0, 7.0])
    np.testing.assert_array_equal(prepared.run(np.ones(2), bindings={"w": new})[0], new)
    np.testing.assert_array_equal(prepared.run(np.ones(2), bindings={w.key: -new})[0], -new)
    np.testing.assert_array_equal(prepared.run(np.ones(2))[0], [1.0, 2.0]), "defaults stay"


def test_binding_an_unknown_name_names_the_inputs():
    prepared = Runtime().prepare(compile_(tf8.tensor(np.ones(2), name="w") * 2.0))
    with pytest.raises(RunInputError, match=r"no input named 'v' \(inputs: \['w'\]\)"):
        prepared.run(bindings={"v": np.ones(2)})


def test_binding_of_the_wrong_shape_is_refused():
    prepared = Runtime().prepare(compile_(tf8.tensor(np.ones(2), name="w") * 2.0))
    with pytest.raises(RunInputError, match=r"input 'w': expected shape \(2,\), got \(3,\)"):
        prepared.run(bindings={"w": np.ones(3)})


# --- run-time input errors ----------------------------------------------------------------------


@pytest.fixture
def two_inputs():
    a = tf8.placeholder((2, 3), "float64", name="a")
    b = tf8.placeholder(("n",), "int32", name="b")
    return Runtime().prepare(compile_(tnp.sum(a) + tnp.sum(b)))


def test_wrong_input_count_names_the_placeholders(two_inputs):
    with pytest.raises(
        RunInputError, match=r"run takes 2 array\(s\), one per placeholder \['a', 'b'\], got 1"
    ):
        two_inputs.run(np.ones((2, 3)))
    with pytest.raises(RunInputError, match=r"takes 2 array\(s\).*got 3"):
        two_inputs.run(np.ones((2, 3)), np.ones(2, np.int32), np.ones(1))


@pytest.mark.parametrize("bad", [np.ones((3, 2)), np.ones(6), np.ones((2, 3, 1))])
def test_wrong_input_shape_names_the_input_and_both_shapes(two_inputs, bad):
    pattern = rf"input 'a': expected shape \(2, 3\), got {re_shape(bad.shape)}"
    with pytest.raises(RunInputError, match=pattern):
        two_inputs.run(bad, np.ones(4, np.int32))


def re_shape(shape):
    return str(shape).replace("(", r"\(").replace(")", r"\)")


@pytest.mark.parametrize(
    ("value", "got"),
    [(np.ones(4, np.int64), "int64"), (np.ones(4), "float64"), (np.ones(4, np.uint8), "uint8")],
)
def test_wrong_input_dtype_is_a_run_dtype_error(two_inputs, value, got):
    with pytest.raises(RunDTypeError, match=rf"input 'b': expected dtype int32, got {got}"):
        two_inputs.run(np.ones((2, 3)), value)
    assert issubclass(RunDTypeError, TypeError) and issubclass(RunDTypeError, RunInputError)


def test_python_scalars_convert_only_within_their_kind():
    k = tf8.placeholder((), "int64", name="k")
    prepared = Runtime().prepare(compile_(k + 1))
    assert prepared.run(3)[0] == 4 and prepared.run(True)[0] == 2
    with pytest.raises(
        RunDTypeError, match=r"input 'k': expected dtype int64, got float64 \(1.5\)"
    ):
        prepared.run(1.5)
    f = tf8.placeholder((), "float32", name="f")
    out = Runtime().prepare(compile_(f * 2)).run(3)[0]
    assert out == 6.0 and out.dtype == np.float32


# --- outputs -------------------------------------------------------------------------------------


def test_outputs_are_fresh_writeable_arrays():
    data = np.arange(3.0)
    x = tf8.tensor(data, name="x")
    p = tf8.placeholder((3,), name="p")
    y = x * 2.0
    prepared = Runtime().prepare(compile_(y, y, x, p, tnp.asarray(5.0), x[1:]))
    given_array = np.ones(3)
    outs = prepared.run(given_array)
    assert len(outs) == 6
    assert outs[0] is not outs[1]
    for out in outs:
        assert out.flags.writeable
        assert not np.shares_memory(out, data) and not np.shares_memory(out, given_array)
    outs[0][:] = -1.0
    np.testing.assert_array_equal(outs[1], data * 2.0)
    np.testing.assert_array_equal(prepared.run(given_array)[2], data)


def test_running_is_quiet_about_ieee_results():
    x = tf8.placeholder((3,), name="x")
    prepared = Runtime().prepare(compile_(tnp.log(x) / x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = prepared.run(np.array([0.0, -1.0, 1.0]))[0]
    assert out[0] == -np.inf and np.isnan(out[1]) and out[2] == 0.0


# --- placeholder axes given by expressions (n + 1, 2*n) ---------------------------------------


def test_expression_axes_are_checked_against_the_names_bare_axes_give():
    n = sym("n")
    p = tf8.placeholder(("n", n + 1), name="p")
    prepared = Runtime().prepare(compile_(p * 2.0))
    assert prepared.run(np.ones((2, 3)))[0].shape == (2, 3)
    with pytest.raises(
        ShapeGuardError, match=r"input 'p': axis 1 has size 5, but n \+ 1 = 3 \(n=2\)"
    ):
        prepared.run(np.ones((2, 5)))


def test_a_name_only_an_expression_axis_gives_is_solved_when_linear():
    n = sym("n")
    q, s = tf8.placeholder((n * 2, "m"), name="q"), tf8.placeholder(("n",), name="s")
    prepared = Runtime().prepare(compile_(tnp.sum(q) + tnp.sum(s)))
    assert prepared.run(np.ones((6, 2)), np.ones(3))[0] == 15.0
    with pytest.raises(ShapeGuardError, match=r"input 'q': axis 0 has size 6, but n\*2 = 4"):
        prepared.run(np.ones((6, 2)), np.ones(2))
    alone = Runtime().prepare(compile_(tnp.sum(tf8.placeholder((n * 2,), name="even"))))
    assert alone.run(np.ones(4))[0] == 4.0
    with pytest.raises(ShapeGuardError, match=r"axis 0 has size 3, which is not n\*2 for any n"):
        alone.run(np.ones(3))


def test_an_expression_axis_that_cannot_be_solved_says_so():
    n, m = sym("n"), sym("m")
    square = Runtime().prepare(compile_(tnp.sum(tf8.placeholder((n * n,), name="w"))))
    with pytest.raises(
        ShapeGuardError, match=r"input 'w': axis 0 has size 4; n\^2 cannot be solved"
    ):
        square.run(np.ones(4))
    product = Runtime().prepare(compile_(tnp.sum(tf8.placeholder((n * m,), name="v"))))
    with pytest.raises(ShapeGuardError, match=r"m\*n alone does not determine m, n"):
        product.run(np.ones(4))
