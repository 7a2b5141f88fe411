"""tf8.nn.initializers: JAX's weight initializers (`jax.nn.initializers`).

Each builder returns an `init(key, shape, dtype)` function drawing with tf8.random's keys, as
JAX's do; the draws equal JAX's for the same key (up to the rounding of erf and erf_inv for
the truncated normals). The default dtype is tf8's float64, as JAX's with x64 enabled.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import tf8.numpy as tnp
import tf8.random as random
from tf8.errors import ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

Initializer = Callable[..., TracedTensor]
Axes = int | Sequence[int]

__all__ = [
    "constant",
    "delta_orthogonal",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "kaiming_normal",
    "kaiming_uniform",
    "lecun_normal",
    "lecun_uniform",
    "normal",
    "ones",
    "orthogonal",
    "truncated_normal",
    "uniform",
    "variance_scaling",
    "xavier_normal",
    "xavier_uniform",
    "zeros",
]

# The standard deviation of a standard normal truncated to (-2, 2).
_TRUNCATED_STDDEV = 0.87962566103423978
# ... and of a complex standard normal whose modulus is truncated to 2.
_COMPLEX_TRUNCATED_STDDEV = 0.95311164380491208


def _dtype(dtype: Any) -> np.dtype:
    return dt.as_dtype(float if dtype is None else dtype)  # (float32 with x64 off)


def zeros(key: Any, shape: Sequence[int], dtype: Any = None) -> TracedTensor:
    """An array of zeros (the key is ignored)."""
    return tnp.zeros(tuple(shape), _dtype(dtype))


def ones(key: Any, shape: Sequence[int], dtype: Any = None) -> TracedTensor:
    """An array of ones (the key is ignored)."""
    return tnp.ones(tuple(shape), _dtype(dtype))


def constant(value: Any, dtype: Any = None) -> Initializer:
    """Arrays full of `value`."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> TracedTensor:
        dtype = _dtype(dtype)  # not weakly typed: the dtype is explicit, as in JAX
        return tnp.full(tuple(shape), tnp.asarray(value, dtype), dtype)

    return init


def uniform(scale: Any = 1e-2, dtype: Any = None) -> Initializer:
    """Uniform draws in [0, scale)."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> TracedTensor:
        dtype = _dtype(dtype)
        return tnp.multiply(random.uniform(key, shape, dtype), tnp.asarray(scale, dtype))

    return init


def normal(stddev: Any = 1e-2, dtype: Any = None) -> Initializer:
    """Normal draws with mean 0 and standard deviation `stddev`."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> TracedTensor:
        dtype = _dtype(dtype)
        return tnp.multiply(random.normal(key, shape, dtype), tnp.asarray(stddev, dtype))

    return init


def _real(dtype: np.dtype) -> np.dtype:
    return np.dtype(dtype.char.lower()) if dtype.kind == "c" else dtype


def _complex_polar(key: Any, shape: Sequence[int], dtype: np.dtype, radius: Any) -> TracedTensor:
    """r · exp(iθ), θ uniform and r = radius(u) for u uniform (JAX's complex initializers)."""
    key_r, key_theta = random.split(key)
    r = radius(tnp.astype(random.uniform(key_r, shape, _real(dtype)), dtype))
    theta = 2 * np.pi * tnp.astype(random.uniform(key_theta, shape, _real(dtype)), dtype)
    return r * tnp.exp(1j * theta)


def truncated_normal(
    stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0, upper: Any = 2.0
) -> Initializer:
    """Standard normals truncated to (lower, upper), times `stddev` (no variance correction)."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> TracedTensor:
        dtype = _dtype(dtype)
        draws = random.truncated_normal(key, lower, upper, shape, dtype)
        return tnp.multiply(draws, tnp.asarray(stddev, dtype))

    return init


def _size(shape: Sequence[int], axes: Axes) -> int:
    return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def _compute_fans(
    shape: Sequence[int], in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = ()
) -> tuple[float, float]:
    """(fan_in, fan_out): the input and output sizes times the receptive field (the axes
    that are none of in, out and batch)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ShapeError(
            f"variance_scaling: a weights shape {tuple(shape)} of {len(shape)} axes has no "
            "input axis -2; give at least 2 axes or in_axis"
        )
    in_size, out_size = _size(shape, in_axis), _size(shape, out_axis)
    if 0 in (in_size, out_size, _size(shape, batch_axis)):  # JAX: ZeroDivisionError
        raise ShapeError(
            f"variance_scaling: a weights shape {tuple(shape)} with an empty input, output or "
            "batch axis has no fan (its variance would divide by 0)"
        )
    receptive_field = math.prod(shape) / in_size / out_size / _size(shape, batch_axis)
    return in_size * receptive_field, out_size * receptive_field


_DENOMINATORS = {
    "fan_in": lambda fan_in, fan_out: fan_in,
    "fan_out": lambda fan_in, fan_out: fan_out,
    "fan_avg": lambda fan_in, fan_out: (fan_in + fan_out) / 2,
    "fan_geo_avg": lambda fan_in, fan_out: (fan_in * fan_out) ** 0.5,
}
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")


