"""Keys, the Threefry-2x32 hash, splitting and random bits (JAX's threefry2x32 PRNG).

A key is a uint32 array of shape (2,), as `jax.random.PRNGKey` makes. Keys are split and
sampled with the counter scheme JAX uses by default (`jax_threefry_partitionable`): element i
of a draw of `shape` hashes the 64-bit counter i, split into two uint32 halves.

The private helpers take a *batch* of keys, shape B + (2,), and draw B + shape: the samplers
that loop per element (gamma) run them on one key per element, which is what JAX's vmap of
the per-key sampler computes.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.lax.core import apply
from tf8.ops import dtypes as dt
from tf8.ops.extension.threefry import Threefry2x32
from tf8.traced import TracedTensor

Shape = Sequence[int]


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
    """The uint32 data of a key, or of a batch of keys B + (2,): the keys themselves."""
    return _check_key("key_data", keys, batch=True)


def wrap_key_data(key_bits: Any) -> TracedTensor:
    """A key, or a batch of keys, from its uint32 data B + (2,) (checked, unchanged)."""
    return _check_key("wrap_key_data", key_bits, batch=True)


def _check_key(name: str, key: Any, batch: bool = False) -> TracedTensor:
    """`key` checked to be one key, uint32 (2,); B + (2,) when `batch` (a batch of keys)."""
    key = key if isinstance(key, TracedTensor) else tnp.asarray(key)
    if key.dtype != dt.uint32:
        raise DTypeError(f"{name}: a key is a uint32 array of shape (2,), got dtype {key.dtype}")
    if batch and key.ndim >= 1 and key.shape[-1] == 2:
        return key
    if tuple(key.shape) != (2,):
        raise ShapeError(
            f"{name}: a key is a uint32 array of shape (2,), got shape {tuple(key.shape)} "
            "(use vmap for batches of keys)"
        )
    return key


def _halves(key: TracedTensor) -> tuple[TracedTensor, TracedTensor]:
    """The two uint32 words of a key, or of each key in a batch B + (2,)."""
    return key[..., 0], key[..., 1]


# --- the Threefry-2x32 hash -------------------------------------------------------------------


def _const(value: int, like: TracedTensor) -> TracedTensor:
    """`value` in `like`'s dtype and shape."""
    return tnp.full_like(like, value)


def threefry2x32(key1: Any, key2: Any, x1: Any, x2: Any) -> tuple[TracedTensor, TracedTensor]:
    """The Threefry-2x32 op itself (JAX's `threefry2x32_p`): 20 rounds on uint32 operands of
    one rank, whose sizes broadcast where they are 1; the two output words."""
    operands = [x if isinstance(x, TracedTensor) else tnp.asarray(x) for x in (key1, key2, x1, x2)]
    bits1, bits2 = apply(Threefry2x32(), operands)
    return bits1, bits2


def threefry_2x32(
    key1: TracedTensor, key2: TracedTensor, x1: TracedTensor, x2: TracedTensor
) -> tuple[TracedTensor, TracedTensor]:
    """Threefry-2x32 with 20 rounds on uint32 counters `x1`, `x2` (shape S, or sizes 1 that
    broadcast to it) under the key words `key1`, `key2` (shape B): shape B + S. One
    `threefry2x32` op, the keys read with sizes 1 over S and the counters with sizes 1 over
    B (nothing broadcast in memory)."""
    batch, rank = tuple(key1.shape), x1.ndim
    keys = [lax.reshape(k, batch + (1,) * rank) for k in (key1, key2)]
    x1, x2 = (lax.reshape(x, (1,) * len(batch) + tuple(x.shape)) for x in (x1, x2))
    return threefry2x32(*keys, x1, x2)


def _counters(shape: Shape) -> tuple[TracedTensor, TracedTensor]:
    """The 64-bit row-major index of every element of `shape` as (high, low) uint32 halves
    (the high half, 0, with sizes 1: the hash broadcasts it)."""
    size = math.prod(shape)
    if size >= 2**32:
        raise ShapeError(f"tf8.random: {size} random values at once are more than 2**32")
    low = lax.reshape(lax.iota(dt.uint32, size), tuple(shape))
    return lax.reshape(tnp.zeros((), dt.uint32), (1,) * len(shape)), low


