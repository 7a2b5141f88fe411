"""poisson: Knuth's multiplication method for rates below 10 and Hormann's transformed
rejection above, each a `while_loop` over the whole draw, in float32, as JAX 0.10 (and
TensorFlow and numpy) compute it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import DTypeError
from tf8.ops import dtypes as dt
from tf8.random.basic import _param_shape, _uniform
from tf8.random.keys import Shape, _check_key, _split
from tf8.traced import TracedTensor


def _knuth(key: TracedTensor, lam: TracedTensor, dtype: np.dtype) -> TracedTensor:
    """Counts uniforms until their product drops below exp(-lam)."""
    shape = tuple(lam.shape)

    def body(state):
        k, keys, log_product = state
        keys, subkey = _split(keys, 2)
        k = tnp.where(tnp.greater(log_product, tnp.negative(lam)), k + 1, k)
        u = _uniform(subkey, shape, dt.float32)
        return k, keys, tnp.add(log_product, tnp.log(u))

    def more(state):
        return tnp.any(tnp.greater(state[2], tnp.negative(lam)))

    start = (tnp.zeros(shape, dtype), key, tnp.zeros(shape, dt.float32))
    k = lax.while_loop(more, body, start)[0]
    return lax.convert_element_type(k - 1, dtype)


def _rejection(key: TracedTensor, lam: TracedTensor, dtype: np.dtype) -> TracedTensor:
    """Hormann's transformed rejection (PTRS) for large rates."""
    shape = tuple(lam.shape)
    log_lam = tnp.log(lam)
    b = 0.931 + 2.53 * tnp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(state):
        k_out, accepted, keys = state
        parts = _split(keys, 3)
        u = _uniform(parts[1], shape, lam.dtype) - 0.5
        v = _uniform(parts[2], shape, lam.dtype)
        u_shifted = 0.5 - tnp.abs(u)
        k = tnp.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = tnp.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = tnp.logical_and(u_shifted >= 0.07, v <= v_r)
        reject = tnp.logical_or(k < 0, tnp.logical_and(u_shifted < 0.013, v > u_shifted))
        accept = tnp.logical_or(accept1, tnp.logical_and(tnp.logical_not(reject), s <= t))
        return tnp.where(accept, k, k_out), tnp.logical_or(accepted, accept), parts[0]

    start = (tnp.full(shape, -1, lam.dtype), tnp.zeros(shape, dt.bool_), key)
    k = lax.while_loop(lambda s: tnp.any(tnp.logical_not(s[1])), body, start)[0]
    return lax.convert_element_type(k, dtype)


def poisson(key: Any, lam: Any, shape: Shape | None = None, dtype: Any = None) -> TracedTensor:
    """Poisson(lam) counts (int64 by default); the rate is taken in float32, as JAX does."""
    key = _check_key("poisson", key)
    dtype = dt.as_dtype(int if dtype is None else dtype)  # (int: int32 with x64 off)
    if not dt.is_integer(dtype):
        raise DTypeError(f"poisson: dtype must be an integer dtype, got {dtype}")
    shape = _param_shape("poisson", shape, lam=lam)
    lam = lax.convert_element_type(tnp.broadcast_to(tnp.asarray(lam), shape), dt.float32)
    use_knuth = tnp.logical_or(tnp.isnan(lam), tnp.less(lam, 10))
    lam_knuth = tnp.where(use_knuth, lam, tnp.zeros_like(lam))
    lam_rejection = tnp.where(use_knuth, tnp.full_like(lam, 1e5), lam)
    result = tnp.where(
        use_knuth, _knuth(key, lam_knuth, dtype), _rejection(key, lam_rejection, dtype)
    )
    return tnp.where(tnp.equal(lam, 0), tnp.zeros_like(result), result)
