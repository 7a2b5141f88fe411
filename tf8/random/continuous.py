"""Samplers that transform uniforms or normals: truncated_normal, exponential, laplace,
logistic, gumbel, cauchy, pareto, weibull_min, maxwell, lognormal, rayleigh and rademacher,
each as JAX 0.10 computes it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import ParameterError
from tf8.ops import dtypes as dt
from tf8.random.basic import (
    _as_float,
    _erf_inv,
    _normal,
    _param_shape,
    _start,
    _uniform,
    bernoulli,
)
from tf8.random.keys import Shape, _check_key, _shape
from tf8.traced import TracedTensor


def _const(value: float, dtype: np.dtype) -> np.ndarray:
    return np.array(value, dtype)


def _next_toward_infinity(x: TracedTensor) -> TracedTensor:
    """The float after `x` toward +inf (`lax.nextafter(x, inf)`), from its bits."""
    signed = dt.as_dtype(f"int{x.dtype.itemsize * 8}")
    bits = lax.bitcast_convert_type(x, signed)
    one = tnp.ones_like(bits)
    stepped = tnp.where(tnp.less(bits, 0), lax.sub(bits, one), lax.add(bits, one))
    after = lax.bitcast_convert_type(stepped, x.dtype)
    smallest = lax.bitcast_convert_type(one, x.dtype)  # the smallest subnormal
    after = tnp.where(tnp.equal(x, 0), smallest, after)  # +0 and -0 alike
    return tnp.where(tnp.logical_or(tnp.isnan(x), tnp.equal(x, np.inf)), x, after)


# --- from a normal ----------------------------------------------------------------------------


def truncated_normal(
    key: Any, lower: Any, upper: Any, shape: Shape | None = None, dtype: Any = None
) -> TracedTensor:
    """Standard normals truncated to (lower, upper): the inverse CDF of a uniform between the
    bounds' CDFs, clipped to the open interval."""
    key, dtype = _start("truncated_normal", key, dtype)
    shape = _param_shape("truncated_normal", shape, lower=lower, upper=upper)
    sqrt2 = _const(np.sqrt(2), dtype)
    lower, upper = _as_float(lower, dtype), _as_float(upper, dtype)
    a, b = lax.erf(tnp.divide(lower, sqrt2)), lax.erf(tnp.divide(upper, sqrt2))
    out = tnp.multiply(sqrt2, _erf_inv(_uniform(key, shape, dtype, a, b)))
    above = _next_toward_infinity(lower)
    below = tnp.negative(_next_toward_infinity(tnp.negative(upper)))
    return tnp.minimum(tnp.maximum(out, above), below)


def lognormal(
    key: Any, sigma: Any = 1.0, shape: Shape | None = None, dtype: Any = None
) -> TracedTensor:
    """exp(sigma * normal)."""
    key, dtype = _start("lognormal", key, dtype)
    shape = _param_shape("lognormal", shape, sigma=sigma)
    return tnp.exp(tnp.multiply(_normal(key, shape, dtype), _as_float(sigma, dtype)))


def maxwell(key: Any, shape: Shape = (), dtype: Any = None) -> TracedTensor:
    """The norm of three standard normals (a one-sided Maxwell)."""
    key, dtype = _start("maxwell", key, dtype)
    draws = _normal(key, (*_shape(shape), 3), dtype)
    return tnp.sqrt(tnp.sum(tnp.multiply(draws, draws), axis=-1))


def rayleigh(key: Any, scale: Any, shape: Shape | None = None, dtype: Any = None) -> TracedTensor:
    """scale * sqrt(-2 log u), u uniform in [0, 1) (JAX's inverse CDF)."""
    key, dtype = _start("rayleigh", key, dtype)
    shape = _param_shape("rayleigh", shape, scale=scale)
    u = _uniform(key, shape, dtype)
    log_u = tnp.log(u)
    root = tnp.sqrt(tnp.multiply(log_u, _const(-2, dtype)))
    return tnp.multiply(root, _as_float(scale, dtype))


# --- from a uniform ---------------------------------------------------------------------------


def exponential(key: Any, shape: Shape = (), dtype: Any = None) -> TracedTensor:
    """-log(1 - u), u uniform in [0, 1)."""
    key, dtype = _start("exponential", key, dtype)
    return _exponential(key, _shape(shape), dtype)


