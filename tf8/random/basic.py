"""The samplers every other one builds on: uniform, normal, bernoulli and randint.

Each public sampler checks its key and its arguments, then calls a private twin that takes a
batch of keys (B + (2,)) and draws B + shape, so that gamma's per-element loop can draw one
value per key in one vectorised step, as JAX's vmap of the per-key sampler does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.random.keys import Shape, _check_key, _const, _random_bits, _shape, _split
from tf8.traced import TracedTensor


def _float_dtype(name: str, dtype: Any) -> np.dtype:
    dtype = dt.requested_dtype(dtype, name)  # (float: the default float, float32 with x64 off)
    if dtype not in dt.FLOATS:
        names = " or ".join(str(f) for f in dt.FLOATS)
        raise DTypeError(f"{name}: dtype must be a float dtype ({names}), got {dtype}")
    return dtype


def _inexact_dtype(name: str, dtype: Any) -> np.dtype:
    """A float or complex dtype (normal's and orthogonal's, as JAX's)."""
    dtype = dt.requested_dtype(dtype, name)
    if dtype not in dt.INEXACT:
        names = " or ".join(str(f) for f in dt.INEXACT)
        raise DTypeError(f"{name}: dtype must be a float or complex dtype ({names}), got {dtype}")
    return dtype


def _start(name: str, key: Any, dtype: Any) -> tuple[TracedTensor, np.dtype]:
    """The checked key and float dtype (tf8's float64 by default) of a sampler `name`."""
    return _check_key(name, key), _float_dtype(name, float if dtype is None else dtype)


def _param_shape(name: str, shape: Any, **params: Any) -> tuple[int, ...]:
    """The draw's shape: `shape` when given (each parameter's shape must broadcast to it, as
    JAX requires), else the parameters' broadcast shape."""
    shapes = {
        p: tuple(np.shape(v)) if not isinstance(v, TracedTensor) else tuple(v.shape)
        for p, v in params.items()
    }
    if shape is None:
        try:
            return tuple(np.broadcast_shapes(*shapes.values()))
        except ValueError:
            described = ", ".join(f"{p} {s}" for p, s in shapes.items())
            raise ShapeError(
                f"{name}: the parameters' shapes do not broadcast: {described}"
            ) from None
    shape = _shape(shape)
    for param, param_shape in shapes.items():
        try:
            together = tuple(np.broadcast_shapes(shape, param_shape))
        except ValueError:
            together = None
        if together != shape:
            raise ShapeError(
                f"{name}: {param} of shape {param_shape} does not broadcast to the requested "
                f"shape {shape} (a parameter's shape must broadcast to `shape`)"
            )
    return shape


def _as_float(value: Any, dtype: np.dtype) -> TracedTensor:
    return lax.convert_element_type(tnp.asarray(value), dtype)


# --- uniform and normal -----------------------------------------------------------------------


def uniform(
    key: Any, shape: Shape = (), dtype: Any = float, minval: Any = 0.0, maxval: Any = 1.0
) -> TracedTensor:
    """Uniform floats in [minval, maxval): random mantissa bits under the exponent of 1.0."""
    key = _check_key("uniform", key)
    dtype = _float_dtype("uniform", dtype)
    shape = _param_shape("uniform", shape, minval=minval, maxval=maxval)
    return _uniform(key, shape, dtype, _as_float(minval, dtype), _as_float(maxval, dtype))


def _uniform(
    keys: TracedTensor, shape: Shape, dtype: np.dtype, low: Any = 0.0, high: Any = 1.0
) -> TracedTensor:
    """Uniform floats of shape B + `shape` in [low, high), for a batch of keys B + (2,);
    `low` and `high` broadcast to B + `shape`."""
    low, high = _as_float(low, dtype), _as_float(high, dtype)
    floats = tnp.subtract(_one_to_two(keys, tuple(shape), dtype), np.array(1, dtype))
    return tnp.maximum(low, tnp.add(tnp.multiply(floats, lax.sub(high, low)), low))


def _one_to_two(keys: TracedTensor, shape: Shape, dtype: np.dtype) -> TracedTensor:
    """Floats in [1, 2): random mantissa bits under the exponent of 1.0."""
    width, mantissa = dtype.itemsize * 8, np.finfo(dtype).nmant
    raw = _random_bits(keys, width, shape)
    mantissa_bits = lax.shift_right_logical(raw, _const(width - mantissa, raw))
    if dtype == dt.float16:  # no uint16 to bitcast: 1 + mantissa / 2**10, exact in float32
        scaled = tnp.multiply(lax.convert_element_type(mantissa_bits, dt.float32), 2.0**-mantissa)
        return lax.convert_element_type(tnp.add(scaled, np.float32(1)), dtype)
    one_bits = int(np.array(1.0, dtype).view(raw.dtype))
    return lax.bitcast_convert_type(lax.bitwise_or(mantissa_bits, _const(one_bits, raw)), dtype)


def normal(key: Any, shape: Shape = (), dtype: Any = float) -> TracedTensor:
    """Standard normals: sqrt(2) * erf_inv(u) for u uniform in (-1, 1); complex ones as
    `_complex_normal` draws them."""
    key = _check_key("normal", key)
    dtype = _inexact_dtype("normal", dtype)
    return (_complex_normal if dtype.kind == "c" else _normal)(key, _shape(shape), dtype)


def _complex_normal(key: TracedTensor, shape: Shape, dtype: np.dtype) -> TracedTensor:
    """Complex standard normals (variance 1) as JAX draws them: the real and imaginary parts
    from the two halves of split(key), each divided by sqrt(2)."""
    real = dt.real_dtype(dtype)
    re, im = (tnp.astype(_normal(k, shape, real), dtype) for k in _split(key, 2))
    return tnp.divide(re + 1j * im, tnp.asarray(np.sqrt(2), dtype))


def _normal(keys: TracedTensor, shape: Shape, dtype: np.dtype) -> TracedTensor:
    """Standard normals of shape B + `shape` for a batch of keys B + (2,)."""
    lowest = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform(keys, shape, dtype, lowest, 1.0)
    return tnp.multiply(np.array(np.sqrt(2), dtype), _erf_inv(u))


# Giles' single-precision inverse error function, as XLA computes erf_inv in float32: the
# coefficients of the polynomial in w - 2.5 (w < 5) and in sqrt(w) - 3 (w >= 5).
_GILES_CENTRAL = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
_GILES_TAIL = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)


