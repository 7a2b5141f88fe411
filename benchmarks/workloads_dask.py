"""Opt-in: the value and gradient of a least-squares loss over data past one process (issue 18).

    python -m benchmarks --only dask_lstsq            # through the harness (2 runs a variant)
    python -m benchmarks.workloads_dask [--rows N]    # one run each, with memory figures

`mean((X @ w - y) ** 2)` and its gradient in w, `X` of shape rows × 8 float64 (4·10⁷ rows:
2.5 GB) in chunks of 10⁶ rows, `y` likewise; generation is part of the timing:
- "numpy": one process, `numpy.random.default_rng(0)` then the loss and the closed-form
  gradient (needs the whole 2.5 GB);
- "tf8.jit[dask]": `dask.array.random.default_rng(0)` makes the chunks lazily on the workers
  (never persisted), `tf8.jit(tf8.value_and_grad(loss))` builds the graph, a LocalCluster of 2
  worker processes (one thread each) computes it.

The two use different random streams, so their results agree only statistically (rtol 5%).
Peak memory per worker is sampled (psutil, every 10 ms) from the worker processes' resident
size, and reported over the worker's resident size before the run, in chunks of X (64 MB:
10⁶ rows × 8 × 8 bytes).

Not in the default run (`python -m benchmarks`): it generates 2.5 GB and takes a minute.
"""

from __future__ import annotations

import argparse
import atexit
import threading
import time
from typing import Any

import numpy as np

from benchmarks.harness import Options, Variants, Workload

ROWS, CHUNK, FEATURES = 40_000_000, 1_000_000, 8
W = np.linspace(-1.0, 1.0, FEATURES)
MEMORY: dict[str, float] = {}  # the last dask run's figures, for the note under the table


def numpy_baseline(rows: int) -> tuple[float, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((rows, FEATURES))
    y = rng.standard_normal(rows)
    r = X @ W - y
    return float(np.mean(r * r)), 2.0 * (X.T @ r) / rows


def loss(w: Any, X: Any, y: Any) -> Any:
    import tf8.numpy as tnp

    return tnp.mean((X @ w - y) ** 2)


class Sampler:
    """Peak resident size of each worker process, sampled in a thread."""

    def __init__(self, pids: dict[str, int]) -> None:
        import psutil

        self.processes = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.base = {name: p.memory_info().rss for name, p in self.processes.items()}
        self.peak = dict(self.base)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for name, p in self.processes.items():
                self.peak[name] = max(self.peak[name], p.memory_info().rss)
            time.sleep(0.01)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


def dask_variant(rows: int, chunk: int) -> tuple[Any, Any]:
    """(run, close): `run()` generates and computes on a fresh 2-process LocalCluster."""
    import os

    import dask.array as da
    import distributed

    import tf8

    cluster = distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    )
    client = distributed.Client(cluster)
    pids = client.run(os.getpid)
    client.run(lambda: __import__("tf8.runtime.engines.dask"))  # warm workers, as a live cluster
    step = tf8.jit(tf8.value_and_grad(loss))

    def run() -> tuple[float, np.ndarray]:
        rng = da.random.default_rng(0)
        X = rng.standard_normal((rows, FEATURES), chunks=(chunk, FEATURES))
        y = rng.standard_normal(rows, chunks=chunk)
        value, grad = step(W, X, y)
        with Sampler(pids) as sampler:
            value, grad = client.compute([value, grad], sync=True)
        chunk_bytes = chunk * FEATURES * 8  # X's chunk (y's is an eighth of it)
        MEMORY["peak_rss_mb"] = max(sampler.peak.values()) / 1e6
        MEMORY["chunk_mb"] = chunk_bytes / 1e6
        MEMORY["peak_over_start_chunks"] = max(
            (sampler.peak[n] - sampler.base[n]) / chunk_bytes for n in sampler.peak
        )
        return float(value), np.asarray(grad)

    def close() -> None:
        client.close()
        cluster.close()

    return run, close


def build(options: Options) -> Variants:
    rows = 2 * CHUNK // 8 if options.tiny else ROWS
    chunk = CHUNK // 8 if options.tiny else CHUNK
    run, close = dask_variant(rows, chunk)
    atexit.register(close)  # the cluster serves every sample; closed when the process ends
    return {"numpy": lambda: numpy_baseline(rows), "tf8.jit[dask]": run}


def note(results: Any) -> str | None:
    if not MEMORY:
        return None
    return (
        f"dask_lstsq: peak resident size per worker {MEMORY['peak_rss_mb']:.0f} MB, "
        f"{MEMORY['peak_over_start_chunks']:.1f} chunks of X ({MEMORY['chunk_mb']:.0f} MB each) "
        "over its size before the run"
    )


WORKLOADS = [
    Workload(
        "dask_lstsq",
        "value+grad of mean((X@w-y)**2), X 4e7x8 f64 made lazily on 2 Dask worker processes",
        build,
        rtol=0.05,
        single_call=True,
        max_rounds=1,
        note=note,
    )
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--chunk", type=int, default=CHUNK)
    parser.add_argument("--skip-numpy", action="store_true", help="time the dask run only")
    args = parser.parse_args()
    run, close = dask_variant(args.rows, args.chunk)
    try:
        start = time.perf_counter()
        value, grad = run()
        dask_s = time.perf_counter() - start
    finally:
        close()
    print(f"rows {args.rows:.3g}, chunk {args.chunk:.3g} rows ({args.chunk * 64 / 1e6:.0f} MB)")
    print(f"tf8.jit[dask] on 2 worker processes: {dask_s:.2f} s, loss {value:.6f}")
    print(note(None))
    if not args.skip_numpy:
        start = time.perf_counter()
        reference, reference_grad = numpy_baseline(args.rows)
        numpy_s = time.perf_counter() - start
        print(f"numpy, one process: {numpy_s:.2f} s, loss {reference:.6f}")
        print(f"ratio dask / numpy: {dask_s / numpy_s:.2f}")
        print("gradients:", grad, reference_grad, sep="\n")


if __name__ == "__main__":
    main()
