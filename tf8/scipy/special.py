"""tf8.scipy.special: scipy.special's functions that compose from tf8.numpy (as jax.scipy.special).

`erfc` and `log_ndtr` stay accurate in the far tail, where 1 - erf(x) has cancelled to 0:
for x >= 2.5 they use the continued fraction erfc(x) = exp(-x²) / √π · 1 / (x + (1/2) / (x +
1 / (x + (3/2) / (x + ...)))), whose scaled factor never underflows, so log_ndtr works in
log space down to x = -1e150. Functions that need a primitive tf8 lacks (gammaln, digamma,
polygamma, gamma, betaln, erfinv, ndtri, multigammaln, i0e, i1e) are not here yet.
"""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8 import nn
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

__all__ = [
    "entr",
    "erf",
    "erfc",
    "expit",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "ndtr",
    "softmax",
    "xlog1py",
    "xlogy",
]

erf = tnp.erf
expit = tnp.logistic
logsumexp = nn.logsumexp

_TAIL = 2.5  # from here on the continued fraction (32 terms) is within 2e-14 of erfc
_TERMS = 32
_LOG_SQRT_PI = 0.5 * math.log(math.pi)


def _inexact(x: Any) -> TracedTensor:
    """x in an inexact dtype (ints and bools → float64), as scipy's float functions."""
    x = tnp.asarray(x)
    return x if dt.is_inexact(x.dtype) else tnp.astype(x, tnp.float64)


def _log_tail_factor(z: TracedTensor) -> TracedTensor:
    """log(erfc(z) · exp(z²)) for z >= _TAIL, by the continued fraction evaluated bottom-up."""
    denominator = z
    for k in range(_TERMS, 0, -1):
        denominator = z + (k / 2) / denominator
    return -tnp.log(denominator) - _LOG_SQRT_PI


def _split_tail(x: TracedTensor) -> tuple[TracedTensor, TracedTensor, TracedTensor]:
    """(in_tail, x for the near branch, x for the tail branch), each branch fed safe inputs."""
    in_tail = x >= _TAIL
    return in_tail, tnp.where(in_tail, 0.0, x), tnp.where(in_tail, x, _TAIL)


def erfc(x: Any) -> TracedTensor:
    """1 - erf(x), accurate where it is tiny (x >= 2.5 by continued fraction)."""
    x = _inexact(x)
    in_tail, near, far = _split_tail(x)
    tail = tnp.exp(_log_tail_factor(far) - far * far)
    return tnp.where(in_tail, tail, 1 - tnp.erf(near))


def _log_erfc(x: TracedTensor) -> TracedTensor:
    in_tail, near, far = _split_tail(x)
    return tnp.where(in_tail, _log_tail_factor(far) - far * far, tnp.log(1 - tnp.erf(near)))


def ndtr(x: Any) -> TracedTensor:
    """The standard normal CDF, Φ(x) = erfc(-x / √2) / 2."""
    return 0.5 * erfc(-tnp.asarray(x) / math.sqrt(2))


def log_ndtr(x: Any) -> TracedTensor:
    """log Φ(x): log1p(-Φ(-x)) for x > 0, log(erfc(-x / √2) / 2) in log space otherwise."""
    x = _inexact(x)
    positive = x > 0
    upper = tnp.where(positive, x, 0.0)
    lower = tnp.where(positive, 0.0, x)
    return tnp.where(
        positive,
        tnp.log1p(-ndtr(-upper)),
        _log_erfc(-lower / math.sqrt(2)) - math.log(2),
    )


def logit(x: Any) -> TracedTensor:
    """log(x / (1 - x)), the inverse of expit."""
    x = _inexact(x)
    return tnp.log(x) - tnp.log1p(-x)


def xlogy(x: Any, y: Any) -> TracedTensor:
    """x · log(y), 0 where x is 0 (whatever y), with derivatives that stay finite there."""
    x, y = tnp.broadcast_arrays(tnp.asarray(x), tnp.asarray(y))
    zero = x == 0
    return tnp.where(zero, 0.0, x * tnp.log(tnp.where(zero, 1.0, y)))


def xlog1py(x: Any, y: Any) -> TracedTensor:
    """x · log1p(y), 0 where x is 0 (whatever y)."""
    x, y = tnp.broadcast_arrays(tnp.asarray(x), tnp.asarray(y))
    zero = x == 0
    return tnp.where(zero, 0.0, x * tnp.log1p(tnp.where(zero, 0.0, y)))


def entr(x: Any) -> TracedTensor:
    """-x · log(x) for x > 0, 0 at 0, -inf for x < 0 (scipy's elementwise entropy)."""
    x = tnp.asarray(x)
    positive = x > 0
    safe = tnp.where(positive, x, 1.0)
    return tnp.where(positive, -safe * tnp.log(safe), tnp.where(x == 0, 0.0, -math.inf))


def softmax(x: Any, axis: int | tuple[int, ...] | None = None) -> TracedTensor:
    """scipy's softmax: over all axes unless `axis` is given."""
    return nn.softmax(x, axis=axis)


def log_softmax(x: Any, axis: int | tuple[int, ...] | None = None) -> TracedTensor:
    """scipy's log_softmax: over all axes unless `axis` is given."""
    return nn.log_softmax(x, axis=axis)
