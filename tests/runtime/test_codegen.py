"""Generated code: direct ufunc calls, `out=` into the program's own dead buffers only, view
folding, scalar operands, owned outputs, quiet IEEE arithmetic."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_passes_programs import plain_runtime, run_all, steps

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, Runtime
from tf8.runtime.passes import view_folding


def prepare(*outputs, **options):
    return Runtime(**options).prepare(GraphCompiler().compile(*outputs))


def source(prepared):
    """The generated code: the optimised tier's (built now if the program has not re-run)."""
    return prepared.prepared.optimise().run_fn.source


def test_a_chain_calls_ufuncs_and_reuses_its_own_buffer():
    x = tf8.placeholder((16,), "float64")
    acc = x
    for _ in range(3):
        acc = acc * x + x
    text = source(prepare(tnp.sum(acc)))
    assert "multiply(s0, s0)" in text, "the first product allocates: s0 is the user's array"
    calls = re.findall(r"= (?:multiply|add)\((s\d+), (s\d+)(?:, (\S+))?\)", text)
    outs = [out for _, _, out in calls if out]  # the output passed positionally (no out=)
    assert len(calls) == 6 and len(outs) == 5, text
    assert "s0" not in outs and "out=" not in text
    assert "add_reduce(" in text


def test_maximum_and_minimum_take_their_output_by_keyword():
    """numpy deprecates a positional output for these two (every other ufunc takes one)."""
    x = tf8.placeholder((16,), "float64")
    y = tf8.placeholder((16,), "float64")
    prepared = prepare(tnp.minimum(tnp.maximum(x * y, y), x) + x)
    text = source(prepared)
    assert "maximum(" in text and "out=" in text, text
    a, b = np.linspace(-1.0, 1.0, 16), np.linspace(1.0, -1.0, 16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (got,) = prepared.run(a, b)
    np.testing.assert_array_equal(got, np.minimum(np.maximum(a * b, b), a) + a)


def test_inputs_and_bindings_are_never_written():
    x = tf8.placeholder((8,), "float64")
    w = tf8.tensor(np.linspace(0.0, 1.0, 8))
    prepared = prepare(tnp.exp(x * w) + w, tnp.tanh(w - x))
    a = np.arange(8.0)
    before_a, before_w = a.copy(), prepared.compiled.bindings[w.key].copy()
    for _ in range(3):
        prepared.run(a)
        prepared.run_unchecked([a])
    np.testing.assert_array_equal(a, before_a)
    np.testing.assert_array_equal(prepared.compiled.bindings[w.key], before_w)


def test_a_buffer_some_kernel_may_view_is_never_reused():
    """`t` is a transposed view of `a`'s buffer; `a * 3` (a's last use) must not write it."""
    x = tf8.placeholder((4, 4), "float64")
    a = x * 2.0
    t = tnp.transpose(a)
    both = t + t  # read twice: the transpose is an instruction of its own (no view folding)
    later = a * 3.0
    out = both + later + tnp.sin(t)
    prepared = prepare(out)
    m = np.arange(16.0).reshape(4, 4)
    ta = (m * 2.0).T
    np.testing.assert_array_equal(prepared.run(m)[0], ta + ta + m * 2.0 * 3.0 + np.sin(ta))


def test_outputs_are_fresh_distinct_writeable_arrays():
    x = tf8.placeholder((3,), "float64")
    y = x * 2.0
    prepared = prepare(y, y, x, tnp.transpose(y.reshape(3, 1)))
    a = np.arange(3.0)
    outs = prepared.run(a)
    assert len({id(o) for o in outs}) == 4
    assert all(o.flags.writeable for o in outs)
    assert outs[2] is not a and not np.shares_memory(outs[2], a)
    outs[0][0] = 99.0
    assert outs[1][0] == 0.0 and outs[3][0, 0] == 0.0


def test_a_uniform_constant_or_scalar_broadcast_is_read_as_a_scalar():
    x = tf8.placeholder((5,), "float64")
    seed = tf8.tensor(np.float64(3.0))
    text = source(prepare(x * 2.0 + seed))
    assert "broadcast" not in text
    (value,) = prepare(x * 2.0 + seed).run(np.arange(5.0))
    np.testing.assert_array_equal(value, np.arange(5.0) * 2.0 + 3.0)


def test_a_scalar_broadcast_read_by_several_ufuncs_folds_into_each():
    x = tf8.placeholder((6,), "float64")
    seed = tf8.tensor(np.float64(2.0))
    s = tnp.broadcast_to(seed, (6,))
    out = tnp.where(x > 0.0, s * x, s + x) - s
    prepared = prepare(out)
    assert "broadcast_in_dim" not in [i.name for i in prepared.program.instructions]
    a = np.linspace(-1.0, 1.0, 6)
    expected = np.where(a > 0.0, 2.0 * a, 2.0 + a) - 2.0
    np.testing.assert_array_equal(prepared.run(a)[0], expected)


def test_single_consumer_views_are_folded_into_their_reader():
    x = tf8.placeholder((2, 3), "float64")
    out = tnp.exp(x.T.reshape(6)) + 1.0
    prepared = prepare(out)
    ops = [i.name for i in prepared.program.instructions if i.name != "constant"]
    assert ops == ["exp", "add"]
    assert "transpose" in prepared.program.pretty() and "reshape" in prepared.program.pretty()
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(prepared.run(a)[0], np.exp(a.T.reshape(6)) + 1.0)
    unfolded = prepare(out, passes=tuple(p for p in Runtime().passes if p is not view_folding))
    assert len(unfolded.program.instructions) == len(prepared.program.instructions) + 2


def test_matmul_forms_of_dot_general():
    a = tf8.placeholder((3, 4), "float64")
    b = tf8.placeholder((3, 5), "float64")
    prepared = prepare(a.T @ b, b.T @ a)
    assert "matmul(s0.T, s1)" in source(prepared)
    rng = np.random.default_rng(0)
    p, q = rng.normal(size=(3, 4)), rng.normal(size=(3, 5))
    got = prepared.run(p, q)
    np.testing.assert_allclose(got[0], p.T @ q, rtol=1e-14)
    np.testing.assert_allclose(got[1], q.T @ p, rtol=1e-14)


def test_ieee_results_are_values_not_warnings():
    x = tf8.placeholder((3,), "float64")
    prepared = prepare(tnp.log(x) / x, x * 1e308 * 10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            outs = prepared.run(np.array([0.0, -1.0, 1.0]))
            assert np.geterr()["divide"] == "raise", "the caller's error state is restored"
        assert np.isnan(outs[0][1]) and np.isinf(outs[1][2])


def test_symbolic_programs_read_specialised_ops():
    x = tf8.placeholder(("n",), "float64")
    prepared = prepare(tnp.sum(x.reshape(-1, 1) * 2.0, axis=1) + 1.0)
    for n in (1, 4):
        a = np.arange(float(n))
        np.testing.assert_array_equal(prepared.run(a)[0], a * 2.0 + 1.0)


def test_zero_dimensional_values_nest_their_ufunc_calls():
    x = tf8.placeholder((), "float64")
    out = 1.0 / tnp.sqrt(tnp.abs(x) + 2.0)
    (value,) = prepare(out).run(np.float64(-2.0))
    assert type(value) is np.ndarray and value.shape == () and value == 0.5
    (total,) = prepare(tnp.sum(tf8.placeholder((3,), "float64"))).run(np.ones(3))
    assert type(total) is np.ndarray and total.shape == () and total.flags.writeable


@settings(max_examples=max(40, settings.default.max_examples), deadline=None)
@given(spec=steps, shape=st.sampled_from([(), (7,), (4, 4)]), reduce=st.booleans())
def test_random_programs_equal_the_plain_runtime_bit_for_bit(spec, shape, reduce):
    (fast, plain), feed = run_all(spec, shape, [Runtime(), plain_runtime()], reduce=reduce)
    for a, b in zip(fast, plain, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        assert not any(np.shares_memory(a, f) for f in feed)


@pytest.mark.parametrize("n", [16, 100_000])
def test_repeated_runs_do_not_share_output_buffers(n):
    x = tf8.placeholder((n,), "float64")
    prepared = prepare(tnp.exp(x) * x + 1.0)
    a = np.linspace(0, 1, n)
    first = prepared.run(a)[0]
    second = prepared.run(a)[0]
    assert first is not second and not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, second)
