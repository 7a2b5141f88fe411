"""Threads: 8 threads trace, transform (grad, vmap, scan), compile, prepare and run different
and identical programs at once, released together by a barrier, for about a second and a
half, with small caches so that evictions happen under contention. Every answer equals the
serial one, every cache stays within its bound, and the statistics add up (hits + misses =
calls, for the shared jitted function and the shared runtime's prepare cache)."""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, Runtime
from tf8.graph import caches

THREADS = 8
SECONDS = 1.5


def _body(c, x):
    c = c * 0.9 + tnp.sin(x)
    return c, c * 2.0


def _scan_loss(xs):
    return tnp.sum(tf8.lax.scan(_body, 0.0, xs)[1])


def _shared(x):
    return tnp.tanh(x) * 2.0 + tnp.cumsum(x)


def _work(i: int, shared_jit, runtime, compiled) -> dict[str, np.ndarray]:
    """One round of thread `i`: programs shared by all threads and programs of its own size."""
    x = np.linspace(-1.0, 1.0, 3 + i % 4)  # shapes shared by pairs of threads
    own = np.linspace(0.0, 1.0, 10 + i)  # a shape no other thread uses
    mine = tf8.jit(lambda v: tnp.exp(v) * (i + 1.0))  # a new function: traced every round
    return {
        "eager": np.asarray(tnp.sin(tf8.tensor(own)) * 3.0 + 1.0),
        "grad": np.asarray(tf8.grad(_scan_loss)(x)),
        "vmap": np.asarray(tf8.vmap(lambda r: tnp.sum(r * r))(np.outer(x, own))),
        "scan": np.asarray(tf8.lax.scan(_body, 0.0, own)[1]),
        "shared_jit": np.asarray(shared_jit(x)),
        "own_jit": np.asarray(mine(own)),
        "prepared": runtime.prepare(compiled).run(own[:4])[0],
    }


def test_eight_threads_get_the_serial_answers_and_consistent_caches(cache_sizes):
    cache_sizes(jit=2, prepare=3, plan=64)  # evictions happen while threads race
    with tf8.recording():
        v = tf8.placeholder((4,), "float64", name="v")
        compiled = GraphCompiler().compile(tnp.cos(v) * 2.0)
    serial_runtime = Runtime()
    serial = [_work(i, tf8.jit(_shared), serial_runtime, compiled) for i in range(THREADS)]

    shared_jit = tf8.jit(_shared)
    runtime = Runtime()
    barrier = threading.Barrier(THREADS)
    failures: list[str] = []
    rounds = [0] * THREADS

    def thread(i: int) -> None:
        try:
            barrier.wait()
            deadline = time.monotonic() + SECONDS
            while time.monotonic() < deadline or rounds[i] < 2:
                got = _work(i, shared_jit, runtime, compiled)
                for name, value in got.items():
                    if not np.allclose(value, serial[i][name], rtol=1e-13, atol=0):
                        failures.append(f"thread {i} round {rounds[i]}: {name} differs")
                rounds[i] += 1
        except Exception as exc:  # reported below, with the thread that saw it
            failures.append(f"thread {i}: {type(exc).__name__}: {exc}")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often: the finest interleaving we can force
    try:
        with ThreadPoolExecutor(THREADS) as pool:
            list(pool.map(thread, range(THREADS)))
    finally:
        sys.setswitchinterval(interval)
    assert not failures, failures[:5]
    calls = sum(rounds)
    info = shared_jit.cache_info()
    # the serial round's jit(_shared) shares this cache (JAX keys it on the function)
    assert info["hits"] + info["misses"] == calls + THREADS
    assert info["size"] <= 2 and info["traces"] <= info["misses"]
    stats = runtime.cache_stats.stats()
    assert stats["hits"] + stats["misses"] == calls and stats["size"] == 1
    for cache in list(caches._LIVE):
        assert len(cache) <= cache.maxsize, cache
    for name, stats in tf8.cache_info().items():
        assert stats["size"] <= stats["maxsize"] * stats["caches"], name
