"""logsumexp and its relatives, stable at large |x| (no overflow at ±1000, in value or
derivative): softmax and log_softmax subtract the max, softplus and log_sigmoid feed each
branch a safe input. scipy.special serves logsumexp, softmax and log_softmax, and tf8.nn (a
layer above) all five.

No stop_gradient is needed: the max shift cancels exactly in the derivatives, and a branch
that would overflow is fed a safe input ("double where"), so its unused derivative is never
0 · inf.
"""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

Axis = int | tuple[int, ...] | None


def softplus(x: Any) -> TracedTensor:
    """log(1 + exp(x)), as x + log1p(exp(-x)) for x > 0 and log1p(exp(x)) otherwise."""
    x = tnp.asarray(x)
    positive = x > 0
    high = tnp.where(positive, x, 0)  # each branch sees only inputs where exp cannot overflow
    low = tnp.where(positive, 0, x)
    return tnp.where(positive, high + tnp.log1p(tnp.exp(-high)), tnp.log1p(tnp.exp(low)))


def log_sigmoid(x: Any) -> TracedTensor:
    """log(sigmoid(x)) = -softplus(-x)."""
    return -softplus(-tnp.asarray(x))


def masked(x: TracedTensor, where: Any, fill: float) -> TracedTensor:
    """`x` where the mask `where` holds, `fill` elsewhere (`x` itself when there is no mask)."""
    return x if where is None else tnp.where(where, x, fill)


def _shift(x: TracedTensor, axis: Axis, where: Any, keep_inf: bool = False) -> TracedTensor:
    """The max over axis (keepdims), 0 where it is not finite (all -inf, or an empty mask).
    With `keep_inf` only -inf becomes 0: a slice holding +inf then gives NaN throughout (inf -
    inf), as JAX's softmax and log_softmax, where logsumexp gives inf.

    No stop_gradient is needed: each caller's value is invariant to the shift, so the shift's
    derivative contributions cancel exactly. An empty reduction (no max) shifts by 0."""
    axes = range(x.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    if any(-x.ndim <= a < x.ndim and x.shape[a] == 0 for a in axes):
        return tnp.zeros_like(tnp.sum(x, axis=axis, keepdims=True))
    peak = tnp.max(masked(x, where, -math.inf), axis=axis, keepdims=True)
    return tnp.where(peak != -math.inf if keep_inf else tnp.isfinite(peak), peak, 0)


def _drop_axes(x: TracedTensor, axis: Axis, keepdims: bool) -> TracedTensor:
    return x if keepdims else tnp.squeeze(x, axis=axis)


def logsumexp(
    a: Any,
    axis: Axis = None,
    b: Any = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: Any = None,
) -> Any:
    """log(sum(b · exp(a))) over axis, computed with the max subtracted (no overflow).

    With `return_sign`, returns (log|sum|, sign(sum)); otherwise a negative sum gives NaN,
    as JAX. Entries whose weight b is 0 do not take part, as scipy's."""
    a = tnp.asarray(a)
    if not dt.is_inexact(a.dtype):
        a = tnp.astype(a, tnp.float64)
    if b is not None:
        b = tnp.asarray(b)
        a, b = tnp.broadcast_arrays(a, b)
        a = tnp.where(b != 0, a, -math.inf)
    shift = _shift(a, axis, where)
    terms = tnp.exp(a - shift)
    if b is not None:
        terms = terms * b
    total = tnp.sum(masked(terms, where, 0), axis=axis, keepdims=True)
    if b is None:
        out, sign = tnp.log(total) + shift, None
    else:
        sign = tnp.sign(total)
        out = tnp.log(tnp.abs(total)) + shift
    if return_sign:
        sign = tnp.ones_like(out) if sign is None else sign
        return _drop_axes(out, axis, keepdims), _drop_axes(sign, axis, keepdims)
    if sign is not None:
        out = tnp.where(sign < 0, math.nan, out)
    return _drop_axes(out, axis, keepdims)


def softmax(x: Any, axis: Axis = -1, where: Any = None) -> TracedTensor:
    """exp(x) / sum(exp(x)) over axis, with the max subtracted; 0 outside `where` (also where
    it holds nowhere along axis, as JAX's)."""
    x = tnp.asarray(x)
    unnormalized = masked(tnp.exp(x - _shift(x, axis, where, keep_inf=True)), where, 0)
    return masked(unnormalized / tnp.sum(unnormalized, axis=axis, keepdims=True), where, 0)


def log_softmax(x: Any, axis: Axis = -1, where: Any = None) -> TracedTensor:
    """x - logsumexp(x) over axis, with the max subtracted; -inf outside `where`."""
    x = tnp.asarray(x)
    shifted = x - _shift(x, axis, where, keep_inf=True)
    total = tnp.sum(masked(tnp.exp(shifted), where, 0), axis=axis, keepdims=True)
    return masked(shifted - tnp.log(total), where, -math.inf)
