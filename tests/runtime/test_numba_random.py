"""The numba engine's kernel ops (tf8/runtime/engines/numba/random.py): the compiled
Threefry-2x32 kernel, bit for bit with the numpy kernel, alone or in a run with fused
regions; what stays on numpy (batches of keys, float32 log1p).

numba compiles cost 0.1-1 s each (the hash kernel a few seconds, once: numba caches it on
disk), so these tests compile few programs; fused regions go to a fresh TF8_CACHE_DIR."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
import tf8.random as random
from tf8.api import runtime_for

pytest.importorskip("numba", reason="the numba engine needs its extra: pip install numba")

U32 = np.uint32


@pytest.fixture(autouse=True, scope="module")
def fresh_cache(tmp_path_factory):
    patch = pytest.MonkeyPatch()
    patch.setenv("TF8_CACHE_DIR", str(tmp_path_factory.mktemp("tf8-cache")))
    yield
    patch.undo()


def optimised(f, *args):
    """f's result once its optimised tier runs (a first call runs lean), and its program."""
    for _ in range(3):
        value = f(*args)
    return value, runtime_for("numba").prepare(f.lower(*args))


def engine_of(prepared, name):
    return {i.engine for i in prepared.program.instructions if i.name == name}


def test_the_compiled_hash_matches_the_numpy_kernel_in_a_run_with_fused_code():
    """One numba run: the hash kernel, then a fused float chain reading a 0-d input."""
    rng = np.random.default_rng(0)
    key = rng.integers(0, 2**32, 2, dtype=np.uint64).astype(U32)
    counters = np.arange(3000, dtype=U32)
    x = np.linspace(-1.0, 1.0, 3000)

    def f(key, counters, x, scale):
        bits = random.threefry2x32(key[:1], key[1:], tnp.zeros(1, U32), counters)
        return bits, tnp.sin(x) * scale + x * x + scale

    numba_f, numpy_f = tf8.jit(f, engine="numba"), tf8.jit(f, engine="numpy")
    (bits, floats), prepared = optimised(numba_f, key, counters, x, 2.0)
    (bits0, floats0) = numpy_f(key, counters, x, 2.0)
    for got, expected in zip(bits, bits0):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_allclose(floats, floats0, rtol=1e-10)
    assert engine_of(prepared, "threefry2x32") == {"numba"}, prepared.pretty()
    assert "compiled threefry2x32 kernel" in prepared.pretty()


def test_normal_float32_on_numba_stays_within_a_float32_rounding_of_numpy():
    keys = np.asarray(random.split(random.PRNGKey(7), 2))
    draw = lambda k: random.normal(k, (2000,), np.float32)  # noqa: E731
    value, prepared = optimised(tf8.jit(draw, engine="numba"), keys[0])
    expected = tf8.jit(draw, engine="numpy")(keys[0])
    assert value.dtype == np.float32
    np.testing.assert_allclose(value, expected, rtol=1e-6, atol=1e-7)
    assert engine_of(prepared, "threefry2x32") == {"numba"}
    assert engine_of(prepared, "log1p") == {"numpy"}, "float32 log1p is left to numpy's SIMD loop"
    assert engine_of(prepared, "sqrt") == {"numba"}
    # a batch of keys (vmap) hashes on numpy, one key per row; 0-d fold_in on numba
    batched, prepared = optimised(tf8.jit(tf8.vmap(draw), engine="numba"), keys)
    np.testing.assert_allclose(batched[1], tf8.jit(draw)(keys[1]), rtol=1e-6, atol=1e-7)
    assert engine_of(prepared, "threefry2x32") == {"numpy"}
    folded, _ = optimised(tf8.jit(lambda k: random.fold_in(k, 7), engine="numba"), keys[0])
    np.testing.assert_array_equal(folded, np.asarray(random.fold_in(keys[0], 7)))
