"""Scaling of the structural graph engine: build + resolve + merge + compile, per operation.

Chains (each op reads the previous one) and random DAGs (fixed seed; each op reads two
earlier values, chosen among the last 100 -- the locality of traced code -- or uniformly
among all of them, the worst case for CPU caches) of 1 000, 10 000 and 100 000 toy scalar
operations. Prints CPU microseconds per operation for each stage (mean over enough repeats
to do about 300 000 operations per size), the part of them spent in CPython's cyclic garbage
collector, and the per-op cost ratio of the largest size to the smallest (linear scaling
means a ratio near 1), with and without the collector's time: its full collections traverse
the whole heap, so their per-object cost grows with the heap as caches stop holding it. The
last line measures that memory effect alone: a random read among N objects.

Run: python benchmarks/graph_scaling.py
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from tf8.graph import GraphBuilder, compile_program, materialize_merge, resolve  # noqa: E402

SIZES = (1_000, 10_000, 100_000)
STAGES = ("build", "resolve", "merge", "compile")
SEED = 20240501
DAG_INPUTS = 16
LOCAL_WINDOW = 100


@dataclass(frozen=True, slots=True)
class Add:
    """a + b."""

    input_count: ClassVar[int] = 2
    output_count: ClassVar[int] = 1


@dataclass(frozen=True, slots=True)
class Mul:
    """a * b."""

    input_count: ClassVar[int] = 2
    output_count: ClassVar[int] = 1


@dataclass(frozen=True, slots=True)
class Sub:
    """a - b."""

    input_count: ClassVar[int] = 2
    output_count: ClassVar[int] = 1


OPS = (Add(), Mul(), Sub())

# A recipe is (number of inputs, [(op, (input id, input id)), ...], output ids), where ids
# number the inputs first, then one per operation.
Recipe = tuple[int, list[tuple[Any, tuple[int, int]]], list[int]]


def chain_recipe(size: int) -> Recipe:
    """x0 op x1 op x1 op ...: every operation reads the previous result."""
    steps = [(OPS[i % 3], (1 + i if i else 0, 1)) for i in range(size)]
    return 2, steps, [1 + size]


def dag_recipe(size: int, window: int | None = None, seed: int = SEED) -> Recipe:
    """Each operation reads two earlier values, uniformly among all of them or among the last
    `window`; outputs are the values nothing reads (the sinks)."""
    rng = random.Random(seed)
    steps = []
    seen = set()  # no operation twice, so that every step is one instruction
    used = [False] * (DAG_INPUTS + size)
    for i in range(size):
        available = DAG_INPUTS + i
        low = 0 if window is None else max(0, available - window)
        step = None
        while step is None or step in seen:
            step = (rng.randrange(3), rng.randrange(low, available), rng.randrange(low, available))
        seen.add(step)
        kind, a, b = step
        used[a] = used[b] = True
        steps.append((OPS[kind], (a, b)))
    outputs = [i for i in range(DAG_INPUTS, DAG_INPUTS + size) if not used[i]]
    return DAG_INPUTS, steps, outputs


def local_dag_recipe(size: int) -> Recipe:
    """A random DAG whose operations read values among the last 100 (traced code's locality)."""
    return dag_recipe(size, window=LOCAL_WINDOW)


class GCTimer:
    """Accumulates the CPU time spent in the cyclic garbage collector (via gc.callbacks)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.seconds += time.process_time() - self._started

    def __enter__(self) -> GCTimer:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


def run_pipeline(recipe: Recipe, gc_timer: GCTimer) -> dict[str, float]:
    """Time each stage once (seconds of this process's CPU time, which other load on the
    machine does not inflate), and the collector's share; everything built is dropped."""
    input_count, steps, output_ids = recipe
    clock = time.process_time
    collected = gc_timer.seconds
    start = clock()
    builder = GraphBuilder()
    for i in range(input_count):
        builder.add_input(("x", i))
    add_operation = builder.add_operation
    for op, inputs in steps:  # recipe ids are local ids: inputs first, then one per op
        add_operation(op, inputs)
    graph = builder.finish()
    outputs = [graph.key(i) for i in output_ids]
    built = clock()
    view = resolve(graph)
    resolved = clock()
    flat = materialize_merge(view, outputs)
    merged = clock()
    program = compile_program(flat)
    compiled = clock()
    assert len(program.instructions) == len(steps)
    return {
        "build": built - start,
        "resolve": resolved - built,
        "merge": merged - resolved,
        "compile": compiled - merged,
        "gc": gc_timer.seconds - collected,
    }


def measure(recipe: Recipe, repeats: int) -> dict[str, float]:
    """Mean seconds per stage (and in the collector) over `repeats` runs, after a warm-up.

    The garbage collector is left in its steady state (no gc.collect() between runs): its
    full collections are amortised over every allocation, and resetting it before each run
    would hide their cost from small sizes while charging it to large ones.
    """
    with GCTimer() as gc_timer:
        run_pipeline(recipe, gc_timer)
        runs = [run_pipeline(recipe, gc_timer) for _ in range(repeats)]
    return {part: statistics.fmean(run[part] for run in runs) for part in (*STAGES, "gc")}


def scaling_table(
    name: str, make_recipe: Callable[[int], Recipe], sizes: Sequence[int] = SIZES
) -> tuple[list[list[Any]], tuple[float, float]]:
    """Rows of µs/op per stage, total and GC share for each size; the largest/smallest
    per-op ratio, of the total and of the total without the collector's time."""
    rows = []
    totals = []
    for size in sizes:
        recipe = make_recipe(size)
        repeats = max(3, 300_000 // size)
        seconds = measure(recipe, repeats)
        per_op = {part: seconds[part] / size * 1e6 for part in seconds}
        total = sum(per_op[stage] for stage in STAGES)
        totals.append((total, total - per_op["gc"]))
        rows.append(
            [name, size, *(round(per_op[s], 2) for s in STAGES), round(total, 2)]
            + [round(per_op["gc"], 2)]
        )
    return rows, (totals[-1][0] / totals[0][0], totals[-1][1] / totals[0][1])


class _Probe:
    """A small object with slots, like a graph key."""

    __slots__ = ("value", "a", "b", "c", "d")


def random_access_ns(size: int, reads: int = 200_000, seed: int = SEED) -> float:
    """The machine's floor for random DAGs: ns per read of a random one of `size` objects
    (spaced as keys are, with a dict lookup by id, as merge and compile do)."""
    rng = random.Random(seed)
    objects = []
    spacers = []
    for _ in range(size):
        objects.append(_Probe())
        spacers.append([_Probe() for _ in range(4)])  # ~ the other objects of an operation
    positions = {id(obj): i for i, obj in enumerate(objects)}
    order = [objects[rng.randrange(size)] for _ in range(reads)]
    start = time.process_time()
    for obj in order:
        positions[id(obj)]
    return (time.process_time() - start) / reads * 1e9


def main() -> dict[str, tuple[float, float]]:
    """Print the scaling table; returns the largest/smallest per-op ratios per workload."""
    table = []
    ratios = {}
    workloads = (
        ("chain", chain_recipe),
        ("random DAG, local", local_dag_recipe),
        ("random DAG, uniform", dag_recipe),
    )
    for name, make_recipe in workloads:
        rows, ratio = scaling_table(name, make_recipe)
        table.extend(rows)
        ratios[name] = ratio
    headers = ["graph", "ops", *(f"{s} µs/op" for s in STAGES), "total µs/op", "of which GC"]
    print(tabulate(table, headers=headers, tablefmt="github"))
    print()
    for name, (ratio, without_gc) in ratios.items():
        print(
            f"{name}: per-op cost {SIZES[-1]:,} / {SIZES[0]:,} ops = {ratio:.2f} "
            f"({without_gc:.2f} without the cyclic GC's time)"
        )
    floor = [random_access_ns(size) for size in SIZES]
    print(
        "memory floor (random object read + dict lookup, ns): "
        + ", ".join(f"{size:,}: {ns:.0f}" for size, ns in zip(SIZES, floor))
        + f"; ratio {floor[-1] / floor[0]:.2f}"
    )
    return ratios


if __name__ == "__main__":
    main()
