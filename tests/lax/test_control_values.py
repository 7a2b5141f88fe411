"""tf8.lax control flow against the Python loop it stands for: values, eager and under jit."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.lax as lax
import tf8.numpy as tnp


def _body(c, x):
    a, b = c["a"], c["b"]
    a = tnp.tanh(a * 0.7 + x[0])
    return {"a": a, "b": b + a.sum()}, (a * 2.0, x[1] - b)


def _python_scan(f, init, xs, n, reverse=False):
    carry, ys = init, []
    order = range(n - 1, -1, -1) if reverse else range(n)
    for i in order:
        carry, y = f(carry, [x[i] for x in xs])
        ys.append(y)
    if reverse:
        ys = ys[::-1]
    return carry, ys


@given(st.integers(0, 6), st.booleans(), st.integers(0, 2**31 - 1))
def test_scan_matches_its_python_loop(n, reverse, seed):
    rng = np.random.default_rng(seed)
    init = {"a": rng.normal(size=3), "b": np.float64(rng.normal())}
    xs = [rng.normal(size=(n, 3)), rng.normal(size=(n,))]
    carry, ys = lax.scan(_body, init, xs, reverse=reverse)
    ref_carry, ref_ys = _python_scan(_body, init, xs, n, reverse)
    np.testing.assert_allclose(np.asarray(carry["a"]), np.asarray(ref_carry["a"]), atol=1e-12)
    np.testing.assert_allclose(np.asarray(carry["b"]), np.asarray(ref_carry["b"]), atol=1e-12)
    assert np.asarray(ys[0]).shape == (n, 3) and np.asarray(ys[1]).shape == (n,)
    if n:
        np.testing.assert_allclose(np.asarray(ys[0]), np.stack([np.asarray(y[0]) for y in ref_ys]))
        np.testing.assert_allclose(np.asarray(ys[1]), np.stack([np.asarray(y[1]) for y in ref_ys]))
    jitted = tf8.jit(lambda init, xs: lax.scan(_body, init, xs, reverse=reverse))
    j_carry, j_ys = jitted(init, xs)
    np.testing.assert_allclose(j_carry["a"], np.asarray(carry["a"]), atol=1e-12)
    np.testing.assert_allclose(j_ys[0], np.asarray(ys[0]), atol=1e-12)


def test_scan_length_zero_returns_init_and_empty_ys():
    carry, ys = lax.scan(lambda c, x: (c + x, c * x), 1.5, np.zeros((0,)))
    assert float(carry) == 1.5 and np.asarray(ys).shape == (0,)
    carry, ys = lax.scan(lambda c, _: (c + 1.0, c), 2.0, length=0)
    assert float(carry) == 2.0 and np.asarray(ys).shape == (0,)


def test_scan_with_length_and_no_xs():
    carry, ys = lax.scan(lambda c, _: (c * 2.0, c), 1.0, length=4)
    assert float(carry) == 16.0
    np.testing.assert_array_equal(np.asarray(ys), [1.0, 2.0, 4.0, 8.0])


@given(st.integers(-3, 8), st.integers(-3, 8))
def test_fori_loop_matches_range(lower, upper):
    def body(i, v):
        return v * 1.5 + i

    expected = 0.25
    for i in range(lower, upper):
        expected = expected * 1.5 + i
    assert np.isclose(float(lax.fori_loop(lower, upper, body, 0.25)), expected)
    traced_bounds = tf8.jit(lambda lo, hi: lax.fori_loop(lo, hi, body, 0.25))
    assert np.isclose(traced_bounds(np.int64(lower), np.int64(upper)), expected)


@given(st.integers(0, 20))
def test_while_loop_matches_python_while(limit):
    def cond(c):
        return c[0] < limit

    def body(c):
        return c[0] + 3, c[1] * 1.1

    i, v = lax.while_loop(cond, body, (0, 1.0))
    j, w = 0, 1.0
    while j < limit:
        j, w = j + 3, w * 1.1
    assert int(i) == j and np.isclose(float(v), w)


def test_cond_and_switch_pick_their_branch():
    branches = [lambda x: x + 1.0, lambda x: x * 10.0, lambda x: -x]
    for index, expected in [(-5, 3.0), (0, 3.0), (1, 20.0), (2, -2.0), (9, -2.0)]:
        assert float(lax.switch(index, branches, 2.0)) == expected
    assert float(lax.cond(True, lambda x: x + 1, lambda x: x - 1, 5.0)) == 6.0
    assert float(lax.cond(0, lambda x: x + 1, lambda x: x - 1, 5.0)) == 4.0
    assert float(lax.cond(np.int32(-2), lambda x: x + 1, lambda x: x - 1, 5.0)) == 6.0
    f = tf8.jit(lambda p, x: lax.cond(p > 0, lambda x: x * 2, lambda x: x - 1, x))
    assert f(1.0, 3.0) == 6.0 and f(-1.0, 3.0) == 2.0 and f.trace_count == 1


def test_map_and_nesting():
    xs = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(
        np.asarray(lax.map(lambda x: tnp.sin(x).sum(), xs)), np.sin(xs).sum(1)
    )

    def outer(c, x):  # a scan inside a scan inside a cond
        inner, _ = lax.scan(lambda k, y: (k * y, None), c, x)
        return lax.cond(inner.sum() > 1.0, lambda v: v * 0.5, lambda v: v + 1.0, inner), inner

    carry, ys = lax.scan(outer, np.ones(2), np.linspace(0.5, 1.5, 12).reshape(3, 2, 2))
    c, ref = np.ones(2), []
    for x in np.linspace(0.5, 1.5, 12).reshape(3, 2, 2):
        inner = c * x[0] * x[1]
        ref.append(inner)
        c = inner * 0.5 if inner.sum() > 1.0 else inner + 1.0
    np.testing.assert_allclose(np.asarray(carry), c)
    np.testing.assert_allclose(np.asarray(ys), np.stack(ref))


def test_weak_scalar_init_promotes_like_jax():
    out = lax.fori_loop(0, 3, lambda i, x: x + np.float32(1), 0)
    assert np.asarray(out).dtype == np.float32 and float(out) == 3.0
    carry, _ = lax.scan(lambda c, x: (c + x, None), 0, np.ones(3, np.float32))
    assert np.asarray(carry).dtype == np.float32


def test_bodies_are_always_traced_even_eagerly():
    import pytest

    from tf8.errors import ConcretizationError

    with pytest.raises(ConcretizationError):
        lax.scan(lambda c, x: (c + float(x), None), 0.0, np.ones(3))