def _hash_counters(key: TracedTensor, shape: Shape) -> tuple[TracedTensor, TracedTensor]:
    high, low = _counters(shape)
    return threefry_2x32(*_halves(key), high, low)


# --- splitting --------------------------------------------------------------------------------


def split(key: Any, num: int | Shape = 2) -> TracedTensor:
    """`num` new keys, shape (num, 2), from `key` (JAX's fold-like partitionable split); a
    tuple `num` gives num + (2,)."""
    return _split(_check_key("split", key), num)


def _split(keys: TracedTensor, num: int | Shape) -> TracedTensor:
    """`num` new keys from each key of a batch: B + (num, 2) (B + num + (2,) for a tuple)."""
    nums = tuple(num) if isinstance(num, (tuple, list)) else (num,)
    for n in nums:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ParameterError(f"split: num must be an int >= 0 or a tuple of them, got {num!r}")
    bits1, bits2 = _hash_counters(keys, tuple(int(n) for n in nums))
    return tnp.stack([bits1, bits2], axis=-1)


def fold_in(key: Any, data: Any) -> TracedTensor:
    """A new key from `key` and a scalar `data` converted to uint32, as JAX's
    `jnp.uint32(data)`: an integer array wraps modulo 2**32, a float truncates, and a Python
    int outside [0, 2**32) is refused (JAX's OverflowError)."""
    key = _check_key("fold_in", key)
    if isinstance(data, int) and not isinstance(data, bool) and not 0 <= data < 2**32:
        raise DTypeError(f"fold_in: the Python int data {data} is out of bounds for uint32")
    data = tnp.asarray(data)
    if data.shape != () or not (dt.is_integer(data.dtype) or dt.is_float(data.dtype)):
        raise DTypeError(f"fold_in: data must be a real scalar, got {data.aval}")
    low = lax.convert_element_type(data, dt.uint32)
    bits1, bits2 = threefry2x32(*_halves(key), _const(0, low), low)
    return tnp.stack([bits1, bits2])


# --- random bits ------------------------------------------------------------------------------


def _random_bits(key: TracedTensor, width: int, shape: Shape) -> TracedTensor:
    """`width` random bits per element: uint8 or uint32; for width 16 the low 16 bits in a
    uint32 (JAX's uint16), for width 64 an int64 holding the bits of JAX's uint64 (tf8 has
    neither uint16 nor uint64)."""
    bits1, bits2 = _hash_counters(key, tuple(shape))
    if width == 64:
        high = lax.convert_element_type(bits1, dt.int64)
        low = lax.convert_element_type(bits2, dt.int64)
        return lax.bitwise_or(lax.shift_left(high, _const(32, high)), low)
    bits = lax.bitwise_xor(bits1, bits2)
    if width == 16:
        return lax.bitwise_and(bits, _const(0xFFFF, bits))
    return bits if width == 32 else lax.convert_element_type(bits, dt.uint8)


def bits(key: Any, shape: Shape = (), dtype: Any = dt.uint32) -> TracedTensor:
    """Uniform random bits of an unsigned `dtype` (uint8 or uint32)."""
    key = _check_key("bits", key)
    dtype = dt.as_dtype(dtype)
    if dtype not in dt.UNSIGNED:
        raise DTypeError(f"bits: dtype must be uint8 or uint32, got {dtype}")
    return _random_bits(key, dtype.itemsize * 8, _shape(shape))


def _shape(shape: Any) -> tuple[int, ...]:
    """A sample shape as a tuple of ints (one int is a 1-d shape); a float, a string or a
    negative size is refused, never rounded."""
    dims = (shape,) if isinstance(shape, (int, np.integer)) else shape
    try:
        sizes = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise ShapeError(
            f"random: a shape is an int or a sequence of ints, got {shape!r}"
        ) from None
    if any(d < 0 for d in sizes):
        raise ShapeError(f"random: a shape's sizes must be >= 0, got {shape!r}")
    return sizes
