"""tf8.random: JAX's raw-key PRNG API, bit-exact with JAX's default threefry2x32.

A key is a uint32 array of shape (2,), as `jax.random.PRNGKey` makes. Keys are split and
sampled with the counter scheme JAX uses by default (`jax_threefry_partitionable`): element i
of a draw of `shape` hashes the 64-bit counter i, split into two uint32 halves. Everything is
written in tf8's primitives, so it runs eagerly, under `jit` and under `vmap`; defaults follow
tf8 (float64, int64), as JAX does with x64 enabled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import DTypeError, ShapeError
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

Shape = Sequence[int]
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Threefry's key-schedule constant


# --- keys -------------------------------------------------------------------------------------


def PRNGKey(seed: Any) -> TracedTensor:  # noqa: N802 - JAX's name
    """A key from an integer seed: its high and low 32 bits (JAX's `threefry_seed`)."""
    seed = tnp.asarray(seed)
    if seed.shape != () or not dt.is_integer(seed.dtype):
        raise DTypeError(f"PRNGKey: the seed must be an integer scalar, got {seed.aval}")
    high = lax.shift_right_logical(seed, _const(32, seed))  # 0 for seeds of 32 bits or fewer
    halves = [lax.convert_element_type(h, dt.uint32) for h in (high, seed)]  # low 32 bits
    return tnp.stack(halves)


def key(seed: Any) -> TracedTensor:
    """As `PRNGKey` (tf8 has raw uint32 keys only, no typed key arrays)."""
    return PRNGKey(seed)


def key_data(keys: Any) -> TracedTensor:
    """The uint32 data of a key: the key itself."""
    return _check_key("key_data", keys)


def wrap_key_data(key_bits: Any) -> TracedTensor:
    """A key from its uint32 data (checked, unchanged)."""
    return _check_key("wrap_key_data", key_bits)


def _check_key(name: str, key: Any) -> TracedTensor:
    key = key if isinstance(key, TracedTensor) else tnp.asarray(key)
    if key.dtype != dt.uint32:
        raise DTypeError(f"{name}: a key is a uint32 array of shape (2,), got dtype {key.dtype}")
    if tuple(key.shape) != (2,):
        raise ShapeError(
            f"{name}: a key is a uint32 array of shape (2,), got shape {tuple(key.shape)} "
            "(use vmap for batches of keys)"
        )
    return key


def _halves(key: TracedTensor) -> tuple[TracedTensor, TracedTensor]:
    return key[0], key[1]


# --- the Threefry-2x32 hash -------------------------------------------------------------------


def _const(value: int, like: TracedTensor) -> TracedTensor:
    """`value` in `like`'s dtype and shape."""
    return tnp.full_like(like, value)


def _rotate_left(x: TracedTensor, distance: int) -> TracedTensor:
    left = lax.shift_left(x, _const(distance, x))
    return lax.bitwise_or(left, lax.shift_right_logical(x, _const(32 - distance, x)))


def threefry_2x32(
    key1: TracedTensor, key2: TracedTensor, x1: TracedTensor, x2: TracedTensor
) -> tuple[TracedTensor, TracedTensor]:
    """Threefry-2x32 with 20 rounds on uint32 counters `x1`, `x2` (one shape) under the key
    words `key1`, `key2` (scalars); JAX's `threefry2x32_p`."""
    keys = [lax.broadcast(k, tuple(x1.shape)) for k in (key1, key2)]
    keys.append(lax.bitwise_xor(lax.bitwise_xor(keys[0], keys[1]), _const(_PARITY, keys[0])))
    x = [lax.add(x1, keys[0]), lax.add(x2, keys[1])]
    for block in range(5):
        for rotation in _ROTATIONS[block % 2]:
            x[0] = lax.add(x[0], x[1])
            x[1] = lax.bitwise_xor(x[0], _rotate_left(x[1], rotation))
        x[0] = lax.add(x[0], keys[(block + 1) % 3])
        x[1] = lax.add(lax.add(x[1], keys[(block + 2) % 3]), _const(block + 1, x[1]))
    return x[0], x[1]


def _counters(shape: Shape) -> tuple[TracedTensor, TracedTensor]:
    """The 64-bit row-major index of every element of `shape` as (high, low) uint32 halves."""
    size = math.prod(shape)
    if size >= 2**32:
        raise ShapeError(f"tf8.random: {size} random values at once are more than 2**32")
    low = lax.reshape(lax.iota(dt.uint32, size), tuple(shape))
    return _const(0, low), low


def _hash_counters(key: TracedTensor, shape: Shape) -> tuple[TracedTensor, TracedTensor]:
    high, low = _counters(shape)
    return threefry_2x32(*_halves(key), high, low)


# --- splitting --------------------------------------------------------------------------------


def split(key: Any, num: int = 2) -> TracedTensor:
    """`num` new keys, shape (num, 2), from `key` (JAX's fold-like partitionable split)."""
    key = _check_key("split", key)
    bits1, bits2 = _hash_counters(key, (int(num),))
    return tnp.stack([bits1, bits2], axis=-1)


def fold_in(key: Any, data: Any) -> TracedTensor:
    """A new key from `key` and an integer `data` (taken modulo 2**32)."""
    key = _check_key("fold_in", key)
    data = tnp.asarray(data)
    if data.shape != () or not dt.is_integer(data.dtype):
        raise DTypeError(f"fold_in: data must be an integer scalar, got {data.aval}")
    low = lax.convert_element_type(data, dt.uint32)
    bits1, bits2 = threefry_2x32(*_halves(key), _const(0, low), low)
    return tnp.stack([bits1, bits2])


# --- random bits ------------------------------------------------------------------------------


def _random_bits(key: TracedTensor, width: int, shape: Shape) -> TracedTensor:
    """`width` random bits per element: uint8 or uint32, or (width 64) int64 holding the bits
    of JAX's uint64 (tf8 has no uint64)."""
    bits1, bits2 = _hash_counters(key, tuple(shape))
    if width == 64:
        high = lax.convert_element_type(bits1, dt.int64)
        low = lax.convert_element_type(bits2, dt.int64)
        return lax.bitwise_or(lax.shift_left(high, _const(32, high)), low)
    bits = lax.bitwise_xor(bits1, bits2)
    return bits if width == 32 else lax.convert_element_type(bits, dt.uint8)


def bits(key: Any, shape: Shape = (), dtype: Any = dt.uint32) -> TracedTensor:
    """Uniform random bits of an unsigned `dtype` (uint8 or uint32)."""
    key = _check_key("bits", key)
    dtype = dt.as_dtype(dtype)
    if dtype not in dt.UNSIGNED:
        raise DTypeError(f"bits: dtype must be uint8 or uint32, got {dtype}")
    return _random_bits(key, dtype.itemsize * 8, _shape(shape))


def _shape(shape: Any) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)


