"""The extension families (einsum, fft, linalg) and custom_jvp / custom_vjp / stop_gradient
batch like a Python loop over the examples, with some arguments unbatched."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp
from tf8.errors import NoBatchingRule
from tf8.ops.extension import ExtensionOp

FEW = settings(max_examples=max(2, settings.default.max_examples // 5))
SEEDS = st.integers(0, 2**32 - 1)


def _spd(rng, n):
    a = rng.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def _loop(fun, in_axes, args, size):
    outs = []
    for b in range(size):
        example = [x if a is None else np.take(x, b, axis=a) for x, a in zip(args, in_axes)]
        outs.append(fun(*example))
    return tf8.tree.tree_map(lambda *leaves: np.stack([np.asarray(v) for v in leaves]), *outs)


def _check(fun, in_axes, args, size, rtol=1e-9):
    expected = _loop(fun, in_axes, args, size)
    for got in (tf8.vmap(fun, in_axes)(*args), tf8.jit(tf8.vmap(fun, in_axes))(*args)):
        for g, e in zip(tf8.tree.tree_leaves(got), tf8.tree.tree_leaves(expected)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=rtol, atol=1e-9)


# name -> (function, argument makers (rng, batch size or None) -> array, ...)
def _matrix(kind="any"):
    def make(rng, size, n=3):
        shape = (n, n) if size is None else (size, n, n)
        if kind == "spd":
            return np.stack([_spd(rng, n) for _ in range(size or 1)]).reshape(shape)
        return rng.normal(size=shape)

    return make


def _rhs(rng, size, n=3, k=2):
    return rng.normal(size=(n, k) if size is None else (size, n, k))


def _vector(rng, size, n=8):
    return rng.normal(size=(n,) if size is None else (size, n))


CASES = {
    "einsum": (lambda a, b: tnp.einsum("ij,jk->ik", a, b), [_matrix(), _rhs]),
    "einsum3": (
        lambda a, b: tnp.einsum("ij,jk,ik->k", a, b, b[:, :1] + a[:, :2]),
        [_matrix(), _rhs],
    ),
    "fft": (lambda v: tf8.numpy.fft.fft(v), [_vector]),
    "rfft": (lambda v: tf8.numpy.fft.rfft(v), [_vector]),
    "irfft": (lambda v: tf8.numpy.fft.irfft(tf8.numpy.fft.rfft(v)), [_vector]),
    "fft2": (lambda a: tf8.numpy.fft.ifft(a, axis=0), [_rhs]),
    "inv": (lambda a: tnp.linalg.inv(a), [_matrix("spd")]),
    "solve": (lambda a, b: tnp.linalg.solve(a, b), [_matrix("spd"), _rhs]),
    "det": (lambda a: tnp.linalg.det(a), [_matrix()]),
    "slogdet": (lambda a: tnp.linalg.slogdet(a)[1], [_matrix()]),
    "cholesky": (lambda a: tnp.linalg.cholesky(a), [_matrix("spd")]),
    "eigvalsh": (lambda a: tnp.linalg.eigvalsh(a), [_matrix("spd")]),
    "svdvals": (lambda a: tnp.linalg.svd(a, compute_uv=False), [_matrix()]),
    "qr": (lambda a: tnp.abs(tnp.linalg.qr(a)[1]), [_matrix()]),
    "pinv": (lambda a: tnp.linalg.pinv(a), [_rhs]),
    "lstsq": (lambda a, b: tnp.linalg.lstsq(a, b)[0], [_matrix("spd"), _rhs]),
    "expm": (lambda a: tf8.scipy.linalg.expm(0.3 * a), [_matrix()]),
    "solve_triangular": (
        lambda a, b: tf8.scipy.linalg.solve_triangular(a, b, lower=True),
        [_matrix("spd"), _rhs],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
@FEW
@given(seed=SEEDS)
def test_family_batches_like_a_loop(name, seed):
    fun, makers = CASES[name]
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 4))
    batched = [bool(rng.integers(2)) for _ in makers]
    if not any(batched):
        batched[int(rng.integers(len(makers)))] = True
    args, in_axes = [], []
    for make, is_batched in zip(makers, batched):
        x = make(rng, size if is_batched else None)
        axis = int(rng.integers(0, x.ndim)) if is_batched else None
        args.append(x if axis is None else np.moveaxis(x, 0, axis))
        in_axes.append(axis)
    _check(fun, tuple(in_axes), args, size, rtol=1e-7)


# --- custom rules ----------------------------------------------------------------------------


@tf8.custom_jvp
def softplus(x):
    return tnp.log1p(tnp.exp(x))


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t / (1 + tnp.exp(-x))


@tf8.custom_vjp
def scaled(x, w):
    return x * w


def _scaled_fwd(x, w):
    return x * w, (x, w)


def _scaled_bwd(res, ct):
    x, w = res
    return ct * w, tnp.sum(ct * x) * tnp.ones_like(w) if w.ndim else tnp.sum(ct * x)


scaled.defvjp(_scaled_fwd, _scaled_bwd)


def test_custom_jvp_under_vmap_and_grad():
    xs = np.linspace(-2, 2, 5)
    np.testing.assert_allclose(tf8.vmap(softplus)(xs), np.log1p(np.exp(xs)))
    g = tf8.vmap(tf8.grad(softplus))(xs)
    np.testing.assert_allclose(g, 1 / (1 + np.exp(-xs)))
    g2 = tf8.grad(lambda v: tnp.sum(tf8.vmap(softplus)(v)))(xs)
    np.testing.assert_allclose(g2, 1 / (1 + np.exp(-xs)))
    _, t = tf8.jvp(tf8.vmap(softplus), (xs,), (np.ones(5),))
    np.testing.assert_allclose(t, 1 / (1 + np.exp(-xs)))


def test_custom_vjp_under_vmap_and_grad():
    xs, w = np.linspace(-2, 2, 5), 3.0
    np.testing.assert_allclose(tf8.vmap(scaled, (0, None))(xs, w), xs * w)
    gx = tf8.vmap(tf8.grad(scaled), (0, None))(xs, w)
    np.testing.assert_allclose(gx, np.full(5, w))
    gw = tf8.grad(lambda w: tnp.sum(tf8.vmap(scaled, (0, None))(xs, w)), argnums=0)(w)
    np.testing.assert_allclose(gw, np.sum(xs))  # an unbatched argument's cotangent sums


def test_stop_gradient_under_vmap():
    xs = np.linspace(-1, 1, 4)
    f = tf8.vmap(lambda x: x * tf8.stop_gradient(x))
    np.testing.assert_allclose(f(xs), xs * xs)
    np.testing.assert_allclose(tf8.grad(lambda v: tnp.sum(f(v)))(xs), xs)


# --- a user-defined family --------------------------------------------------------------------


class Twice(ExtensionOp):
    family = "tests.twice.v1"
    name = "twice"

    def infer(self, avals, guards):
        return (avals[0],)

    def kernel(self, op, x):
        return 2 * x


class BatchedTwice(Twice):
    name = "batched_twice"

    def batch(self, op, args, dims):
        return [tf8.lax.core.apply(op, args)[0]], list(dims)


def test_a_family_without_a_batching_rule_names_itself_and_the_fix():
    fun = tf8.vmap(lambda x: tf8.lax.core.apply(Twice((), 1), [x])[0])
    with pytest.raises(NoBatchingRule, match=r"twice.*tests\.twice\.v1.*batch\(self, op, args"):
        fun(np.ones((2, 3)))


def test_a_family_brings_its_batching_rule_as_a_method_or_registers_one():
    def apply_twice(cls):
        return lambda x: tf8.lax.core.apply(cls((), 1), [x])[0]

    np.testing.assert_allclose(tf8.vmap(apply_twice(BatchedTwice))(np.ones((2, 3))), 2.0)
    from tf8.ad.batching import register_batching_rule, unregister_batching_rule

    def rule(op, args, dims):
        return [tf8.lax.core.apply(op, args)[0]], list(dims)

    register_batching_rule(Twice, rule)
    try:
        np.testing.assert_allclose(tf8.vmap(apply_twice(Twice))(np.ones((2, 3))), 2.0)
    finally:
        unregister_batching_rule(Twice)
