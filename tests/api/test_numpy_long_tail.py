"""numpy's long tail in tf8.numpy (issue 15): append, rollaxis, select, interp, convolve,
correlate, gradient, histogram, r_/c_, ix_, index helpers, einsum_path, fft helpers — each
against numpy, with derivatives checked numerically where they exist."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 4))


def same(ours, theirs):
    ours = np.asarray(ours)
    assert ours.shape == np.shape(theirs)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_append_rollaxis_select():
    same(tnp.append(X, [1, 2]), np.append(X, [1, 2]))
    same(tnp.append(X, X, axis=1), np.append(X, X, axis=1))
    y = np.zeros((2, 3, 4, 5))
    for axis in range(-4, 4):
        for start in range(-4, 5):
            assert tnp.rollaxis(y, axis, start).shape == np.rollaxis(y, axis, start).shape
    conds, choices = [X > 0.5, X < -0.5], [X, X**2]
    same(tnp.select(conds, choices, 7.0), np.select(conds, choices, 7.0))
    grad = tf8.grad(lambda x: tnp.select([x > 0.5, x < -0.5], [x, x**2], 7.0).sum())(X)
    same(grad, np.select(conds, [np.ones_like(X), 2 * X], 0.0))


@given(seed=st.integers(0, 2**16), n=st.integers(1, 7), m=st.integers(1, 7))
def test_convolve_and_correlate_match_numpy(seed, n, m):
    rng = np.random.default_rng(seed)
    a, v = rng.normal(size=n), rng.normal(size=m) + 1j * rng.normal(size=m)
    for mode in ("full", "same", "valid"):
        same(tnp.convolve(a, v.real, mode), np.convolve(a, v.real, mode))
        same(tnp.correlate(a, v, mode), np.correlate(a, v, mode))
        same(tnp.correlate(v, a, mode), np.correlate(v, a, mode))


def test_convolve_derivatives_and_vmap():
    a, v = RNG.normal(size=7), RNG.normal(size=3)
    tf8.check_grads(lambda a, v: tnp.convolve(a, v, "same"), (a, v), order=2)
    tf8.check_grads(lambda a, v: tnp.correlate(a, v, "full"), (a, v), order=1)
    batch = np.stack([a, 2 * a])
    same(tf8.vmap(lambda r: tnp.convolve(r, v))(batch), [np.convolve(r, v) for r in batch])


def test_interp():
    xp, fp = np.sort(RNG.normal(size=6)), RNG.normal(size=6)
    q = np.concatenate([RNG.normal(size=20) * 2, xp, [xp[0] - 1, xp[-1] + 1]])
    same(tnp.interp(q, xp, fp), np.interp(q, xp, fp))
    same(tnp.interp(q, xp, fp, left=-9, right=9), np.interp(q, xp, fp, left=-9, right=9))
    same(tnp.interp(q, xp, fp + 1j * fp), np.interp(q, xp, fp + 1j * fp))
    same(tnp.interp(q * 5, xp * 40, fp, period=90), np.interp(q * 5, xp * 40, fp, period=90))
    same(tf8.jit(tnp.interp)(q, xp, fp), np.interp(q, xp, fp))
    inner = RNG.uniform(xp[0] + 1e-3, xp[-1] - 1e-3, size=8)
    tf8.check_grads(lambda q, xp, fp: tnp.interp(q, xp, fp), (inner, xp, fp), order=1)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient(edge_order):
    f = RNG.normal(size=(5, 6))
    coords = np.cumsum(RNG.uniform(0.5, 1.5, size=6))
    for ours, theirs in zip(
        tnp.gradient(f, edge_order=edge_order), np.gradient(f, edge_order=edge_order)
    ):
        same(ours, theirs)
    same(
        tnp.gradient(f, 2.0, coords, edge_order=edge_order)[1],
        np.gradient(f, 2.0, coords, edge_order=edge_order)[1],
    )
    same(
        tnp.gradient(f, coords, axis=1, edge_order=edge_order),
        np.gradient(f, coords, axis=1, edge_order=edge_order),
    )
    same(tnp.gradient(np.arange(5) ** 2), np.gradient(np.arange(5) ** 2))
    tf8.check_grads(
        lambda f, c: tnp.gradient(f, c, axis=1, edge_order=edge_order), (f, coords), order=1
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"bins": 7},
        {"bins": 5, "range": (-1, 1)},
        {"bins": [-2, -1, 0, 0.5, 3]},
        {"bins": 4, "density": True},
        {"bins": 4, "weights": "abs"},
    ],
)
def test_histogram(kwargs):
    data = RNG.normal(size=100)
    if kwargs.get("weights") == "abs":
        kwargs = {**kwargs, "weights": np.abs(data)}
    (counts, edges), (expected, expected_edges) = (
        tnp.histogram(data, **kwargs),
        np.histogram(data, **kwargs),
    )
    same(counts, expected)
    same(edges, expected_edges)
    assert np.asarray(counts).dtype == np.float64  # jax.numpy: a's inexact dtype, not int64
    jitted = tf8.jit(lambda d: tnp.histogram(d, **kwargs))(data)
    same(jitted[0], expected)


def test_histogram_degenerate_range_and_weights_gradient():
    same(tnp.histogram(np.ones(4), 2)[1], np.histogram(np.ones(4), 2)[1])
    data = RNG.normal(size=30)
    tf8.check_grads(lambda w: tnp.histogram(data, 4, weights=w)[0], (np.abs(data),), order=1)
    with pytest.raises(tf8.errors.UnsupportedOperationError, match="auto"):
        tnp.histogram(data, "auto")


def test_r_and_c_():
    same(tnp.r_[1:4, 0, np.array([7, 8])], np.r_[1:4, 0, np.array([7, 8])])
    same(tnp.r_[0:1:5j], np.r_[0:1:5j])
    same(tnp.r_["-1", X, X], np.r_["-1", X, X])
    same(tnp.r_["0,2", [1, 2], [3, 4]], np.r_["0,2", [1, 2], [3, 4]])
    same(tnp.r_["0,2,0", [1, 2], [3, 4]], np.r_["0,2,0", [1, 2], [3, 4]])
    same(tnp.c_[np.arange(3), np.ones(3)], np.c_[np.arange(3), np.ones(3)])
    same(tnp.c_[X, X], np.c_[X, X])
    t = tnp.asarray([1.0, 2.0])
    same(tf8.grad(lambda v: (tnp.r_[v, 3.0, v] ** 2).sum())(t), [4.0, 8.0])


def test_index_helpers():
    for ours, theirs in zip(tnp.ix_([0, 2], [1, 3, 0]), np.ix_([0, 2], [1, 3, 0])):
        same(ours, theirs)
    same(tnp.asarray(X)[tnp.ix_([0, 2], [1, 3])], X[np.ix_([0, 2], [1, 3])])
    same(tnp.ix_(np.array([True, False, True]))[0], np.ix_(np.array([True, False, True]))[0])
    cases = [
        (tnp.tril_indices(4, -1, 5), np.tril_indices(4, -1, 5)),
        (tnp.triu_indices(4, 1), np.triu_indices(4, 1)),
        (tnp.tril_indices_from(X), np.tril_indices_from(X)),
        (tnp.triu_indices_from(X, 1), np.triu_indices_from(X, 1)),
        (tnp.diag_indices(3, 3), np.diag_indices(3, 3)),
        (tnp.diag_indices_from(np.zeros((2, 2))), np.diag_indices_from(np.zeros((2, 2)))),
    ]
    for ours, theirs in cases:
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            same(o, t)
    path, report = tnp.einsum_path("ij,jk,kl->il", X, X.T, X, optimize="greedy")
    # jax.numpy's path (opt_einsum's) has no leading 'einsum_path' marker
    assert path == np.einsum_path("ij,jk,kl->il", X, X.T, X, optimize="greedy")[0][1:]
    assert "Optimized" in report
    sparse = tnp.meshgrid(np.arange(3), np.arange(4), sparse=True)
    for ours, theirs in zip(sparse, np.meshgrid(np.arange(3), np.arange(4), sparse=True)):
        same(ours, theirs)


def test_fft_helpers():
    x = np.arange(24.0).reshape(4, 6)
    for axes in (None, 0, (1,), (0, 1)):
        same(tnp.fft.fftshift(x, axes), np.fft.fftshift(x, axes))
        same(tnp.fft.ifftshift(x[:, :5], axes), np.fft.ifftshift(x[:, :5], axes))
    same(tnp.fft.fftfreq(7, 0.1), np.fft.fftfreq(7, 0.1))
    same(tnp.fft.rfftfreq(8, 2), np.fft.rfftfreq(8, 2))
    assert tnp.fft.fftfreq(4, dtype=tnp.float32).dtype == np.float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert isinstance(np.fft.fftshift(tnp.asarray(x)), tnp.ndarray)  # numpy dispatch
    tf8.check_grads(lambda v: tnp.fft.fftshift(v), (x,), order=1)


@given(
    seed=st.integers(0, 2**16),
    n=st.integers(2, 8),
    bins=st.integers(1, 6),
    edge_order=st.sampled_from([1, 2]),
)
def test_interp_histogram_gradient_match_numpy(seed, n, bins, edge_order):
    rng = np.random.default_rng(seed)
    xp = np.cumsum(rng.uniform(0.1, 2.0, size=n))
    fp, q = rng.normal(size=n), rng.uniform(xp[0] - 1, xp[-1] + 1, size=10)
    same(tnp.interp(q, xp, fp), np.interp(q, xp, fp))
    data = rng.normal(size=25)
    counts, edges = tnp.histogram(data, bins)
    expected, expected_edges = np.histogram(data, bins)
    same(counts, expected)
    same(edges, expected_edges)
    if n > edge_order:
        f = rng.normal(size=(2, n))
        same(
            tnp.gradient(f, xp, axis=1, edge_order=edge_order),
            np.gradient(f, xp, axis=1, edge_order=edge_order),
        )


def test_interp_keeps_the_inputs_precision_as_jax():
    """jax.numpy's dtypes: x and xp in their common inexact dtype, fp in its own (numpy
    computes in float64 whatever the inputs); values are numpy's."""
    q, xp, fp = np.float32([0.25, 0.5, 2.0]), np.float32([0.0, 1.0]), np.float32([0.0, 2.0])
    out = tnp.interp(q, xp, fp)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.interp(q, xp, fp), rtol=1e-7)
    assert tnp.interp(q, xp, fp.astype(np.complex64)).dtype == np.complex64
    ramp = tnp.interp(np.array([-1.0, 3.0]), xp, fp, left="extrapolate", right="extrapolate")
    np.testing.assert_allclose(ramp, [-2.0, 6.0])  # the end segments carried on


def test_interp_period_traced_and_differentiable():
    x, xp, fp = np.array([-0.5, 0.25, 2.75]), np.array([0.5, 0.0, 2.0]), np.array([1.0, 0.0, 4.0])
    expected = np.interp(x, xp, fp, period=3.0)
    np.testing.assert_allclose(tnp.interp(x, xp, fp, period=3.0), expected)
    jitted = tf8.jit(lambda a, b, c: tnp.interp(a, b, c, period=3.0))(x, xp, fp)
    np.testing.assert_allclose(jitted, expected)
    tf8.check_grads(lambda b, c: tnp.interp(x, b, c, period=3.0), (xp, fp), order=1)


def test_convolve_accepts_and_ignores_jax_precision_options():
    """A deliberate difference (README): precision= and preferred_element_type= are accepted
    for JAX's sake and change nothing; the result keeps the operands' dtype."""
    a, v = np.float32([1.0, 2.0, 3.0]), np.float32([1.0, -1.0])
    for f in (tnp.convolve, tnp.correlate):
        plain = f(a, v)
        tuned = f(a, v, precision="highest", preferred_element_type=np.float64)
        assert plain.dtype == tuned.dtype == np.float32
        np.testing.assert_array_equal(tuned, plain)
