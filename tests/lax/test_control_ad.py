"""Derivatives through control flow: against Python loops, check_grads, closure conversion."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.lax as lax
import tf8.numpy as tnp
from tf8.errors import DifferentiationError


def _rnn(w, xs, use_scan):
    def body(c, x):
        h = tnp.tanh(c * w + x)
        return h, (h * h).sum()

    if use_scan:
        c, ys = lax.scan(body, tnp.ones(3), xs)
        return c.sum() + ys.sum()
    c, total = tnp.ones(3), 0.0
    for x in xs:
        c, y = body(c, x)
        total = total + y
    return c.sum() + total


@given(st.integers(0, 5), st.integers(0, 2**31 - 1))
def test_scan_gradients_match_the_python_loop(n, seed):
    rng = np.random.default_rng(seed)
    w, xs = rng.normal(size=3) * 0.5, rng.normal(size=(n, 3))
    for argnum in (0, 1):
        got = tf8.grad(lambda w, xs: _rnn(w, xs, True), argnum)(w, xs)
        ref = tf8.grad(lambda w, xs: _rnn(w, xs, False), argnum)(w, xs)
        np.testing.assert_allclose(got, ref, atol=1e-12)
    t = (np.ones(3), np.ones((n, 3)))
    np.testing.assert_allclose(
        tf8.jvp(lambda w, xs: _rnn(w, xs, True), (w, xs), t)[1],
        tf8.jvp(lambda w, xs: _rnn(w, xs, False), (w, xs), t)[1],
        atol=1e-12,
    )


def test_check_grads_through_scan_cond_and_fori_loop_to_order_2():
    xs = np.linspace(-1.0, 1.0, 8).reshape(4, 2)
    tf8.check_grads(
        lambda w: _rnn(tnp.concatenate([w, w[:1]]), np.ones((3, 3)), True),
        [np.array([0.3, -0.4])],
        order=2,
    )
    tf8.check_grads(
        lambda w: lax.scan(lambda c, x: (tnp.sin(c * w) + x, c), w, xs, reverse=True)[0].sum(),
        [np.array([0.3, -0.4])],
        order=2,
    )
    branchy = lambda x: lax.cond(x.sum() > 0, lambda v: tnp.sin(v) * v, lambda v: v**3, x).sum()  # noqa: E731
    tf8.check_grads(branchy, [np.array([0.5, 0.2])], order=2)
    tf8.check_grads(branchy, [np.array([-0.5, 0.2])], order=2)
    looped = lambda x: lax.fori_loop(0, 3, lambda i, v: tnp.cos(v) * x + i, x).sum()  # noqa: E731
    tf8.check_grads(looped, [np.array([0.5, 0.2])], order=2)


def test_closure_conversion_makes_captured_weights_differentiable():
    # A weight the body reads from the enclosing trace must get its gradient; were it a
    # constant of the sub-program, d/dw would be silently zero.
    def f(w):
        scale = w * 2.0  # a traced value computed outside, captured by the body

        def body(c, x):
            return c * scale + x, None

        c, _ = lax.scan(body, 1.0, np.arange(3.0))
        return lax.cond(c > 0, lambda v: v * w, lambda v: v - w, c)

    def f_py(w):
        c = 1.0
        for x in np.arange(3.0):
            c = c * w * 2.0 + x
        return c * w if c > 0 else c - w

    for w in (0.7, -1.3):
        assert np.isclose(tf8.grad(f)(w), tf8.grad(f_py)(w))
        assert np.isclose(tf8.jit(tf8.grad(f))(w), tf8.grad(f_py)(w))
    assert tf8.grad(f)(0.7) != 0.0


def test_grad_of_scan_of_cond_and_scan_of_scan():
    def f(x):
        def body(c, y):
            c = lax.cond(y > 0, lambda v: v * y, lambda v: tnp.sin(v), c)
            inner, _ = lax.scan(lambda k, z: (k + z * c, None), c, tnp.ones(2))
            return inner, None

        return lax.scan(body, x, np.array([0.5, -1.0, 2.0]))[0]

    def f_py(x):
        c = x
        for y in (0.5, -1.0, 2.0):
            c = c * y if y > 0 else tnp.sin(c)
            c = c + c + c
        return c

    np.testing.assert_allclose(tf8.grad(f)(0.3), tf8.grad(f_py)(0.3))
    np.testing.assert_allclose(tf8.hessian(f)(0.3), tf8.hessian(f_py)(0.3))


def test_while_loop_is_forward_mode_only():
    def f(x, n):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))[1]

    primal, tangent = tf8.jvp(lambda x: f(x, 3), (2.0,), (1.0,))
    assert primal == 8.0 and tangent == 12.0
    assert np.isclose(tf8.jacfwd(lambda x: f(x, 4))(1.5), 4 * 1.5**3)
    with pytest.raises(DifferentiationError, match="while_loop"):
        tf8.grad(lambda x: f(x, 3))(2.0)
    with pytest.raises(DifferentiationError, match="while_loop"):
        tf8.jit(tf8.grad(lambda x, n: lax.fori_loop(0, n, lambda i, v: v * x, x)))(2.0, 3)


def test_map_gradient():
    xs = np.linspace(0.1, 1.0, 4)
    g = tf8.grad(lambda xs: lax.map(lambda x: tnp.sin(x) * x, xs).sum())(xs)
    np.testing.assert_allclose(g, np.cos(xs) * xs + np.sin(xs))