# --- samplers ---------------------------------------------------------------------------------


def _float_dtype(name: str, dtype: Any) -> np.dtype:
    dtype = dt.as_dtype(dtype)
    if dtype not in dt.FLOATS:
        raise DTypeError(f"{name}: dtype must be float32 or float64, got {dtype}")
    return dtype


def uniform(
    key: Any, shape: Shape = (), dtype: Any = dt.float64, minval: Any = 0.0, maxval: Any = 1.0
) -> TracedTensor:
    """Uniform floats in [minval, maxval): random mantissa bits under the exponent of 1.0."""
    key = _check_key("uniform", key)
    dtype, shape = _float_dtype("uniform", dtype), _shape(shape)
    low = _broadcast_to_rank(lax.convert_element_type(tnp.asarray(minval), dtype), len(shape))
    high = _broadcast_to_rank(lax.convert_element_type(tnp.asarray(maxval), dtype), len(shape))
    width, mantissa = dtype.itemsize * 8, np.finfo(dtype).nmant
    raw = _random_bits(key, width, shape)
    one_bits = int(np.array(1.0, dtype).view(raw.dtype))
    mantissa_bits = lax.shift_right_logical(raw, _const(width - mantissa, raw))
    floats = lax.bitcast_convert_type(lax.bitwise_or(mantissa_bits, _const(one_bits, raw)), dtype)
    floats = lax.sub(floats, _const(1, floats))
    scaled = tnp.add(tnp.multiply(floats, lax.sub(high, low)), low)
    return tnp.maximum(low, lax.reshape(scaled, shape))


def _broadcast_to_rank(x: TracedTensor, rank: int) -> TracedTensor:
    return lax.reshape(x, (1,) * (rank - x.ndim) + tuple(x.shape))


def normal(key: Any, shape: Shape = (), dtype: Any = dt.float64) -> TracedTensor:
    """Standard normal floats: sqrt(2) * erf_inv(u) for u uniform in (-1, 1)."""
    key = _check_key("normal", key)
    dtype = _float_dtype("normal", dtype)
    lowest = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = uniform(key, shape, dtype, tnp.asarray(lowest), 1.0)
    return tnp.multiply(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


def bernoulli(key: Any, p: Any = 0.5, shape: Shape | None = None) -> TracedTensor:
    """True with probability `p`: uniform(key, shape, p's dtype) < p."""
    key = _check_key("bernoulli", key)
    p = tnp.asarray(p)
    if not dt.is_float(p.dtype):
        raise DTypeError(f"bernoulli: p must be a float, got dtype {p.dtype}")
    shape = tuple(p.shape) if shape is None else _shape(shape)
    return tnp.less(uniform(key, shape, p.dtype), p)


def randint(
    key: Any, shape: Shape, minval: Any, maxval: Any, dtype: Any = dt.int64
) -> TracedTensor:
    """Integers in [minval, maxval): 2 * width random bits reduced modulo the span (JAX's
    method, biased when the span is not a power of two)."""
    key = _check_key("randint", key)
    dtype, shape = dt.as_dtype(dtype), _shape(shape)
    if not dt.is_integer(dtype):
        raise DTypeError(f"randint: dtype must be an integer dtype, got {dtype}")
    low, high = (_clip_to(tnp.asarray(v), dtype) for v in (minval, maxval))
    too_high = tnp.greater(tnp.asarray(maxval), int(np.iinfo(dtype).max))
    low, high = (_broadcast_to_rank(v, len(shape)) for v in (low, high))
    too_high = _broadcast_to_rank(too_high, len(shape))
    width = dtype.itemsize * 8
    unsigned = _unsigned(width)
    key_high, key_low = split(key)
    higher = _random_bits(key_high, max(width, 32), shape)
    lower = _random_bits(key_low, max(width, 32), shape)
    if width == 8:
        higher, lower = (lax.convert_element_type(b, dt.uint8) for b in (higher, lower))
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
