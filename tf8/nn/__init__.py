"""tf8.nn: JAX's activation functions and normalisers (`jax.nn`), compositions of tf8.numpy.

Every function is stable at large |x| (no overflow at ±1000, in value or derivative), and
differentiates correctly without stop_gradient: the max shift of `logsumexp` and `softmax`
cancels exactly in their derivatives, and branches that would overflow are fed a safe input
("double where") so their unused derivative is never 0 · inf. logsumexp, softmax,
log_softmax, softplus and log_sigmoid are defined a layer below, in tf8/scipy/_logsumexp.py,
since scipy.special serves them too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8.errors import ParameterError
from tf8.nn import initializers
from tf8.numpy._core import inexact as _inexact
from tf8.scipy._logsumexp import (
    Axis,
    log_sigmoid,
    log_softmax,
    logsumexp,
    softmax,
    softplus,
)
from tf8.scipy._logsumexp import masked as _masked
from tf8.scipy.special import erfc as _erfc
from tf8.traced import TracedTensor

__all__ = [
    "celu",
    "elu",
    "gelu",
    "glu",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "leaky_relu",
    "log_sigmoid",
    "log_softmax",
    "logsumexp",
    "one_hot",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "silu",
    "soft_sign",
    "softmax",
    "softplus",
    "standardize",
    "swish",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def relu(x: Any) -> TracedTensor:
    """max(x, 0); its derivative at 0 is 0, as JAX's, and NaN stays NaN."""
    x = tnp.asarray(x)
    return tnp.where(x <= 0, 0, x)


def relu6(x: Any) -> TracedTensor:
    """min(max(x, 0), 6.0); derivative 0 at both kinks, as JAX's. The float 6.0 makes an
    integer or bool input weakly float, as JAX's `jnp.minimum(jnp.maximum(x, 0), 6.)`."""
    x = tnp.asarray(x)
    return tnp.where(x <= 0, 0, tnp.where(x >= 6, 6.0, x))


def sigmoid(x: Any) -> TracedTensor:
    """1 / (1 + exp(-x))."""
    return tnp.logistic(x)


def soft_sign(x: Any) -> TracedTensor:
    """x / (|x| + 1)."""
    x = tnp.asarray(x)
    return x / (tnp.abs(x) + 1)


def silu(x: Any) -> TracedTensor:
    """x · sigmoid(x) (also called swish)."""
    x = tnp.asarray(x)
    return x * sigmoid(x)


swish = silu


def hard_sigmoid(x: Any) -> TracedTensor:
    """relu6(x + 3) / 6."""
    return relu6(tnp.asarray(x) + 3.0) / 6.0


def hard_silu(x: Any) -> TracedTensor:
    """x · hard_sigmoid(x) (also called hard_swish)."""
    x = tnp.asarray(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def gelu(x: Any, approximate: bool = True) -> TracedTensor:
    """x · Φ(x), Φ the normal CDF; `approximate` uses the tanh form of Hendrycks and Gimpel.

    As JAX's: x goes to its inexact dtype (int32 → float32), and the constants carry that
    dtype, so the result is never weakly typed."""
    x = _inexact(x)
    if approximate:
        scale = tnp.asarray(np.sqrt(2 / np.pi).astype(x.dtype))
        inner = scale * (x + 0.044715 * (x * x * x))
        return x * (0.5 * (1.0 + tnp.tanh(inner)))
    half = tnp.asarray(np.sqrt(0.5).astype(x.dtype))
    return 0.5 * x * _erfc(-x * half)


def elu(x: Any, alpha: Any = 1.0) -> TracedTensor:
    """x for x > 0, alpha · (exp(x) - 1) otherwise."""
    x = tnp.asarray(x)
    positive = x > 0
    return tnp.where(positive, x, alpha * tnp.expm1(tnp.where(positive, 0.0, x)))


def celu(x: Any, alpha: Any = 1.0) -> TracedTensor:
    """x for x > 0, alpha · (exp(x / alpha) - 1) otherwise, written as JAX's
    max(x, 0) + alpha · expm1(min(x, 0) / alpha) (its derivatives at the kink, too)."""
    x = tnp.asarray(x)
    return tnp.maximum(x, 0.0) + alpha * tnp.expm1(tnp.minimum(x, 0.0) / alpha)


def selu(x: Any) -> TracedTensor:
    """scale · elu(x, alpha) with the self-normalising constants of Klambauer et al."""
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def leaky_relu(x: Any, negative_slope: Any = 1e-2) -> TracedTensor:
    """x for x >= 0, negative_slope · x otherwise."""
    x = tnp.asarray(x)
    return tnp.where(x >= 0, x, negative_slope * x)


def hard_tanh(x: Any) -> TracedTensor:
    """x clipped to [-1, 1]."""
    x = tnp.asarray(x)
    return tnp.where(x > 1, 1, tnp.where(x < -1, -1, x))


def glu(x: Any, axis: int = -1) -> TracedTensor:
    """Gated linear unit: the first half of `axis` times the sigmoid of the second half."""
    x = tnp.asarray(x)
    size = x.shape[axis]
    if size % 2:
        raise ParameterError(f"glu: axis {axis} has odd size {size}; it must split in halves")
    first, second = tnp.split(x, 2, axis=axis)
    return first * sigmoid(second)


def standardize(
    x: Any,
    axis: Axis = -1,
    mean: Any = None,
    variance: Any = None,
    epsilon: float = 1e-5,
    where: Any = None,
) -> TracedTensor:
    """(x - mean) / sqrt(variance + epsilon), the moments over axis unless given."""
    x = tnp.asarray(x)
    if where is None:
        count: Any = None
    else:
        count = tnp.sum(tnp.broadcast_to(where, x.shape), axis=axis, keepdims=True)

    def average(values: TracedTensor) -> TracedTensor:
        if count is None:
            return tnp.mean(values, axis=axis, keepdims=True)
        return tnp.sum(_masked(values, where, 0), axis=axis, keepdims=True) / count

    if mean is None:
        mean = average(x)
    if variance is None:
        variance = average(tnp.square(x - mean))  # not E[x²] - E[x]²: no cancellation
    return (x - mean) * tnp.rsqrt(variance + epsilon)


def one_hot(x: Any, num_classes: int, *, dtype: Any = tnp.float64, axis: int = -1) -> TracedTensor:
    """1 where x equals the class index along a new `axis` of length num_classes, else 0.

    Indices outside [0, num_classes) (and NaN) give an all-zero row, as JAX's."""
    x = tnp.asarray(x)
    rank = x.ndim + 1
    if not -rank <= axis < rank:
        raise ParameterError(f"one_hot: axis {axis} is out of range for a result of rank {rank}")
    axis %= rank
    classes = tnp.reshape(
        tnp.arange(num_classes), [num_classes if i == axis else 1 for i in range(rank)]
    )
    return tnp.astype(tnp.expand_dims(x, axis) == classes, dtype)