def _exponential(keys: TracedTensor, shape: Shape, dtype: np.dtype) -> TracedTensor:
    return _exponential_of(_uniform(keys, shape, dtype))


def laplace(key: Any, shape: Shape = (), dtype: Any = None) -> TracedTensor:
    """sign(u) * log(1 - |u|), u uniform in (-1, 1)."""
    key, dtype = _start("laplace", key, dtype)
    low = -1.0 + float(np.finfo(dtype).epsneg)
    u = _uniform(key, _shape(shape), dtype, low, 1.0)
    return tnp.multiply(tnp.sign(u), tnp.log1p(tnp.negative(tnp.abs(u))))


def logistic(key: Any, shape: Shape = (), dtype: Any = None) -> TracedTensor:
    """log(u) - log(1 - u), u uniform in (0, 1)."""
    key, dtype = _start("logistic", key, dtype)
    u = _uniform(key, _shape(shape), dtype, float(np.finfo(dtype).tiny), 1.0)
    return tnp.subtract(tnp.log(u), tnp.log1p(tnp.negative(u)))


def cauchy(key: Any, shape: Shape = (), dtype: Any = None) -> TracedTensor:
    """tan(pi * (u - 1/2)), u uniform in [eps, 1)."""
    key, dtype = _start("cauchy", key, dtype)
    u = _uniform(key, _shape(shape), dtype, float(np.finfo(dtype).eps), 1.0)
    return tnp.tan(tnp.multiply(_const(np.pi, dtype), tnp.subtract(u, _const(0.5, dtype))))


def pareto(key: Any, b: Any, shape: Shape | None = None, dtype: Any = None) -> TracedTensor:
    """exp(exponential / b)."""
    key, dtype = _start("pareto", key, dtype)
    shape = _param_shape("pareto", shape, b=b)
    return tnp.exp(tnp.divide(_exponential(key, shape, dtype), _as_float(b, dtype)))


def weibull_min(
    key: Any, scale: Any, concentration: Any, shape: Shape = (), dtype: Any = None
) -> TracedTensor:
    """scale * (-log(1 - u)) ** (1 / concentration): the inverse Weibull CDF."""
    key, dtype = _start("weibull_min", key, dtype)
    u = _uniform(key, _shape(shape), dtype)
    power = tnp.divide(1.0, tnp.asarray(concentration))  # in its own dtype, as JAX's
    return tnp.multiply(tnp.power(_exponential_of(u), power), scale)


def _exponential_of(u: TracedTensor) -> TracedTensor:
    """-log(1 - u): an exponential draw from a uniform one in [0, 1)."""
    return tnp.negative(tnp.log1p(tnp.negative(u)))


def gumbel(key: Any, shape: Shape = (), dtype: Any = None, mode: str | None = None) -> TracedTensor:
    """-log(-log(u)); mode "low" (the default) draws u in [tiny, 1), "high" adds a second
    uniform's bits below the first's for a wider dynamic range near 0."""
    key, dtype = _start("gumbel", key, dtype)
    return _gumbel(key, _shape(shape), dtype, "low" if mode is None else mode)


def _gumbel(key: TracedTensor, shape: Shape, dtype: np.dtype, mode: str) -> TracedTensor:
    info = np.finfo(dtype)
    if mode == "low":
        u = _uniform(key, shape, dtype, float(info.tiny), 1.0)
        return tnp.negative(tnp.log(tnp.negative(tnp.log(u))))
    if mode != "high":
        raise ParameterError(f'gumbel: mode must be "low" or "high", got {mode!r}')
    high, low = _uniform(key, (2, *shape), dtype)
    fine = tnp.add(
        tnp.add(high, tnp.multiply(_const(2.0 ** -int(info.nmant), dtype), low)),
        _const(info.tiny, dtype),
    )
    x = tnp.where(tnp.greater_equal(high, 0.5), high, fine)
    return tnp.negative(tnp.log(tnp.negative(tnp.log1p(tnp.negative(x)))))


def rademacher(key: Any, shape: Shape = (), dtype: Any = None) -> TracedTensor:
    """-1 or 1 with equal probability, as integers (int64 by default)."""
    key = _check_key("rademacher", key)
    dtype = dt.as_dtype(int if dtype is None else dtype)  # (int: int32 with x64 off)
    draws = lax.convert_element_type(bernoulli(key, 0.5, _shape(shape)), dtype)
    return lax.convert_element_type(tnp.subtract(tnp.multiply(2, draws), 1), dtype)
