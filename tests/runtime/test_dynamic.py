"""Run-time sizes (dynamic_truncate): learnt while running, usable by later ops, guarded."""

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import ShapeError, ShapeGuardError
from tf8.lax.core import apply1

T = tf8.tensor


def truncated(x, size, axis=0):
    return apply1("dynamic_truncate", [T(x), T(np.int64(size))], axis=axis)


def test_a_run_time_size_flows_into_later_ops():
    t = truncated(np.arange(5.0), 3)
    np.testing.assert_array_equal(np.asarray(t * T(2.0) + 1.0), [1.0, 3.0, 5.0])
    np.testing.assert_array_equal(np.asarray(tnp.sum(t)), 3.0)


def test_the_same_program_runs_for_each_size():
    x = tf8.placeholder((6,), "float64")
    n = tf8.placeholder((), "int64")
    out = apply1("dynamic_truncate", [x, n], axis=0) * 2.0
    prepared = tf8.Runtime().prepare(tf8.GraphCompiler().compile_with_input_specs([out], [x, n]))
    for size in (0, 2, 6):
        (got,) = prepared.run(np.arange(6.0), np.int64(size))
        np.testing.assert_array_equal(got, 2.0 * np.arange(size))


def test_two_run_time_sizes_that_differ_are_a_guard_error_not_a_broadcast():
    with pytest.raises(ShapeGuardError, match="truncated"):
        np.asarray(truncated(np.arange(5.0), 2) + truncated(np.arange(5.0), 1))


def test_equal_run_time_sizes_combine():
    total = truncated(np.arange(5.0), 2) + truncated(np.arange(5.0) * 10, 2)
    np.testing.assert_array_equal(np.asarray(total), [0.0, 11.0])


def test_gradients_through_a_truncation():
    n = T(np.int64(2))
    g = tf8.grad(lambda x: tnp.sum(apply1("dynamic_truncate", [x, n], axis=0) ** 2))(np.arange(4.0))
    np.testing.assert_array_equal(g, [0.0, 2.0, 0.0, 0.0])
    out, vjp_fun = tf8.vjp(lambda x: apply1("dynamic_truncate", [x, n], axis=0), np.arange(4.0))
    np.testing.assert_array_equal(out, [0.0, 1.0])
    np.testing.assert_array_equal(vjp_fun(np.ones(2))[0], [1.0, 1.0, 0.0, 0.0])
    with pytest.raises(ShapeError, match=r"cotangent shape \(3,\).*output shape \(2,\)"):
        vjp_fun(np.ones(3))
