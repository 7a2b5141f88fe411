"""Samplers that reorder or pick: permutation, shuffle, choice, and categorical without
replacement, on tf8's sort op as JAX 0.10 computes them.

JAX shuffles by sorting on random 32-bit keys, repeating with fresh keys often enough
(ceil(3 log n / log(2**32 - 1)) rounds) that ties in every round are improbable; sampling
without replacement takes the top k of log-probabilities plus Gumbel noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import AxisError, DTypeError, ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.random.basic import _param_shape, _uniform, randint
from tf8.random.continuous import _gumbel
from tf8.random.keys import Shape, _check_key, _random_bits, _shape, _split
from tf8.traced import TracedTensor


def _shuffle(key: TracedTensor, x: TracedTensor, axis: int) -> TracedTensor:
    """`x` shuffled along `axis`, each 1-d slice independently (JAX's `_shuffle`)."""
    size = math.prod(x.shape)
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        key, subkey = _split(key, 2)
        sort_keys = _random_bits(subkey, 32, tuple(x.shape))
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


def _axis(name: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ShapeError(f"{name}: axis {axis} is out of range for an array of {ndim} axes")
    return axis % ndim


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False) -> TracedTensor:
    """A random permutation of range(x) for an integer `x`, or of `x`'s entries along `axis`
    (rows moved whole, unless `independent` shuffles each slice on its own)."""
    key = _check_key("permutation", key)
    x = tnp.asarray(x)
    if x.ndim == 0:
        if not dt.is_integer(x.dtype):
            raise DTypeError(f"permutation: x must be an integer or an array, got {x.aval}")
        return _shuffle(key, tnp.arange(int(x)), 0)
    axis = _axis("permutation", axis, x.ndim)
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, tnp.arange(x.shape[axis]), 0)
    return tnp.take(x, order, axis=axis)


def shuffle(key: Any, x: Any, axis: int = 0) -> TracedTensor:
    """`x` with each slice along `axis` shuffled independently (JAX's removed `shuffle`, now
    `permutation(key, x, axis, independent=True)`)."""
    key = _check_key("shuffle", key)
    x = tnp.asarray(x)
    return _shuffle(key, x, _axis("shuffle", axis, max(x.ndim, 1)))


def choice(
    key: Any,
    a: Any,
    shape: Sequence[int] = (),
    replace: bool = True,
    p: Any = None,
    axis: int = 0,
    mode: str | None = None,
) -> TracedTensor:
    """Draws from `a` (or range(a) for an integer): uniform or with probabilities `p`, with
    or without replacement, as JAX: randint, a permutation's prefix, an inverse-CDF search,
    or the Gumbel top-k."""
    key = _check_key("choice", key)
    if not isinstance(shape, Sequence):
        raise ParameterError(f"choice: shape must be a sequence, got {shape!r}")
    shape = tuple(int(d) for d in shape)
    arr = tnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = int(arr)
    else:
        axis = _axis("choice", axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return tnp.zeros(shape, arr.dtype)
    if n_inputs <= 0:
        raise ParameterError(
            f"choice: a must be greater than 0 unless no samples are taken, got {n_inputs}"
        )
    if not replace and n_draws > n_inputs:
        raise ParameterError(
            f"choice: cannot take a larger sample (size {n_draws}) than the population "
            f"(size {n_inputs}) with replace=False"
        )
    if p is None:
        if replace:
            index = randint(key, shape, 0, n_inputs)
            result = index if arr.ndim == 0 else tnp.take(arr, index, axis=axis)
        else:
            shuffled = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)
            result = shuffled[(slice(None),) * (axis if arr.ndim else 0) + (slice(n_draws),)]
    else:
        p = tnp.asarray(p)
        if not dt.is_float(p.dtype):
            p = lax.convert_element_type(p, dt.float64)
        if tuple(p.shape) != (n_inputs,):
            raise ShapeError(
                f"choice: p must be None or a 1-d vector of a.shape[axis] = {n_inputs} "
                f"entries, got shape {tuple(p.shape)}"
            )
        if replace:
            cumulative = tnp.cumsum(p)
            u = _uniform(key, shape, p.dtype)
            r = tnp.multiply(cumulative[-1], tnp.subtract(1, u))
            index = lax.convert_element_type(tnp.searchsorted(cumulative, r), dt.int64)
        else:
            g = tnp.add(_gumbel(key, (n_inputs,), p.dtype, mode or "low"), tnp.log(p))
            index = lax.convert_element_type(lax.top_k(g, n_draws)[1], dt.int64)
        result = index if arr.ndim == 0 else tnp.take(arr, index, axis=axis)
    target = shape if arr.ndim == 0 else (*arr.shape[:axis], *shape, *arr.shape[axis + 1 :])
    return lax.reshape(result, target)


def _categorical_without_replacement(
    key: TracedTensor,
    logits: TracedTensor,
    axis: int,
    shape: tuple,
    batch_shape: tuple,
    mode: str,
) -> TracedTensor:
    """The Gumbel top-k trick along `axis`: k = the number of draws per batch entry."""
    noisy = tnp.add(logits, _gumbel(key, tuple(logits.shape), logits.dtype, mode))
    k = math.prod(shape[: len(shape) - len(batch_shape)])
    if k > logits.shape[axis]:
        raise ParameterError(
            f"categorical: the number of samples without replacement ({k}) cannot exceed the "
            f"number of categories ({logits.shape[axis]})"
        )
    _, indices = lax.top_k(tnp.moveaxis(noisy, axis, -1), k)
    indices = tnp.moveaxis(indices, -1, 0)
    return lax.reshape(indices, shape)  # int32: JAX's top_k indices


def categorical(
    key: Any,
    logits: Any,
    axis: int = -1,
    shape: Shape | None = None,
    replace: bool = True,
    mode: str | None = None,
) -> TracedTensor:
    """Category indices drawn with probabilities softmax(logits) along `axis`: the argmax of
    logits plus Gumbel noise (with replacement), or its top k (without)."""
    key = _check_key("categorical", key)
    logits = tnp.asarray(logits)
    if not dt.is_float(logits.dtype):
        logits = lax.convert_element_type(logits, dt.float64)
    if not -max(logits.ndim, 1) <= axis < max(logits.ndim, 1):
        raise AxisError(
            f"categorical: axis {axis} is out of range for logits of shape {logits.shape}"
        )
    axis = axis % logits.ndim if logits.ndim else 0
    batch_shape = tuple(d for i, d in enumerate(logits.shape) if i != axis)
    shape = batch_shape if shape is None else _shape(shape)
    _param_shape("categorical", shape, **{"logits' batch axes": np.empty(batch_shape, np.bool_)})
    if not replace:
        return _categorical_without_replacement(
            key, logits, axis, shape, batch_shape, mode or "low"
        )
    prefix = shape[: len(shape) - len(batch_shape)]
    noise_shape = list(shape[len(prefix) :])
    noise_shape.insert(axis, logits.shape[axis])
    noise = _gumbel(key, (*prefix, *noise_shape), logits.dtype, "low" if mode is None else mode)
    lifted = lax.reshape(logits, (1,) * len(prefix) + tuple(logits.shape))
    return tnp.argmax(tnp.add(noise, lifted), axis=len(prefix) + axis)
