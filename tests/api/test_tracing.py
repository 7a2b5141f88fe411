"""Tracing feels eager outside transforms: values print, convert, memoise, and loops stay linear.

Placeholder-dependent values refuse conversion with a ConcretizationError; deep chains evaluate
without touching the recursion limit; dropping every TracedTensor frees its graph.
"""

from __future__ import annotations

import gc
import operator
import re
import sys
import time
import weakref

import numpy as np
import pytest
from scaling_timer import assert_linear

import tf8
import tf8.numpy as tnp
from tf8.errors import ConcretizationError

# --- eager feel -----------------------------------------------------------------------------


def test_bound_value_prints_its_value():
    y = tf8.tensor(np.arange(3.0)) * 2.0
    assert str(y) == str(np.arange(3.0) * 2.0)
    assert repr(y) == "Array([0., 2., 4.], dtype=float64)"  # as JAX prints its arrays
    assert repr(tf8.tensor(np.int32(7))) == "Array(7, dtype=int32)"
    p = tf8.placeholder(("n", 2), "float32")
    assert repr(p * 2.0) == "TracedTensor<float32(n, 2), traced>" == str(p * 2.0)


def test_bound_value_converts_like_a_numpy_array():
    x = tf8.tensor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    total = x.sum()
    assert x.is_concrete and total.is_concrete
    np.testing.assert_array_equal(np.asarray(x * 2), [[2.0, 4.0], [6.0, 8.0]])
    assert np.asarray(x, dtype=np.float32).dtype == np.float32
    assert float(total) == 10.0 and int(total) == 10 and complex(total) == 10.0
    assert bool(total > 5) is True and bool(total < 5) is False
    assert len(x) == 2 and [float(row.sum()) for row in x] == [3.0, 7.0]
    index = tf8.tensor(np.int64(1))
    assert operator.index(index) == 1 and ["a", "b"][index] == "b"
    if total > 5:  # Python control flow on a concrete value
        pass
    else:
        pytest.fail("total > 5 is True")


def test_values_are_memoised(count_evaluations):
    """Op-by-op dispatch computes each value when its op runs: reading it back, again and
    again, never compiles or evaluates a program."""
    y = tnp.exp(tf8.tensor(np.ones(3)))
    first = np.asarray(y)
    np.asarray(y), float(y.sum()), repr(y)
    assert count_evaluations == [], "computed op by op, never through a program"
    np.testing.assert_array_equal(np.asarray(y), first)


def test_an_evaluated_value_becomes_a_bound_leaf(count_evaluations):
    w = tf8.tensor(np.ones(2))
    for _ in range(3):
        w = w * 2.0 + 1.0
    np.asarray(w)
    assert w.key.is_input, "cut: later work reads w as a bound leaf"
    compiled = tf8.GraphCompiler().compile(w - 1.0)
    assert len(compiled.ops) <= 3, compiled.pretty()
    np.testing.assert_array_equal(np.asarray(w - 1.0), [14.0, 14.0])


def test_numpy_functions_dispatch_to_tf8():
    x = tf8.tensor(np.arange(3.0))
    assert isinstance(np.sin(x), tf8.TracedTensor) and isinstance(np.sum(x), tf8.TracedTensor)
    np.testing.assert_allclose(
        np.asarray(np.sum(np.sin(x) * 2.0)), np.sum(np.sin(np.arange(3.0)) * 2.0)
    )


# --- deep chains and long loops ------------------------------------------------------------


def test_twenty_thousand_op_chain_evaluates_at_the_default_recursion_limit():
    assert sys.getrecursionlimit() <= 1000 + 100, "the test must not raise the limit"
    y = tf8.tensor(np.zeros(3))
    for _ in range(20_000):
        y = y + 1.0
    np.testing.assert_array_equal(np.asarray(y), np.full(3, 20_000.0))


def _loop_seconds(steps: int) -> float:
    w = tf8.tensor(np.float64(1.0))
    start = time.perf_counter()
    for _ in range(steps):
        w = w - 0.01 * (2.0 * w)
        float(w)  # evaluated every step: later steps read it as a bound leaf
    elapsed = time.perf_counter() - start
    assert float(w) == pytest.approx(0.98**steps)
    return elapsed


def test_python_loop_evaluating_each_step_is_linear():
    _loop_seconds(30)  # warm the caches
    assert_linear(_loop_seconds, 300, 1200)  # linear: 4x, with a 3x margin


# --- placeholders: the value is only known at run time ---------------------------------------


def _concretization(fn, value):
    with pytest.raises(ConcretizationError) as info:
        fn(value)
    return str(info.value)


@pytest.mark.parametrize(
    ("convert", "what"),
    [
        (bool, "bool"),
        (float, "Python float"),
        (int, "Python int"),
        (complex, "Python complex"),
        (np.asarray, "numpy array"),
    ],
)
def test_converting_a_placeholder_dependent_value_is_a_concretization_error(convert, what):
    p = tf8.placeholder((1,), "float32", name="p")
    value = tnp.tanh(p) * 2.0
    assert not value.is_concrete
    message = _concretization(convert, value)
    assert "traced value" in message and "float32(1,)" in message
    assert re.search(what.split()[-1], message), message
    assert "unbound placeholder" in message
    assert isinstance(ConcretizationError("x"), TypeError)


def test_branching_on_a_placeholder_comparison_names_shape_and_dtype():
    x = tf8.placeholder((2, 3), "int32")
    message = _concretization(bool, x.sum() > 0)
    assert "Branching" in message and "traced value" in message and "bool()" in message
    message = _concretization(np.asarray, x * 2)
    assert "traced value" in message and "int32(2, 3)" in message


def test_mixing_bound_and_placeholder_values_is_not_concrete():
    w, p = tf8.tensor(np.ones(2)), tf8.placeholder((2,))
    assert (w * 2.0).is_concrete and not (w * p).is_concrete
    assert (w * 2.0).sum() == 4.0
    with pytest.raises(ConcretizationError):
        float((w * p).sum())


# --- memory ---------------------------------------------------------------------------------


def test_dropping_every_traced_tensor_frees_the_graph():
    x = tf8.tensor(np.ones(1000))
    y = tnp.sin(x) * 2.0 + x
    keys = [weakref.ref(x.key), weakref.ref(y.key)]
    del x, y
    gc.collect()
    assert all(ref() is None for ref in keys)


# --- values are immutable, as JAX arrays are --------------------------------------------------


def test_writing_into_an_evaluated_array_does_not_change_the_traced_value():
    y = tf8.tensor(np.zeros(3)) + 1.0
    view = np.asarray(y)
    try:
        view[0] = 100.0
    except ValueError:
        pass  # a read-only view is a fine answer too
    np.testing.assert_array_equal(np.asarray(y + 1.0), [2.0, 2.0, 2.0])


def test_a_tensor_leaf_does_not_see_later_writes_to_its_source_array():
    data = np.zeros(3)
    doubled = tf8.tensor(data) * 2.0
    data[:] = 5.0
    np.testing.assert_array_equal(np.asarray(doubled), [0.0, 0.0, 0.0])


def test_a_loop_reading_only_a_reduction_stays_linear():
    """Concrete values are computed op by op, so a loop's state never grows a graph."""
    import time

    def run(steps):
        w = tf8.tensor(np.ones(4))
        start = time.perf_counter()
        for _ in range(steps):
            w = w * 1.0001 + 0.0
            float(w.sum())
        return time.perf_counter() - start

    assert_linear(run, 500, 2000)  # linear: 4x, with a 3x margin
