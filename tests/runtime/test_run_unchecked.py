"""Prepared.run_unchecked: jit's fast path agrees with run and falls back when it must."""

from __future__ import annotations

import numpy as np

import tf8


def _prepare(outputs, inputs):
    compiled = tf8.GraphCompiler().compile_with_input_specs(outputs, inputs)
    return tf8.Runtime().prepare(compiled)


def test_matches_run_with_bound_inputs():
    x = tf8.placeholder((3,), "float64")
    w = tf8.tensor(np.array([1.0, 2.0, 3.0]))
    prepared = _prepare([x * w, x], [x])
    a = np.arange(3.0)
    fast = prepared.run_unchecked([a])
    for got, want in zip(fast, prepared.run(a)):
        np.testing.assert_array_equal(got, want)
    assert fast[1] is not a  # outputs never alias an input


def test_symbolic_programs_fall_back_to_checked_run():
    x = tf8.placeholder(("n",), "float64")
    prepared = _prepare([x * 2.0], [x])
    np.testing.assert_array_equal(prepared.run_unchecked([np.ones(4)])[0], np.full(4, 2.0))
