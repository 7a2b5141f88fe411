"""tf8.random against JAX's default PRNG (threefry2x32, partitionable counters).

The expected values below were recorded with JAX 0.10.2 (`jax_enable_x64` on,
`jax_threefry_partitionable` at its default, True), so these tests never need JAX. Keys, bits,
integers, uniforms, Bernoulli and float32 normals (XLA's float32 erf_inv polynomial) must match
bit for bit; float64 normals to 1e-12 relative, the accuracy of the inverse error function.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import tf8
import tf8.random as random
from tf8.errors import DTypeError
from tf8.random.basic import _erf_inv

# --- recorded with JAX 0.10.2 (key = jax.random.PRNGKey(20261201)) -----------------------------
KEY = [0, 20261201]
KEY_NEGATIVE_SEED = [4294967293, 539222987]
SPLIT_3 = [[3575386634, 3749305593], [3262021800, 438724320], [2357905287, 1918306877]]
SPLIT_DEFAULT = [[3575386634, 3749305593], [3262021800, 438724320]]
FOLD_IN = {
    0: [3575386634, 3749305593],
    7: [1808847463, 3783130912],
    2147483653: [1445527864, 7715840],
}
BITS_UINT32 = [[174444275, 3628656200, 4275948986], [3872095227, 1693762921, 3966098737]]
BITS_UINT8 = [243, 72, 186, 251, 105]
BITS_SCALAR = 174444275
UNIFORM_F64 = [
    0.8324595715089125,
    0.7594986353307376,
    0.5489926057510637,
    0.3854338378918125,
    0.11513312009042509,
    0.44494931740114607,
]
UNIFORM_F32 = [
    0.04061591625213623,
    0.8448623418807983,
    0.9955718517303467,
    0.9015423059463501,
    0.394359827041626,
    0.9234292507171631,
]
UNIFORM_RANGE_F64 = [  # shape (2, 2), flattened
    3.6596765720713,
    3.0759890826459007,
    1.3919408460085094,
    0.08347070313450011,
]
NORMAL_F64 = [
    0.9639303290385677,
    0.704690717361946,
    0.1231165720751431,
    -0.291240126146203,
    -1.1996733162232593,
    -0.13843247240091272,
]
NORMAL_F32 = [
    -1.7435823678970337,
    1.0146445035934448,
    2.6175544261932373,
    1.2903900146484375,
    -0.26797351241111755,
    1.4285229444503784,
]
UNIFORM_F16 = [0.8076171875, 0.8994140625, 0.802734375, 0.4833984375, 0.7705078125, 0.86328125]
NORMAL_F16 = [0.8701171875, 1.279296875, 0.85205078125, -0.041015625, 0.74169921875, 1.0966796875]
EXPONENTIAL_F16 = [1.6484375, 2.296875, 1.623046875, 0.66064453125]
BERNOULLI = [0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
RANDINT_INT64 = [3, 2, 6, 4, 1, 2]
RANDINT_INT32 = [83, 19, 63, 24, 84, 18]
RANDINT_UINT8_FULL = [247, 95, 55, 124, 100, 22]
RANDINT_UINT32 = [1867452848, 805021282, 76894448, 145606783, 540635165, 382418713]
RANDINT_INT64_FULL = [
    -2911112410467748008,
    -2971078813640868400,
    4362774230566101307,
    -5801030502893530878,
]
LOOP_UNIFORMS = [0.3421882800110676, 0.7999024615514307, 0.226284828041732]

KEY_NP = np.array(KEY, np.uint32)


def exact(got, expected, dtype) -> None:
    got = np.asarray(got)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.array(expected, dtype))


def key():
    return random.PRNGKey(20261201)


# --- keys, split, fold_in, bits: bit for bit ------------------------------------------------


def test_prng_key_holds_the_seed_bits():
    exact(key(), KEY, np.uint32)
    exact(random.PRNGKey(-12345678901), KEY_NEGATIVE_SEED, np.uint32)
    exact(random.key_data(random.wrap_key_data(KEY_NP)), KEY, np.uint32)
    exact(random.key(20261201), KEY, np.uint32)


def test_split_matches_jax():
    exact(random.split(key(), 3), SPLIT_3, np.uint32)
    exact(random.split(key()), SPLIT_DEFAULT, np.uint32)


@pytest.mark.parametrize("data", sorted(FOLD_IN))
def test_fold_in_matches_jax(data):
    exact(random.fold_in(key(), data), FOLD_IN[data], np.uint32)


def test_bits_match_jax():
    exact(random.bits(key(), (2, 3)), BITS_UINT32, np.uint32)
    exact(random.bits(key(), (5,), np.uint8), BITS_UINT8, np.uint8)
    exact(random.bits(key()), BITS_SCALAR, np.uint32)


# --- samplers ---------------------------------------------------------------------------------


def test_uniform_matches_jax_bit_for_bit():
    exact(random.uniform(key(), (6,)), UNIFORM_F64, np.float64)
    exact(random.uniform(key(), (6,), np.float32), UNIFORM_F32, np.float32)
    in_range = random.uniform(key(), (2, 2), minval=-3.0, maxval=5.0)
    exact(in_range, np.reshape(UNIFORM_RANGE_F64, (2, 2)), np.float64)


def test_normal_matches_jax():
    f64 = np.asarray(random.normal(key(), (6,)))
    f32 = np.asarray(random.normal(key(), (6,), np.float32))
    assert f64.dtype == np.float64 and f32.dtype == np.float32
    np.testing.assert_allclose(f64, NORMAL_F64, rtol=1e-12)
    exact(f32, NORMAL_F32, np.float32)
    x = np.linspace(-0.999, 0.999, 2001, dtype=np.float32)  # the polynomial against scipy
    np.testing.assert_allclose(_erf_inv(tf8.tensor(x)), scipy.special.erfinv(x), rtol=1e-5)
    assert np.asarray(_erf_inv(tf8.tensor(np.float32([-1, 1])))).tolist() == [-np.inf, np.inf]


def test_float16_draws_match_jax_bit_for_bit():
    """float16 stays float16: its 16 random bits are the low half of the 32-bit draw."""
    exact(random.uniform(key(), (6,), np.float16), UNIFORM_F16, np.float16)
    exact(random.normal(key(), (6,), np.float16), NORMAL_F16, np.float16)
    exact(random.exponential(key(), (4,), np.float16), EXPONENTIAL_F16, np.float16)


def test_bernoulli_matches_jax():
    exact(random.bernoulli(key(), 0.3, (10,)), BERNOULLI, np.bool_)


@pytest.mark.parametrize(
    ("args", "dtype", "expected"),
    [
        (((6,), -5, 10), np.int64, RANDINT_INT64),
        (((6,), 0, 100, np.int32), np.int32, RANDINT_INT32),
        (((6,), 0, 256, np.uint8), np.uint8, RANDINT_UINT8_FULL),
        (((6,), 3, 2**31 + 77, np.uint32), np.uint32, RANDINT_UINT32),
        (((4,), -(2**63), 2**63 - 1), np.int64, RANDINT_INT64_FULL),
    ],
    ids=["int64", "int32", "uint8-full-range", "uint32", "int64-full-range"],
)
def test_randint_matches_jax(args, dtype, expected):
    exact(random.randint(key(), *args), expected, dtype)


# --- transformations and usage ----------------------------------------------------------------


def test_jit_gives_the_same_numbers():
    def draw(k):
        return (
            random.split(k, 3),
            random.fold_in(k, 7),
            random.uniform(k, (6,), np.float32),
            random.normal(k, (6,)),
            random.randint(k, (6,), -5, 10),
            random.bernoulli(k, 0.3, (10,)),
        )

    jitted = tf8.jit(draw)(KEY_NP)
    for got, want in zip(jitted, draw(key())):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    exact(jitted[0], SPLIT_3, np.uint32)
    exact(tf8.jit(random.PRNGKey)(20261201), KEY, np.uint32)


def test_vmap_over_keys_and_data_is_a_loop():
    keys = np.asarray(random.split(key(), 4))
    batched = tf8.vmap(lambda k: random.uniform(k, (3,)))(keys)
    looped = np.stack([np.asarray(random.uniform(k, (3,))) for k in keys])
    np.testing.assert_array_equal(np.asarray(batched), looped)
    batched = tf8.vmap(lambda k: random.randint(k, (2,), 0, 7))(keys)
    looped = np.stack([np.asarray(random.randint(k, (2,), 0, 7)) for k in keys])
    np.testing.assert_array_equal(np.asarray(batched), looped)
    folded = tf8.vmap(lambda d: random.fold_in(key(), d))(np.array(sorted(FOLD_IN)))
    exact(folded, [FOLD_IN[d] for d in sorted(FOLD_IN)], np.uint32)


def test_a_loop_that_splits_each_step_is_deterministic_and_matches_jax():
    def run():
        k, values = key(), []
        for _ in range(3):
            k, sub = random.split(k)
            values.append(float(random.uniform(sub)))
        return values

    assert run() == run() == LOOP_UNIFORMS


# Malformed keys: test_random_samplers.py::test_malformed_keys_are_refused.


def test_bad_dtypes_and_seeds_are_refused():
    with pytest.raises(DTypeError, match="float16 or float32 or float64"):
        random.uniform(key(), (2,), np.int32)
    with pytest.raises(DTypeError, match="integer dtype"):
        random.randint(key(), (2,), 0, 3, np.float64)
    with pytest.raises(DTypeError, match="integer scalar"):
        random.PRNGKey(1.5)


def test_key_data_and_wrap_key_data_take_batches_of_keys_as_jax():
    keys = random.split(random.PRNGKey(3), 4)
    np.testing.assert_array_equal(random.key_data(keys), keys)
    np.testing.assert_array_equal(random.wrap_key_data(keys), keys)
    # split with a tuple num: one key per element of that shape, the same counters flattened
    grid = random.split(random.PRNGKey(3), (2, 3))
    assert grid.shape == (2, 3, 2)
    np.testing.assert_array_equal(np.reshape(grid, (6, 2)), random.split(random.PRNGKey(3), 6))


def test_small_and_odd_arguments_as_jax():
    # recorded with JAX 0.10.2 (x64), key = jax.random.PRNGKey(5)
    key = random.PRNGKey(5)
    high = random.bernoulli(key, 0.3, (6,), mode="high")
    np.testing.assert_array_equal(high, [False, True, False, False, True, True])
    # uint8 (and every dtype under 32 bits) is sampled in int32, then converted
    small = random.randint(key, (6,), 0, 3, dtype="uint8")
    assert small.dtype == np.uint8
    np.testing.assert_array_equal(small, [0, 0, 0, 0, 2, 1])
    # fold_in converts its data as jnp.uint32 does: a float truncates
    np.testing.assert_array_equal(random.fold_in(key, 2.7), [3594430910, 1784718894])
    with pytest.raises(DTypeError, match="out of bounds"):
        random.fold_in(key, -3)  # JAX: OverflowError for a Python int out of uint32's range
    # weibull_min's 1/concentration is taken in the concentration's dtype, as JAX's
    w = random.weibull_min(key, np.float32(1.0), np.float32(3.0))
    assert w.dtype == np.float64
    np.testing.assert_allclose(float(w), 1.00201362, rtol=1e-8)
