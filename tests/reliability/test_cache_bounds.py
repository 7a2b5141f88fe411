"""Bounded caches: the prepare cache, jit's caches and the per-op eager tables keep at most
`tf8.config`'s sizes, count hits, misses and evictions, and rebuild an evicted entry right."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, Runtime
from tf8.errors import ParameterError
from tf8.graph.caches import LRUCache, Table
from tf8.ops.definition import PLANS


def _program(scale: float):
    with tf8.recording():
        x = tf8.placeholder((3,), "float64", name="x")
        return GraphCompiler().compile(tnp.sin(x) * scale)


# --- tf8.config ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["prepare", "jit", "plan"])
@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "many", None])
def test_a_cache_size_must_be_a_positive_int(kind, bad, cache_sizes):
    name = f"tf8_{kind}_cache_size"
    before = getattr(tf8.config, name)
    with pytest.raises(ParameterError, match=f"{name}: expected a positive int"):
        tf8.config.update(name, bad)
    assert getattr(tf8.config, name) == before


def test_sizes_are_options_read_back_and_applied(cache_sizes):
    assert {"tf8_prepare_cache_size", "tf8_jit_cache_size", "tf8_plan_cache_size"} <= set(
        tf8.config.options()
    )
    cache_sizes(jit=7, prepare="5")  # text (as from the environment) is read as a number
    assert (tf8.config.tf8_jit_cache_size, tf8.config.tf8_prepare_cache_size) == (7, 5)
    assert tf8.jit(tnp.sin)._traces.maxsize == 7
    assert Runtime().cache_stats.maxsize == 5


# --- the prepare cache -----------------------------------------------------------------------


def test_the_prepare_cache_evicts_the_least_recent_and_rebuilds_it(cache_sizes):
    cache_sizes(prepare=2)
    runtime = Runtime()
    programs = [_program(s) for s in (1.0, 2.0, 3.0)]
    x = np.array([0.1, 0.2, 0.3])
    for p in programs[:2]:
        runtime.prepare(p)
    runtime.prepare(programs[0])  # now the most recent: programs[1] goes first
    runtime.prepare(programs[2])
    stats = runtime.cache_stats.stats()
    assert stats == {"hits": 1, "misses": 3, "evictions": 1, "size": 2, "maxsize": 2}
    assert programs[0].fingerprint in runtime.cache_stats
    assert programs[1].fingerprint not in runtime.cache_stats
    (out,) = runtime.prepare(programs[1]).run(x)  # rebuilt: a miss, and the right answer
    np.testing.assert_allclose(out, np.sin(x) * 2.0, rtol=1e-15)
    assert (runtime.cache_stats.misses, runtime.cache_stats.evictions) == (4, 2)


def test_lowering_a_size_evicts_at_once(cache_sizes):
    runtime = Runtime()
    for s in (1.0, 2.0, 3.0, 4.0):
        runtime.prepare(_program(s))
    cache_sizes(prepare=1)
    assert len(runtime.cache_stats) == 1 and runtime.cache_stats.evictions == 3


# --- jit ---------------------------------------------------------------------------------------


def test_jit_evicts_old_signatures_and_retraces_them_correctly(cache_sizes):
    cache_sizes(jit=2)
    f = tf8.jit(lambda x: tnp.cumsum(x) * 2.0)
    arrays = [np.arange(n, dtype=float) for n in (2, 3, 4)]
    for a in arrays:
        np.testing.assert_array_equal(f(a), np.cumsum(a) * 2.0)
    info = f.cache_info()
    assert (info["size"], info["traces"], info["misses"], info["hits"]) == (2, 3, 3, 0)
    assert info["evictions"] >= 3  # one from each of its three tables
    np.testing.assert_array_equal(f(arrays[0]), np.cumsum(arrays[0]) * 2.0)  # retraced
    assert f.cache_info()["traces"] == 4
    np.testing.assert_array_equal(f(arrays[2]), np.cumsum(arrays[2]) * 2.0)  # still there
    assert f.cache_info()["traces"] == 4 and f.cache_info()["hits"] == 1


def test_jit_statistics_count_every_call_once(cache_sizes):
    f = tf8.jit(lambda x, y: x * y)
    calls = 0
    for args in [(np.ones(2), 2.0), (np.ones(2), np.ones(2)), (np.ones(2), np.ones(2))] * 3:
        f(*args)
        calls += 1
    info = f.cache_info()
    assert info["hits"] + info["misses"] == calls == 9
    assert info["misses"] == 2 and info["traces"] == 2


# --- the per-op eager tables -------------------------------------------------------------------


def test_the_plan_table_drops_its_older_half_and_replans_correctly(cache_sizes):
    cache_sizes(plan=16)
    assert len(PLANS) <= 16
    evictions = PLANS.evictions
    for n in range(1, 40):  # 39 shapes: the table fills and halves again and again
        x = tf8.tensor(np.arange(n, dtype=float))
        np.testing.assert_allclose(np.asarray(tnp.exp(x) + x), np.exp(np.arange(n)) + np.arange(n))
        assert len(PLANS) <= 16
    assert PLANS.evictions > evictions
    x = tf8.tensor(np.arange(1, dtype=float))  # the first shape's plan is gone: made again
    np.testing.assert_allclose(np.asarray(tnp.exp(x) + x), [1.0])


def test_cache_info_sums_every_cache_by_kind():
    f = tf8.jit(lambda x: x + 1.0)
    f(np.ones(2))
    info = tf8.cache_info()
    assert {"jit", "prepare", "plans", "primitives", "avals"} <= set(info)
    for stats in info.values():
        assert set(stats) == {"caches", "hits", "misses", "evictions", "size", "maxsize"}
        assert 0 <= stats["size"] <= stats["maxsize"] * stats["caches"]


def test_the_lru_cache_and_table_on_their_own(cache_sizes):
    cache_sizes(jit=2, plan=4)
    lru = LRUCache("jit", "test")
    assert lru.get("a") is None
    assert lru.get_or_make("a", lambda: 1) == 1
    assert lru.put("a", 2) == 1  # a racing second maker keeps the first value
    lru.put("b", 2)
    lru.get("a")
    lru.put("c", 3)
    assert list(lru) == ["a", "c"] and lru.stats()["evictions"] == 1
    with pytest.raises(ValueError, match="unknown cache kind 'nope'"):
        LRUCache("nope", "test")
    table = Table("plan", "test table")
    for i in range(5):
        table.put(i, i)
    assert list(table) == [2, 3, 4] and table.evictions == 2 and table.misses == 5
