"""What a scan's body computes for no later iteration runs outside the loop (issue 32,
tf8.ad.control.hoist): the ys its carries do not need, and the sums an accumulating carry
collects (a parameter's gradient in a reverse loop). Each test checks the compiled program's
loop bodies and the values, against Python loops, the closed-form BPTT and finite
differences."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import tf8
import tf8.lax as lax
import tf8.numpy as tnp
from tf8.ad.control import hoist
from tf8.ops.extension.control import ControlOp, Scan

RNG = np.random.default_rng(7)
W = RNG.standard_normal((4, 4)) * 0.4
XS = RNG.standard_normal((9, 4)) * 0.5


def _scans(program) -> list:
    return [op for op in program.ops if type(op) is Scan]


def _body_ops(scan: Scan) -> list[str]:
    body = scan.payload[0]
    ops = tf8.graph.materialize_merge(None, list(body.outputs)).operations
    return [getattr(o.op, "name", type(o.op).__name__) for o in ops]


def rnn(w, xs):
    def step(h, x):
        h = tnp.tanh(w @ h + x)
        return h, tnp.sum(h)

    h, ys = lax.scan(step, tnp.zeros(4), xs)
    return tnp.sum(ys) + tnp.sum(h * h)


def rnn_numpy(w, xs):
    hs = [np.zeros(4)]
    for x in xs:
        hs.append(np.tanh(w @ hs[-1] + x))
    dw, dh = np.zeros_like(w), 1.0 + 2.0 * hs[-1]
    for t in range(len(xs), 0, -1):
        da = dh * (1.0 - hs[t] ** 2)
        dw += np.outer(da, hs[t - 1])
        dh = w.T @ da + 1.0
    return float(np.sum(hs[1:]) + hs[-1] @ hs[-1]), dw


def test_the_rnn_gradient_keeps_only_the_recurrences_in_its_loops():
    program = tf8.make_program(tf8.value_and_grad(rnn))(W, XS)
    forward, backward = _scans(program)
    assert not forward.payload[4] and backward.payload[4]  # one forward, one reverse loop
    # the forward loop: no sum of h, no 1 - h² residual; the reverse: no outer product
    assert sorted(_body_ops(forward)) == ["add", "dot_general", "tanh"]
    assert "reduce_sum" not in _body_ops(forward) and "mul" not in _body_ops(forward)
    assert _body_ops(backward).count("dot_general") == 1  # wᵀ·da only
    assert backward.payload[2] == 1  # one carry: dh (the gradient of w left the loop)
    value, grad = tf8.jit(tf8.value_and_grad(rnn))(W, XS)
    expected_value, expected_grad = rnn_numpy(W, XS)
    np.testing.assert_allclose(float(value), expected_value, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(grad), expected_grad, rtol=1e-10, atol=1e-13)


def test_the_program_size_does_not_depend_on_the_trip_count():
    sizes = [
        len(tf8.make_program(tf8.value_and_grad(rnn))(W, RNG.standard_normal((n, 4))).ops)
        for n in (10, 10_000)
    ]
    assert sizes[0] == sizes[1]


def test_rk4_gradient_accumulators_leave_the_reverse_loop():
    def loss(w1, b1, w2):
        def f(y):
            return w2 @ tnp.tanh(w1 @ y + b1)

        def step(_, y):
            k1 = f(y)
            k2 = f(y + 0.05 * k1)
            return y + 0.1 * (k1 + k2) / 2

        return tnp.sum(lax.fori_loop(0, 6, step, tnp.asarray([1.0, 0.0])) ** 2)

    args = (RNG.standard_normal((5, 2)), RNG.standard_normal(5) * 0.1, RNG.standard_normal((2, 5)))
    program = tf8.make_program(tf8.grad(loss, argnums=(0, 1, 2)))(*args)
    forward, backward = _scans(program)
    assert forward.payload[2] == 1  # y only: the unread step counter left the loop
    assert backward.payload[2] == 1  # dy only: w1's, b1's and w2's sums left the loop
    grads = tf8.jit(tf8.grad(loss, argnums=(0, 1, 2)))(*args)
    for i, g in enumerate(grads):
        e = np.zeros_like(args[i])
        for j in np.ndindex(e.shape):
            d = np.zeros_like(args[i])
            d[j] = 1e-6
            plus = [a + d if k == i else a for k, a in enumerate(args)]
            minus = [a - d if k == i else a for k, a in enumerate(args)]
            e[j] = (float(loss(*plus)) - float(loss(*minus))) / 2e-6
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("reverse", [False, True])
def test_tail_ys_equal_a_python_loop(reverse):
    c0, a = np.array([0.3, -0.2, 0.1, 0.5]), np.array([0.9, 0.7, 1.1, 0.8])

    def f(c0, xs):
        def step(c, x):
            new = tnp.tanh(a * c + x)
            # ys: a reduction of the carry on entry, a view of it, one of xs alone, a constant,
            # one of the carry on exit, and the carry itself
            ys = (tnp.sum(c * c), c.reshape(2, 2), x * 2.0, tnp.ones(3), tnp.cos(new) * x, new)
            return new, ys

        return lax.scan(step, c0, xs, reverse=reverse)

    def loop(c0, xs):
        c, ys = c0, []
        order = range(len(xs) - 1, -1, -1) if reverse else range(len(xs))
        by_index = {}
        for i in order:
            new = np.tanh(a * c + xs[i])
            by_index[i] = (np.sum(c * c), c.reshape(2, 2), xs[i] * 2.0, np.ones(3))
            by_index[i] += (np.cos(new) * xs[i], new)
            c = new
        for i in range(len(xs)):
            ys.append(by_index[i])
        return c, tuple(np.stack(v) for v in zip(*ys))

    program = tf8.make_program(f)(c0, XS)
    (scan,) = _scans(program)
    assert "cos" not in _body_ops(scan) and "reduce_sum" not in _body_ops(scan)
    for run in (tf8.jit(f), f):
        c, ys = run(c0, XS)
        ec, eys = loop(c0, XS)
        np.testing.assert_allclose(np.asarray(c), ec, rtol=1e-13)
        for y, e in zip(ys, eys):
            np.testing.assert_allclose(np.asarray(y), e, rtol=1e-13, atol=1e-15)


def test_accumulators_of_every_kind_equal_a_python_loop():
    v = RNG.standard_normal(3)

    def f(m, xs):
        def step(carry, x):
            n, s, outer, mat, h = carry
            h = tnp.tanh(m @ h + x[:3])
            outer = outer + tnp.outer(h, x)  # a dot term: stacked operands, one contraction
            mat = mat + m @ x[:3]  # one operand unbatched: m · Σ x
            return (n + 1, s + h * 2.0 + v, outer, mat, h), None

        init = (0, tnp.zeros(3), tnp.zeros((3, 4)), tnp.zeros(3), tnp.zeros(3))
        return lax.scan(step, init, xs)[0]

    m = RNG.standard_normal((3, 3)) * 0.5
    program = tf8.make_program(f)(m, XS)
    (scan,) = _scans(program)
    assert scan.payload[2] == 1  # only h recurs
    n, s, outer, mat, h = tf8.jit(f)(m, XS)
    e = [0, np.zeros(3), np.zeros((3, 4)), np.zeros(3), np.zeros(3)]
    for x in XS:
        e[4] = np.tanh(m @ e[4] + x[:3])
        e = [e[0] + 1, e[1] + e[4] * 2.0 + v, e[2] + np.outer(e[4], x), e[3] + m @ x[:3], e[4]]
    assert int(n) == len(XS) and np.asarray(n).dtype == np.int64
    for got, want in zip((s, outer, mat, h), e[1:]):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-14)


def test_a_carry_read_elsewhere_is_not_an_accumulator():
    def f(xs):
        def step(c, x):
            c2 = c + x
            return c2, c2 * c  # c is read twice: it recurs

        return lax.scan(step, tnp.ones(4), xs)

    (scan,) = _scans(tf8.make_program(f)(XS))
    assert scan.payload[2] == 1
    c, ys = tf8.jit(f)(XS)
    e, rows = np.ones(4), []
    for x in XS:
        rows.append((e + x) * e)
        e = e + x
    np.testing.assert_allclose(np.asarray(c), e, rtol=1e-13)
    np.testing.assert_allclose(np.asarray(ys), np.stack(rows), rtol=1e-13)


def test_a_body_with_effects_is_left_as_it_is():
    def f(xs):
        def step(c, x):
            tf8.debug.print("c={c}", c=c[0])
            return c + x, tnp.sum(c)

        return lax.scan(step, tnp.zeros(4), xs)

    (scan,) = _scans(tf8.make_program(f)(XS))
    assert "reduce_sum" in _body_ops(scan)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        tf8.jit(f)(XS)
    assert out.getvalue().count("c=") == len(XS)


def test_no_hoist_beyond_the_memory_bound(monkeypatch):
    monkeypatch.setattr(hoist, "MAX_EXTRA_BYTES", 64)
    program = tf8.make_program(tf8.value_and_grad(rnn))(W, XS)
    forward = _scans(program)[0]
    assert "reduce_sum" in _body_ops(forward)  # stacking h would take more than 64 bytes
    value, grad = tf8.jit(tf8.value_and_grad(rnn))(W, XS)
    np.testing.assert_allclose(np.asarray(grad), rnn_numpy(W, XS)[1], rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("length", [1, 2])
def test_short_scans(length):
    xs = XS[:length]
    value, grad = tf8.jit(tf8.value_and_grad(rnn))(W, xs)
    expected_value, expected_grad = rnn_numpy(W, xs)
    np.testing.assert_allclose(float(value), expected_value, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(grad), expected_grad, rtol=1e-10, atol=1e-13)


def test_nested_scans_and_vmap_agree_with_loops():
    def inner(w, xs):
        return rnn(w, xs)

    def outer(w, xss):
        return lax.scan(
            lambda acc, xs: (acc + tf8.grad(inner)(w, xs), None), tnp.zeros_like(w), xss
        )[0]

    xss = RNG.standard_normal((3, 5, 4)) * 0.5
    got = tf8.jit(outer)(W, xss)
    want = sum(rnn_numpy(W, xs)[1] for xs in xss)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-13)
    batched = tf8.jit(tf8.vmap(tf8.grad(rnn), in_axes=(None, 0)))(W, xss)
    for row, xs in zip(np.asarray(batched), xss):
        np.testing.assert_allclose(row, rnn_numpy(W, xs)[1], rtol=1e-10, atol=1e-13)


def test_control_ops_in_the_tail_stay_in_the_loop():
    def f(xs):
        def step(c, x):
            y = lax.cond(x[0] > 0, lambda v: v * 2.0, lambda v: v - 1.0, c)
            return c + x, y

        return lax.scan(step, tnp.zeros(4), xs)

    (scan,) = _scans(tf8.make_program(f)(XS))
    assert any(isinstance(o, ControlOp) for o in _scan_inner(scan))
    c, ys = tf8.jit(f)(XS)
    e, rows = np.zeros(4), []
    for x in XS:
        rows.append(e * 2.0 if x[0] > 0 else e - 1.0)
        e = e + x
    np.testing.assert_allclose(np.asarray(ys), np.stack(rows), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(c), e, rtol=1e-13)


def _scan_inner(scan: Scan) -> list:
    body = scan.payload[0]
    return [o.op for o in tf8.graph.materialize_merge(None, list(body.outputs)).operations]
