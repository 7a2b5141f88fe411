"""Evaluation without the compiler or runtime (tf8.ops.evaluate): a recorded value is computed
by its ops' kernels, learning sizes known only at run time; a control-flow body runs as one
generated function until a runtime preparing a program that holds it hands it its own."""

from __future__ import annotations

import numpy as np

import tf8
import tf8.numpy as tnp
from tf8 import lax
from tf8.lax.core import apply1
from tf8.ops.evaluate import evaluate, program_function

X = np.array([0.5, -1.0, 2.0, 0.0, 3.0])


def _recorded(fun, *args):
    with tf8.recording():
        return fun(*[tf8.tensor(a) for a in args])


def test_a_recorded_value_is_the_runtimes_value():
    y = _recorded(lambda x: tnp.sum(tnp.sin(x) * x + 1.0), X)
    (expected,) = tf8.evaluate([y])
    (found,) = evaluate([y.key], y._bindings)
    np.testing.assert_allclose(found, expected, rtol=1e-15)
    np.testing.assert_allclose(np.asarray(y), np.sum(np.sin(X) * X + 1.0), rtol=1e-15)


def test_sizes_known_only_at_run_time_are_learnt_from_the_arrays():
    def f(x, n):  # cut to a size the program computes, then reshape and broadcast by it
        cut = apply1("dynamic_truncate", [x, n], axis=0)
        return tnp.reshape(cut * 2.0, (1, -1)) + tnp.ones_like(cut)

    y = f(tf8.tensor(X), tf8.tensor(np.int64(3)))  # eager: recorded, its size unknown
    assert not isinstance(y.shape[1], int)
    (found,) = evaluate([y.key], y._bindings)
    np.testing.assert_array_equal(found, X[None, :3] * 2.0 + 1.0)
    np.testing.assert_array_equal(np.asarray(y), found)


def _body(i, c):
    # 1.25 and its broadcast: constants, folded once; the loop reads i (a counter nothing
    # reads would leave the loop: tf8.ad.control.hoist)
    return c * 0.5 + tnp.sin(c) * 1.25 + i


def _program(y):
    return next(iter(y.key.operation.op.subprograms))


def test_a_body_runs_as_one_function_until_a_runtime_hands_it_its_own():
    y = _recorded(lambda x: lax.fori_loop(0, 3, _body, x), X)
    body = _program(y)
    run = program_function(body.inputs, body.outputs)
    c = X.copy()
    for i in range(3):
        c = c * 0.5 + np.sin(c) * 1.25 + i
    np.testing.assert_allclose(np.asarray(lax.fori_loop(0, 3, _body, tf8.tensor(X))), c)
    assert not body._handed  # eager: the generated function
    np.testing.assert_allclose(run([np.int64(0), X])[1], X * 0.5 + np.sin(X) * 1.25)
    np.testing.assert_allclose(tf8.jit(lambda x: lax.fori_loop(0, 3, _body, x))(X), c)
    assert body._handed  # the runtime that prepared jit's program handed it its runner
    np.testing.assert_allclose(np.asarray(lax.fori_loop(0, 3, _body, tf8.tensor(X))), c)


def test_a_dot_general_of_a_scalar_and_an_array_is_their_product():
    s, v = np.float64(-1.5), np.arange(4.0)
    scale = lambda s, v: lax.dot_general(s, v, (((), ()), ((), ())))  # noqa: E731
    for fn in (scale, tf8.jit(scale)):
        np.testing.assert_array_equal(np.asarray(fn(s, v)), s * v)
    np.testing.assert_array_equal(
        np.asarray(tf8.jit(lambda v, s: lax.dot_general(v, s, (((), ()), ((), ()))))(v, s)), v * s
    )
    g = tf8.jit(tf8.grad(lambda q: 0.5 * tnp.dot(q, np.diag([1.0, 2, 3, 4]) @ q)))(v)
    np.testing.assert_allclose(np.asarray(g), np.array([1.0, 2, 3, 4]) * v, rtol=1e-15)
