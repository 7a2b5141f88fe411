"""vmap of control flow: per-example results equal the unbatched calls."""

import numpy as np

import tf8
import tf8.lax as lax
import tf8.numpy as tnp


def _stack(f, *args):
    return np.stack([np.asarray(f(*a)) for a in zip(*args)])


def test_vmap_of_scan_batches_carry_xs_and_captures():
    def f(w, c0, xs):
        return lax.scan(lambda c, x: (c * w + x, c.sum()), c0, xs)[1]

    w, c0, xs = np.random.rand(4, 3), np.random.rand(4, 3), np.random.rand(4, 5, 3)
    np.testing.assert_allclose(tf8.vmap(f)(w, c0, xs), _stack(f, w, c0, xs))
    # only the captured weight is batched: the carry becomes batched in the body
    got = tf8.vmap(f, in_axes=(0, None, None))(w, c0[0], xs[0])
    np.testing.assert_allclose(got, _stack(lambda w: f(w, c0[0], xs[0]), w))


def test_vmap_of_cond_and_switch_with_batched_predicate():
    g = lambda p, x: lax.cond(p > 0, lambda x: x * 2, lambda x: x - 1, x)  # noqa: E731
    p, x = np.array([1.0, -1.0, 2.0, -3.0]), np.arange(4.0)
    np.testing.assert_allclose(tf8.vmap(g)(p, x), _stack(g, p, x))
    np.testing.assert_allclose(tf8.vmap(g, in_axes=(None, 0))(1.0, x), x * 2)
    h = lambda i, x: lax.switch(i, [lambda x: x + 1, lambda x: x * 10, lambda x: -x], x)  # noqa: E731
    i = np.array([0, 1, 2, 5])
    np.testing.assert_allclose(tf8.vmap(h)(i, x), _stack(h, i, x))


def test_vmap_of_while_with_batched_predicate_runs_until_all_are_done():
    w = lambda n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0), (0, 1.0))[1]  # noqa: E731
    np.testing.assert_allclose(tf8.vmap(w)(np.array([0, 1, 3, 5])), [1.0, 2.0, 8.0, 32.0])
    v = lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]  # noqa: E731
    np.testing.assert_allclose(tf8.vmap(v)(np.array([1.0, 2.0])), [1.0, 16.0])


def test_vmap_of_grad_of_scan_and_jit():
    def loss(w, xs):
        return lax.scan(lambda c, x: (tnp.tanh(c * w + x), None), 0.5, xs)[0]

    ws, xs = np.array([0.1, -0.3, 0.8]), np.random.rand(4)
    per = np.array([tf8.grad(loss)(w, xs) for w in ws])
    np.testing.assert_allclose(tf8.vmap(tf8.grad(loss), in_axes=(0, None))(ws, xs), per)
    np.testing.assert_allclose(tf8.jit(tf8.vmap(tf8.grad(loss), in_axes=(0, None)))(ws, xs), per)
