"""The threefry2x32 op (one op for the Threefry-2x32 hash, JAX's `threefry2x32_p`): bit for
bit with the op-by-op composition tf8.random used before it and with the Random123
known-answer vectors; eager, under jit, vmap and scan; no derivative; errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp
import tf8.random as random
from tf8 import lax
from tf8.errors import DTypeError, ShapeError
from tf8.ops.extension import threefry as threefry_module
from tf8.ops.extension.threefry import PARITY, ROTATIONS, Threefry2x32, threefry2x32_kernel

U32 = np.uint32


def composition(key1, key2, x1, x2):
    """The hash as tf8.random built it before the op: ~120 lax ops (kept as the reference)."""
    shape = np.broadcast_shapes(*(np.shape(v) for v in (key1, key2, x1, x2)))
    key1, key2, x1, x2 = (
        tnp.broadcast_to(tnp.asarray(v, U32), shape) for v in (key1, key2, x1, x2)
    )

    def const(value, like):
        return tnp.full_like(like, value)

    def rotate(x, d):
        return lax.bitwise_or(
            lax.shift_left(x, const(d, x)), lax.shift_right_logical(x, const(32 - d, x))
        )

    keys = [key1, key2, lax.bitwise_xor(lax.bitwise_xor(key1, key2), const(PARITY, key1))]
    x = [lax.add(x1, keys[0]), lax.add(x2, keys[1])]
    for block in range(5):
        for r in ROTATIONS[block % 2]:
            x[0] = lax.add(x[0], x[1])
            x[1] = lax.bitwise_xor(x[0], rotate(x[1], r))
        x[0] = lax.add(x[0], keys[(block + 1) % 3])
        x[1] = lax.add(lax.add(x[1], keys[(block + 2) % 3]), const(block + 1, x[1]))
    return np.asarray(x[0]), np.asarray(x[1])


def words(rng, shape):
    return rng.integers(0, 2**32, size=shape, dtype=np.uint64).astype(U32)


def same(got, expected):
    for g, e in zip(got, expected):
        g = np.asarray(g)
        assert g.dtype == U32 and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


# --- values -------------------------------------------------------------------------------------


def test_random123_known_answers():
    """Random123's kat_vectors for threefry2x32_20 (JAX's own test uses them too)."""
    cases = [
        ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
        ((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 2, (0x1CB996FC, 0xBB002BE7)),
        ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
    ]
    for key, count, expected in cases:
        out = random.threefry2x32(*(np.array(v, U32) for v in (*key, *count)))
        assert [int(np.asarray(o)) for o in out] == list(expected)


@given(
    st.integers(0, 2**31),
    st.sampled_from([(), (1,), (7,), (2, 3), (3, 1, 4)]),
    st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_the_op_equals_the_composition(seed, shape, ones):
    """Any operand may have sizes 1 (broadcast), the rest the full shape."""
    rng = np.random.default_rng(seed)
    operands = [words(rng, (1,) * len(shape) if one else shape) for one in ones]
    expected = composition(*operands)
    same(random.threefry2x32(*operands), expected)
    same(tf8.jit(random.threefry2x32)(*operands), expected)


def test_blocks_and_partial_broadcasts_in_the_numpy_kernel(monkeypatch):
    """Several kernel blocks (a short last one), keys of a batch against counters of a draw."""
    monkeypatch.setattr(threefry_module, "BLOCK", 64)
    rng = np.random.default_rng(1)
    keys = [words(rng, (3, 1)) for _ in range(2)]
    counters = [words(rng, (1, 50)), np.arange(50, dtype=U32).reshape(1, 50)]
    got = threefry2x32_kernel(Threefry2x32(), *keys, *counters)
    same(got, composition(*keys, *counters))
    assert got[0].shape == (3, 50)
    empty = threefry2x32_kernel(Threefry2x32(), *keys, *(c[:, :0] for c in counters))
    assert empty[0].shape == (3, 0)


def test_samplers_use_one_op():
    program = tf8.jit(lambda k: random.normal(k, (10,), np.float32)).lower(np.zeros(2, U32))
    names = [i.op.name for i in program.program.instructions]
    assert names.count("threefry2x32") == 1 and "shift_left" not in names


# --- transforms --------------------------------------------------------------------------------


def test_vmap_over_keys_or_counters_is_a_loop():
    rng = np.random.default_rng(2)
    keys, counters = words(rng, (4, 2)), words(rng, (4, 5))
    hashed = tf8.vmap(lambda k: random.threefry2x32(k[:1], k[1:], counters[0], counters[1]))(keys)
    loop = [composition(k[:1], k[1:], counters[0], counters[1]) for k in keys]
    same(hashed, [np.stack([o[i] for o in loop]) for i in range(2)])
    others = words(rng, (5, 4))  # batched along axis 1
    hashed = tf8.vmap(random.threefry2x32, in_axes=(None, None, 0, 1))(
        keys[0, :1], keys[1, :1], counters, others
    )
    loop = [composition(keys[0, :1], keys[1, :1], c, d) for c, d in zip(counters, others.T)]
    same(hashed, [np.stack([o[i] for o in loop]) for i in range(2)])


def test_vmap_of_a_sampler_under_jit_matches_each_key():
    keys = random.split(random.PRNGKey(3), 3)
    draw = tf8.jit(tf8.vmap(lambda k: random.normal(k, (4,), np.float32)))
    batched = draw(np.asarray(keys))
    for k, row in zip(keys, batched):
        np.testing.assert_array_equal(row, np.asarray(random.normal(k, (4,), np.float32)))


def test_scan_splitting_a_key_every_step_is_the_python_loop():
    def step(k, _):
        k, sub = random.split(k)
        return k, random.bits(sub, (3,))

    _, stacked = tf8.jit(lambda k: lax.scan(step, k, None, length=4))(np.asarray(random.PRNGKey(5)))
    k, rows = random.PRNGKey(5), []
    for _ in range(4):
        k, sub = random.split(k)
        rows.append(np.asarray(random.bits(sub, (3,))))
    np.testing.assert_array_equal(stacked, np.stack(rows))


def test_no_derivative_reaches_through_the_bits():
    def f(x):
        bits = random.bits(random.PRNGKey(0), (3,))
        return tnp.sum(x * lax.convert_element_type(bits, np.float64))

    x = np.ones(3)
    expected = np.asarray(random.bits(random.PRNGKey(0), (3,)), np.float64)
    np.testing.assert_array_equal(tf8.grad(f)(x), expected)
    np.testing.assert_array_equal(tf8.jit(tf8.grad(f))(x), expected)


# --- errors ------------------------------------------------------------------------------------


def test_wrong_dtypes_and_shapes_are_tf8_errors():
    k = np.zeros((1,), U32)
    with pytest.raises(DTypeError, match=r"threefry2x32.*uint32.*int32"):
        random.threefry2x32(k, k, np.zeros(3, np.int32), np.zeros(3, U32))
    with pytest.raises(ShapeError, match=r"threefry2x32.*one rank"):
        random.threefry2x32(k, k, np.zeros((2, 3), U32), np.zeros(3, U32))
    with pytest.raises(ShapeError, match=r"threefry2x32.*axis 0.*agree or be 1"):
        random.threefry2x32(k, k, np.zeros(3, U32), np.zeros(4, U32))
    with pytest.raises(ShapeError, match=r"threefry2x32"):
        tf8.jit(random.threefry2x32)(k, k, np.zeros(3, U32), np.zeros(4, U32))


def test_the_dask_engine_hashes_chunked_counters_blockwise():
    da = pytest.importorskip(
        "dask.array", reason="the Dask engine needs its extra: pip install dask"
    )
    import dask

    key = np.array([3, 4], U32)
    counters = np.arange(500, dtype=U32)
    f = tf8.jit(lambda c: random.threefry2x32(key[:1], key[1:], np.zeros(1, U32), c))
    expected = composition(key[:1], key[1:], np.zeros(1, U32), counters)
    with dask.config.set(scheduler="synchronous"):
        lazy = f(da.from_array(counters, chunks=100))
        assert lazy[0].chunks == ((100,) * 5,)
        same([np.asarray(w.compute()) for w in lazy], expected)
