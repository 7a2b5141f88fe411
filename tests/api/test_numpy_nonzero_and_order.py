"""nonzero / argwhere / one-argument where / boolean masks (concrete values; size= under
jit), cross with axisa/axisb/axisc, running max/min/logsumexp, and complex max/min/argmax in
numpy's lexicographic order (issue 15)."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp
from tf8.errors import ConcretizationError

X = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]])


def same(ours, theirs):
    ours = np.asarray(ours)
    assert ours.shape == np.shape(theirs)
    assert ours.dtype == np.asarray(theirs).dtype
    np.testing.assert_allclose(ours, theirs)


def test_nonzero_family_on_concrete_values():
    for ours, theirs in zip(tnp.nonzero(X), np.nonzero(X)):
        same(ours, theirs)
    for ours, theirs in zip(tnp.where(X > 0), np.where(X > 0)):
        same(ours, theirs)
    same(tnp.argwhere(X), np.argwhere(X))
    same(tnp.flatnonzero(X), np.flatnonzero(X))
    same(tnp.extract(X > 0, X), np.extract(X > 0, X))
    same(tnp.compress([True, False, True], X, axis=1), np.compress([True, False, True], X, axis=1))
    t = tnp.asarray(X)
    same(t[t > 0], X[X > 0])
    same(t[t[:, 0] > 1], X[X[:, 0] > 1])
    same(t[1, t[1] != 0], X[1, X[1] != 0])


def test_boolean_mask_is_differentiable_through_the_values():
    grad = tf8.grad(lambda v: (v[v > 0] ** 2).sum())(X)
    same(grad, np.where(X > 0, 2 * X, 0.0))
    tf8.check_grads(lambda v: v[np.abs(X) > 1] ** 3, (X,), order=2)


def test_under_jit_size_is_needed():
    with pytest.raises(ConcretizationError, match="size="):
        tf8.jit(tnp.nonzero)(X)
    with pytest.raises(ConcretizationError, match="boolean mask"):
        tf8.jit(lambda v: v[v > 0])(X)
    with pytest.raises(ConcretizationError, match="size="):
        tf8.jit(lambda v: tnp.where(v > 0))(X)
    rows, cols = tf8.jit(lambda v: tnp.nonzero(v, size=4, fill_value=-1))(X)
    same(rows, [0, 1, 1, -1])
    same(cols, [1, 0, 2, -1])
    same(tf8.jit(lambda v: tnp.argwhere(v, size=2))(X), np.argwhere(X)[:2])
    same(tf8.jit(lambda v: tnp.extract(v > 0, v, size=3, fill_value=9.0))(X), [1.5, 2.0, 9.0])
    same(tf8.vmap(lambda v: tnp.nonzero(v, size=2)[0])(X), [[1, 0], [0, 2]])


@given(seed=st.integers(0, 2**16), shape=st.lists(st.integers(1, 4), min_size=1, max_size=3))
def test_nonzero_with_size_matches_numpy_traced_and_eager(seed, shape):
    data = np.random.default_rng(seed).integers(0, 3, size=shape) * 1.0
    size = int(data.size // 2 + 1)
    expected = [np.concatenate([i, np.full(size, 7)])[:size] for i in np.nonzero(data)]
    for fn in (tnp.nonzero, tf8.jit(tnp.nonzero, static_argnames=("size", "fill_value"))):
        for ours, theirs in zip(fn(data, size=size, fill_value=7), expected):
            same(ours, theirs)


def test_cross_axes():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(3, 4, 2)), rng.normal(size=(4, 1, 3))
    for kwargs in ({"axisa": 0}, {"axisa": 0, "axisc": 0}, {"axisa": 0, "axisc": 1}):
        same(tnp.cross(a, b, **kwargs), np.cross(a, b, **kwargs))
    u, v = rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    same(tnp.cross(u, v, axis=0), np.cross(u, v, axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # numpy ≥ 2 deprecates 2-vectors
        p, q = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
        same(tnp.cross(p, q), np.cross(p, q))
        same(tnp.cross(q, p), np.cross(q, p))
    tf8.check_grads(lambda u, v: tnp.cross(u, v, axis=0), (u, v), order=1)


@pytest.mark.parametrize(
    "ours, theirs",
    [(tnp.cummax, np.maximum.accumulate), (tnp.cummin, np.minimum.accumulate)],
)
def test_running_extremes(ours, theirs):
    x = np.random.default_rng(2).normal(size=(3, 7))
    same(ours(x, axis=1), theirs(x, axis=1))
    same(ours(x, axis=0, reverse=True), theirs(x[::-1], axis=0)[::-1])
    ints = np.random.default_rng(3).integers(-5, 5, size=9)
    same(ours(ints), theirs(ints))
    tf8.check_grads(lambda v: ours(v, axis=1), (x,), order=2)
    same(tf8.vmap(lambda r: ours(r))(x), theirs(x, axis=1))


def test_cumlogsumexp():
    x = np.random.default_rng(4).normal(size=(3, 9)) * 10
    np.testing.assert_allclose(tnp.cumlogsumexp(x, axis=1), np.logaddexp.accumulate(x, axis=1))
    np.testing.assert_allclose(
        tnp.cumlogsumexp(x, axis=1, reverse=True),
        np.logaddexp.accumulate(x[:, ::-1], axis=1)[:, ::-1],
    )
    tf8.check_grads(lambda v: tnp.cumlogsumexp(v, axis=1), (x / 10,), order=2)


@given(seed=st.integers(0, 2**16), axis=st.sampled_from([None, 0, 1, (0, 1)]))
def test_complex_extremes_are_lexicographic(seed, axis):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, size=(4, 5)) + 1j * rng.integers(0, 3, size=(4, 5))
    for name in ("max", "min"):
        same(getattr(tnp, name)(z, axis=axis), getattr(np, name)(z, axis=axis))
        same(
            getattr(tnp, name)(z, axis=axis, keepdims=True),
            getattr(np, name)(z, axis=axis, keepdims=True),
        )
    if not isinstance(axis, tuple):
        for name in ("argmax", "argmin"):
            same(getattr(tnp, name)(z, axis=axis), getattr(np, name)(z, axis=axis))


def test_complex_max_derivative_flows_to_the_winner():
    x = np.array([[1.0, 3.0, 2.0], [0.5, -1.0, 0.25]])
    tf8.check_grads(lambda v: tnp.max(v * (1 + 2j), axis=1), (x,), order=1)
    grad = tf8.grad(lambda v: tnp.real(tnp.max(v * (1 + 2j))))(x)
    same(grad, np.where(x == 3.0, 1.0, 0.0))


def test_bincount():
    x, w = np.array([0, 3, 1, 3, 3, 5]), np.linspace(0, 1, 6)
    same(tnp.bincount(x), np.bincount(x))
    same(tnp.bincount(x, w), np.bincount(x, w))
    same(tnp.bincount(x, minlength=9), np.bincount(x, minlength=9))
    same(
        tf8.jit(lambda v: tnp.bincount(v, length=4))(x), np.bincount(x)[:4]
    )  # past the end: dropped
    with pytest.raises(ConcretizationError, match="length="):
        tf8.jit(tnp.bincount)(x)
    tf8.check_grads(lambda v: tnp.bincount(x, v), (w,), order=1)