def variance_scaling(
    scale: Any,
    mode: str,
    distribution: str,
    in_axis: Axes = -2,
    out_axis: Axes = -1,
    batch_axis: Axes = (),
    dtype: Any = None,
) -> Initializer:
    """Draws with mean 0 and variance scale / n, n the fan chosen by `mode` (fan_in,
    fan_out, fan_avg, fan_geo_avg), from a normal truncated at 2 standard deviations, a
    normal, or a uniform distribution; complex weights as JAX draws them (polar draws of a
    modulus truncated at 2, or uniform in a disk)."""
    if mode not in _DENOMINATORS:
        raise ParameterError(
            f"variance_scaling: mode must be one of {tuple(_DENOMINATORS)}, got {mode!r}"
        )
    if distribution not in _DISTRIBUTIONS:
        raise ParameterError(
            f"variance_scaling: distribution must be one of {_DISTRIBUTIONS}, got {distribution!r}"
        )

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> TracedTensor:
        shape, dtype = tuple(int(d) for d in shape), _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        denominator = _DENOMINATORS[mode](fan_in, fan_out)
        if denominator == 0:  # JAX divides by it (ZeroDivisionError)
            raise ShapeError(
                f"variance_scaling: the {mode} of a weights shape {shape} is 0; the variance "
                "scale / 0 is undefined"
            )
        variance = tnp.asarray(scale / denominator, dtype)
        complex_ = dtype.kind == "c"
        if distribution == "truncated_normal" and complex_:  # the modulus truncated to 2
            cut = 1 - tnp.exp(tnp.asarray(-4.0, dtype))
            draws = _complex_polar(key, shape, dtype, lambda u: tnp.sqrt(-tnp.log(1 - cut * u)))
            return draws * (tnp.sqrt(variance) / tnp.asarray(_COMPLEX_TRUNCATED_STDDEV, dtype))
        if distribution == "truncated_normal":
            stddev = tnp.divide(tnp.sqrt(variance), tnp.asarray(_TRUNCATED_STDDEV, dtype))
            return tnp.multiply(random.truncated_normal(key, -2, 2, shape, dtype), stddev)
        if distribution == "normal":
            return tnp.multiply(random.normal(key, shape, dtype), tnp.sqrt(variance))
        if complex_:  # uniform in the disk of variance 1
            return _complex_polar(key, shape, dtype, lambda u: tnp.sqrt(2 * u)) * tnp.sqrt(variance)
        draws = random.uniform(key, shape, dtype, -1)
        return tnp.multiply(draws, tnp.sqrt(tnp.multiply(3, variance)))

    return init


def _scaled(scale: float, mode: str, distribution: str, doc: str) -> Callable[..., Initializer]:
    def builder(
        in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None
    ) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)

    builder.__doc__ = doc
    return builder


glorot_uniform = _scaled(1.0, "fan_avg", "uniform", "variance_scaling(1, fan_avg, uniform)")
glorot_normal = _scaled(
    1.0, "fan_avg", "truncated_normal", "variance_scaling(1, fan_avg, truncated_normal)"
)
lecun_uniform = _scaled(1.0, "fan_in", "uniform", "variance_scaling(1, fan_in, uniform)")
lecun_normal = _scaled(
    1.0, "fan_in", "truncated_normal", "variance_scaling(1, fan_in, truncated_normal)"
)
he_uniform = _scaled(2.0, "fan_in", "uniform", "variance_scaling(2, fan_in, uniform)")
he_normal = _scaled(
    2.0, "fan_in", "truncated_normal", "variance_scaling(2, fan_in, truncated_normal)"
)
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """(Semi-)orthogonal weights: the columns along `column_axis` orthonormal, times scale."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> TracedTensor:
        shape, dtype = tuple(int(d) for d in shape), _dtype(dtype)
        if len(shape) < 2:
            raise ShapeError(f"orthogonal: the initializer needs at least 2 axes, got {shape}")
        if 0 in shape:
            return tnp.zeros(shape, dtype)
        n_cols = shape[column_axis]
        q = random.orthogonal(key, math.prod(shape) // n_cols, (), dtype, n_cols)
        rest = tuple(np.delete(np.array(shape), column_axis))
        q = tnp.moveaxis(tnp.reshape(q, (*rest, n_cols)), -1, column_axis)
        return tnp.multiply(tnp.asarray(scale, dtype), q)

    return init


def delta_orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """Convolution kernels (3 to 5 axes) zero but at the spatial centre, where they hold an
    orthogonal matrix (the delta-orthogonal initializer)."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> TracedTensor:
        shape, dtype = tuple(int(d) for d in shape), _dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ShapeError(f"delta_orthogonal: the kernel needs 3, 4 or 5 axes, got {shape}")
        if shape[-1] < shape[-2]:
            raise ShapeError(f"delta_orthogonal: fan_in must be <= fan_out, got shape {shape}")
        matrix = orthogonal(scale, column_axis, dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return tnp.zeros(shape, dtype).at[centre].set(matrix)

    return init
