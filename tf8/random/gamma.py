"""Gamma and the samplers built on it: gamma, loggamma, beta, dirichlet, t, chisquare,
generalized_normal and ball.

Gamma is Marsaglia and Tsang's rejection sampler with one key per element, as JAX runs it:
`split(key, size)` gives element i its key, and each element loops (`tf8.lax.while_loop`)
until its draw is accepted. JAX vmaps the per-element sampler; tf8.random sits below vmap,
so the loops here are written batched, as that vmap computes them: the body runs on every
element and only those still rejecting take its results. Each element's stream is its own,
so the draws equal JAX's up to the rounding of log and pow.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import ShapeError
from tf8.random.basic import _as_float, _normal, _param_shape, _start, _uniform
from tf8.random.continuous import _exponential, rademacher
from tf8.random.gamma_jvp import implicit_gamma_draw, shape_constant
from tf8.random.keys import Shape, _shape, _split
from tf8.traced import TracedTensor

_SQUEEZE = 0.0331  # Marsaglia-Tsang's squeeze constant


def _select(accept: TracedTensor, new: tuple, old: tuple) -> tuple:
    """`new` where `accept`, else `old`, value by value (a key's two words together)."""
    out = []
    for n, o in zip(new, old):
        mask = accept if n.ndim == accept.ndim else tnp.expand_dims(accept, -1)
        out.append(tnp.where(mask, n, o))
    return tuple(out)


def _positive_normal_step(keys, c, one):
    """Redraw x ~ N(0, 1) until v = 1 + c x > 0, per element (the inner loop)."""

    def redraw(state):
        keys, _, v = state
        pending = tnp.less_equal(v, 0)
        pair = _split(keys, 2)
        x = _normal(pair[..., 1, :], (), c.dtype)
        new = (pair[..., 0, :], x, tnp.add(one, tnp.multiply(x, c)))
        return _select(pending, new, state)

    start = (keys, tnp.zeros_like(c), tnp.negative(tnp.ones_like(c)))
    _, x, v = lax.while_loop(lambda s: tnp.any(tnp.less_equal(s[2], 0)), redraw, start)
    return x, v


def _gamma_batch(keys: TracedTensor, alpha: TracedTensor, log_space: bool) -> TracedTensor:
    """One Gamma(alpha[i]) draw per key keys[i]: JAX's `_gamma_one`, batched."""
    dtype = alpha.dtype
    one, third = np.array(1, dtype), np.array(1 / 3, dtype)
    boost_mask = tnp.greater_equal(alpha, one)
    boosted = tnp.where(boost_mask, alpha, tnp.add(alpha, one))
    d = tnp.subtract(boosted, third)
    c = tnp.divide(third, tnp.sqrt(d))

    def rejected(state):
        _, x2, v3, u = state
        squeeze = tnp.subtract(one, tnp.multiply(np.array(_SQUEEZE, dtype), tnp.multiply(x2, x2)))
        bound = tnp.add(
            tnp.multiply(x2, np.array(0.5, dtype)),
            tnp.multiply(d, tnp.add(tnp.subtract(one, v3), tnp.log(v3))),
        )
        return tnp.logical_and(tnp.greater_equal(u, squeeze), tnp.greater_equal(tnp.log(u), bound))

    def propose(state):
        parts = _split(state[0], 3)
        x, v = _positive_normal_step(parts[..., 1, :], c, one)
        u = _uniform(parts[..., 2, :], (), dtype)
        new = (parts[..., 0, :], tnp.multiply(x, x), tnp.multiply(tnp.multiply(v, v), v), u)
        return _select(rejected(state), new, state)

    pair = _split(keys, 2)
    start = (pair[..., 0, :], tnp.zeros_like(d), tnp.ones_like(d), tnp.full_like(d, 2))
    _, _, v3, _ = lax.while_loop(lambda s: tnp.any(rejected(s)), propose, start)
    subkeys = pair[..., 1, :]
    if log_space:
        log_samples = tnp.negative(_exponential(subkeys, (), dtype))
        keep = tnp.logical_or(boost_mask, tnp.equal(log_samples, 0))
        log_boost = tnp.where(keep, 0, tnp.multiply(log_samples, tnp.divide(one, alpha)))
        return tnp.add(tnp.add(tnp.log(d), tnp.log(v3)), log_boost)
    samples = tnp.subtract(one, _uniform(subkeys, (), dtype))
    boost = tnp.where(boost_mask, one, tnp.power(samples, tnp.divide(one, alpha)))
    return tnp.multiply(tnp.multiply(d, v3), boost)


def _gamma(
    key: TracedTensor, a: Any, shape: tuple, dtype: np.dtype, log_space: bool
) -> TracedTensor:
    """Gamma(a) draws of `shape` (their logs when `log_space`), differentiable in `a` as JAX's
    are: implicitly, the quantile held fixed (tf8.random.gamma_jvp), not through the loops."""
    a = tnp.broadcast_to(_as_float(a, dtype), shape)
    size = int(np.prod(shape))
    keys = _split(key, size)
    draws = _gamma_batch(keys, lax.reshape(shape_constant(a), (size,)), log_space)
    return implicit_gamma_draw(lax.reshape(draws, shape), a, log_space)


def gamma(key: Any, a: Any, shape: Shape | None = None, dtype: Any = None) -> TracedTensor:
    """Gamma(a) draws with unit scale (Marsaglia-Tsang, one key per element, as JAX)."""
    key, dtype = _start("gamma", key, dtype)
    return _gamma(key, a, _param_shape("gamma", shape, a=a), dtype, False)


def loggamma(key: Any, a: Any, shape: Shape | None = None, dtype: Any = None) -> TracedTensor:
    """log of Gamma(a) draws, computed in log space (accurate for small `a`)."""
    key, dtype = _start("loggamma", key, dtype)
    return _gamma(key, a, _param_shape("loggamma", shape, a=a), dtype, True)


def beta(key: Any, a: Any, b: Any, shape: Shape | None = None, dtype: Any = None):
    """Beta(a, b) draws: G_a / (G_a + G_b) from two log-gamma draws, scaled by their max."""
    key, dtype = _start("beta", key, dtype)
    shape = _param_shape("beta", shape, a=a, b=b)
    key_a, key_b = _split(key, 2)
    log_a = _gamma(key_a, a, shape, dtype, True)
    log_b = _gamma(key_b, b, shape, dtype, True)
    top = tnp.maximum(log_a, log_b)
    scaled_a, scaled_b = tnp.exp(tnp.subtract(log_a, top)), tnp.exp(tnp.subtract(log_b, top))
    return tnp.divide(scaled_a, tnp.add(scaled_a, scaled_b))


def dirichlet(key: Any, alpha: Any, shape: Shape | None = None, dtype: Any = None):
    """Dirichlet(alpha) draws along the last axis: the softmax of log-gamma draws."""
    key, dtype = _start("dirichlet", key, dtype)
    alpha = tnp.asarray(alpha)
    if alpha.ndim < 1:
        raise ShapeError(f"dirichlet: alpha must have at least one axis, got shape {alpha.shape}")
    batch = tuple(alpha.shape[:-1])
    batch = _param_shape("dirichlet", shape, **{"alpha's batch axes": np.empty(batch, np.bool_)})
    logs = _gamma(key, alpha, (*batch, alpha.shape[-1]), dtype, True)
    shifted = tnp.subtract(logs, tnp.max(logs, axis=-1, keepdims=True))
    weights = tnp.exp(shifted)
    return tnp.divide(weights, tnp.sum(weights, axis=-1, keepdims=True))


def t(key: Any, df: Any, shape: Shape | None = None, dtype: Any = None) -> TracedTensor:
    """Student's t(df): normal * sqrt((df / 2) / Gamma(df / 2))."""
    key, dtype = _start("t", key, dtype)
    shape = _param_shape("t", shape, df=df)
    key_n, key_g = _split(key, 2)
    half_df = tnp.divide(_as_float(df, dtype), np.array(2, dtype))
    n = _normal(key_n, shape, dtype)
    g = _gamma(key_g, half_df, shape, dtype, False)
    return tnp.multiply(n, tnp.sqrt(tnp.divide(half_df, g)))


def chisquare(key: Any, df: Any, shape: Shape | None = None, dtype: Any = None):
    """Chi-square(df): 2 * Gamma(df / 2), drawn in log space."""
    key, dtype = _start("chisquare", key, dtype)
    shape = _param_shape("chisquare", shape, df=df)
    half_df = tnp.divide(_as_float(df, dtype), np.array(2, dtype))
    return tnp.multiply(tnp.exp(_gamma(key, half_df, shape, dtype, True)), np.array(2, dtype))


def generalized_normal(key: Any, p: Any, shape: Shape = (), dtype: Any = None):
    """Density proportional to exp(-|x|^p): a random sign times Gamma(1/p) ** (1/p)."""
    key, dtype = _start("generalized_normal", key, dtype)
    return _generalized_normal(key, p, _shape(shape), dtype)


def _generalized_normal(key, p, shape, dtype):
    key_g, key_r = _split(key, 2)
    inverse = tnp.divide(1, _as_float(p, dtype))
    g = _gamma(key_g, inverse, shape, dtype, False)
    signs = rademacher(key_r, shape, dtype)
    return tnp.multiply(signs, tnp.power(g, inverse))


def ball(key: Any, d: int, p: Any = 2, shape: Shape = (), dtype: Any = None) -> TracedTensor:
    """Uniform draws from the unit p-norm ball in `d` dimensions, shape (*shape, d)."""
    key, dtype = _start("ball", key, dtype)
    shape = _shape(shape)
    key_g, key_e = _split(key, 2)
    g = _generalized_normal(key_g, p, (*shape, int(d)), dtype)
    e = _exponential(key_e, shape, dtype)
    inverse = tnp.divide(1, _as_float(p, dtype))
    norm = tnp.power(
        tnp.add(tnp.sum(tnp.power(tnp.abs(g), _as_float(p, dtype)), axis=-1), e), inverse
    )
    return tnp.divide(g, tnp.expand_dims(norm, -1))