def _erf_inv(x: TracedTensor) -> TracedTensor:
    """erf_inv for the samplers: in float32 XLA's polynomial (JAX's draws bit for bit, and
    elementwise ops that run in blocked regions, faster than scipy's erfinv), else the
    erf_inv primitive."""
    if x.dtype != dt.float32:
        return lax.erf_inv(x)
    w = tnp.negative(tnp.log1p(tnp.negative(tnp.multiply(x, x))))
    central = _horner(_GILES_CENTRAL, tnp.subtract(w, np.float32(2.5)))
    tail = _horner(_GILES_TAIL, tnp.subtract(tnp.sqrt(w), np.float32(3)))
    result = tnp.multiply(tnp.where(tnp.less(w, np.float32(5)), central, tail), x)
    return tnp.where(tnp.equal(tnp.abs(x), 1), tnp.multiply(x, np.float32(np.inf)), result)


def _horner(coefficients: tuple[float, ...], w: TracedTensor) -> TracedTensor:
    p = tnp.full_like(w, coefficients[0])
    for c in coefficients[1:]:
        p = tnp.add(np.float32(c), tnp.multiply(p, w))
    return p


def bernoulli(
    key: Any, p: Any = 0.5, shape: Shape | None = None, mode: str = "low"
) -> TracedTensor:
    """True with probability `p`: uniform(key, shape, p's dtype) < p. mode='high' resolves
    small p finer, as JAX's: two uniforms u1, u2 and u2 · 2⁻ⁿᵐᵃⁿᵗ < p − u1."""
    key = _check_key("bernoulli", key)
    p = tnp.asarray(p)
    if not dt.is_float(p.dtype):
        raise DTypeError(f"bernoulli: p must be a float, got dtype {p.dtype}")
    if mode not in ("low", "high"):
        raise ParameterError(f"bernoulli: mode must be 'low' or 'high', got {mode!r}")
    shape = _param_shape("bernoulli", shape, p=p)
    if mode == "low":
        return tnp.less(_uniform(key, shape, p.dtype), p)
    u = _uniform(key, (2, *shape), p.dtype)
    return tnp.less(u[1] * 2.0 ** -np.finfo(p.dtype).nmant, p - u[0])


# --- integers ---------------------------------------------------------------------------------


def randint(key: Any, shape: Shape, minval: Any, maxval: Any, dtype: Any = int) -> TracedTensor:
    """Integers in [minval, maxval): 2 * width random bits reduced modulo the span (JAX's
    method, biased when the span is not a power of two)."""
    key = _check_key("randint", key)
    dtype = dt.requested_dtype(dtype, "randint")
    shape = _param_shape("randint", shape, minval=minval, maxval=maxval)
    if not dt.is_integer(dtype):
        raise DTypeError(f"randint: dtype must be an integer dtype, got {dtype}")
    info = np.iinfo(dtype)
    if info.bits < 32:  # JAX samples in int32 (less bias), the bounds clipped to the dtype's
        low = tnp.clip(tnp.asarray(minval).astype(dt.int32), int(info.min), int(info.max))
        high = tnp.clip(tnp.asarray(maxval).astype(dt.int32), int(info.min), int(info.max) + 1)
        return randint(key, shape, low, high, dt.int32).astype(dtype)
    low, high = (tnp.broadcast_to(_clip_to(tnp.asarray(v), dtype), shape) for v in (minval, maxval))
    too_high = tnp.greater(tnp.asarray(maxval), int(np.iinfo(dtype).max))
    width = dtype.itemsize * 8
    unsigned = _unsigned(width)
    key_high, key_low = _split(key, 2)
    higher = _random_bits(key_high, max(width, 32), shape)
    lower = _random_bits(key_low, max(width, 32), shape)
    span = lax.convert_element_type(lax.sub(high, low), unsigned)
    span = tnp.where(tnp.less_equal(high, low), _const(1, span), span)
    span = tnp.where(tnp.logical_and(too_high, tnp.greater(high, low)), span + 1, span)
    span = tnp.broadcast_to(span, shape)
    rem = _rem_unsigned if width == 64 else _rem_or_keep
    half = _const(2 ** (width // 2), span)
    multiplier = rem(half, span)
    multiplier = rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(rem(higher, span), multiplier), rem(lower, span))
    offset = rem(offset, span)
    return tnp.add(low, lax.convert_element_type(offset, dtype))


def _unsigned(width: int) -> np.dtype:
    """The dtype holding `width` unsigned bits (int64 stands for uint64)."""
    return {8: dt.uint8, 32: dt.uint32, 64: dt.int64}[width]


def _clip_to(value: TracedTensor, dtype: np.dtype) -> TracedTensor:
    """`value` as `dtype`, clipped to its range rather than wrapped."""
    if not dt.is_integer(value.dtype):
        value = lax.convert_element_type(value, dt.int64)
    info = np.iinfo(dtype)
    if value.dtype != dtype:
        wide = dt.result_type(value.dtype, dtype)
        if wide in dt.INTEGERS:
            value = lax.convert_element_type(value, wide)
            low, high = max(info.min, np.iinfo(wide).min), min(info.max, np.iinfo(wide).max)
            value = tnp.clip(value, low, high)
        value = lax.convert_element_type(value, dtype)
    return value


def _rem_or_keep(a: TracedTensor, s: TracedTensor) -> TracedTensor:
    """a mod s for unsigned a and s, and a where s is 0 (XLA's remainder; numpy's gives 0).
    A span of 2**width wraps to 0 and so leaves the bits as they are."""
    zero = tnp.equal(s, 0)
    return tnp.where(zero, a, lax.rem(a, tnp.where(zero, _const(1, s), s)))


def _rem_unsigned(a: TracedTensor, s: TracedTensor) -> TracedTensor:
    """a mod s for uint64 bits held in int64 (restoring division, one bit per step); a where
    s is 0, as `_rem_or_keep`."""
    minimum = np.iinfo(np.int64).min

    def at_least(x: TracedTensor, y: TracedTensor) -> TracedTensor:  # unsigned x >= y
        flip = _const(minimum, x)
        return tnp.greater_equal(lax.bitwise_xor(x, flip), lax.bitwise_xor(y, flip))

    a, s = tnp.broadcast_arrays(a, s)
    r = _const(0, a)
    for i in range(63, -1, -1):
        carry = tnp.less(r, 0)  # the top bit, shifted out below
        bit = lax.bitwise_and(lax.shift_right_logical(a, _const(i, a)), _const(1, a))
        r = lax.bitwise_or(lax.shift_left(r, _const(1, r)), bit)
        r = tnp.where(tnp.logical_or(carry, at_least(r, s)), lax.sub(r, s), r)
    return r
