"""A small benchmark harness: workloads of named variants, timed interleaved, checked first.

A `Workload` builds its variants — no-argument callables keyed by name ("numpy", "tf8.jit",
and "jax.jit" / "autograd" when those import) — for the given `Options`. `run_workload`
checks that every variant agrees with the "numpy" one, warms them up, then times them
round-robin (the order rotates every round, so drift and cache effects hit all variants
alike) and reports medians. BLAS-bound workloads run under threadpoolctl with one BLAS
thread, so the comparison is per core and not a race between thread pools.

A `single_call` workload takes one call per sample, with no warmup beyond the agreement
check (its numpy baseline excepted): for first calls (variants that build a new function on
every call, so each call pays tracing and compilation) and for calls that take seconds.
`max_rounds` caps the samples of slow workloads, and `note` adds a line under the table
computed from several workloads' results (a scaling slope, say).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import importlib.util
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

Variants = dict[str, Callable[[], Any]]
BASELINE = "numpy"
AUTOGRAD = "autograd"


@dataclass(frozen=True, slots=True)
class Options:
    """How hard to measure: `quick` takes fewer, shorter samples; `tiny` shrinks the sizes
    (for the smoke test, which only checks that the benchmark code runs)."""

    quick: bool = False
    tiny: bool = False

    @property
    def rounds(self) -> int:
        return 5 if self.quick else 31

    @property
    def sample_seconds(self) -> float:
        """Target duration of one timed sample (calls per sample are calibrated to it)."""
        return 0.0002 if self.quick else 0.005


@dataclass(frozen=True, slots=True)
class Workload:
    """A named benchmark: `build(options)` returns its variants (it runs once, untimed)."""

    name: str
    description: str
    build: Callable[[Options], Variants]
    blas_bound: bool = False
    rtol: float = 1e-7
    atol: float = 0.0
    single_call: bool = False  # one call per sample, no warmup (first calls, slow calls)
    max_rounds: int | None = None  # at most this many samples (calls that take seconds)
    note: Callable[[Sequence[Result]], str | None] | None = None  # a line under the table
    # what the agreement check compares (default: the results themselves); variants drawing
    # different random streams agree only in distribution: a statistic of their draws
    statistic: Callable[[Any], Any] | None = None

    def rounds(self, options: Options) -> int:
        return options.rounds if self.max_rounds is None else min(options.rounds, self.max_rounds)


@dataclass(frozen=True, slots=True)
class Timing:
    variant: str
    median_s: float
    min_s: float
    samples: int


@dataclass(frozen=True, slots=True)
class Result:
    workload: Workload
    timings: list[Timing] = field(default_factory=list)
    blas_threads_limited: bool = False
    options: Options = Options()

    def median(self, variant: str) -> float:
        return next(t.median_s for t in self.timings if t.variant == variant)

    def ratio(self, variant: str, baseline: str = BASELINE) -> float:
        """Median time of `variant` over the baseline's (numpy's; lower is faster)."""
        return self.median(variant) / self.median(baseline)

    def has(self, variant: str) -> bool:
        return any(t.variant == variant for t in self.timings)


class DisagreementError(AssertionError):
    """A variant's result differs from the numpy baseline's: its timing would be meaningless."""


def optional_module(name: str) -> ModuleType | None:
    """`name` imported, or None when it is not installed (jax and autograd are optional)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _leaves(value: Any) -> list[np.ndarray]:
    from tf8.tree import tree_leaves

    return [np.asarray(leaf) for leaf in tree_leaves(value)]


def check_agreement(workload: Workload, variants: Mapping[str, Callable[[], Any]]) -> None:
    """Every variant's result must match the numpy baseline's (same structure, allclose)."""
    if BASELINE not in variants:
        raise ValueError(f"workload {workload.name!r} has no {BASELINE!r} variant")
    summary = workload.statistic or (lambda value: value)
    expected = _leaves(summary(variants[BASELINE]()))
    for name, fn in variants.items():
        got = _leaves(summary(fn()))
        if len(got) != len(expected):
            raise DisagreementError(
                f"{workload.name}/{name}: {len(got)} outputs, numpy has {len(expected)}"
            )
        for i, (a, b) in enumerate(zip(got, expected)):
            try:
                np.testing.assert_allclose(a, b, rtol=workload.rtol, atol=workload.atol)
            except AssertionError as exc:
                raise DisagreementError(
                    f"{workload.name}/{name}: output {i} differs from numpy\n{exc}"
                ) from None


def _calibrate(fn: Callable[[], Any], target: float) -> int:
    """Calls per sample so that one sample lasts about `target` seconds."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= target or number >= 1 << 20:
            return number
        number = max(number * 2, int(number * target / max(elapsed, 1e-9)))


def time_interleaved(
    variants: Mapping[str, Callable[[], Any]],
    options: Options,
    rounds: int | None = None,
    single_call: bool = False,
) -> list[Timing]:
    """Round-robin timing with warmup: per variant, the median and min time per call.

    `single_call`: no warmup or calibration, one call per sample, except for the numpy
    baseline (a steady-state computation, warmed up and calibrated as usual)."""
    names = list(variants)
    rounds = options.rounds if rounds is None else rounds
    numbers = dict.fromkeys(names, 1)
    for name in names:
        if single_call and name != BASELINE:
            continue
        variants[name]()  # warmup doubles as calibration
        numbers[name] = _calibrate(variants[name], options.sample_seconds)
    samples: dict[str, list[float]] = {name: [] for name in names}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for round_index in range(rounds):
            shift = round_index % len(names)
            for name in names[shift:] + names[:shift]:
                fn, number = variants[name], numbers[name]
                start = time.perf_counter()
                for _ in range(number):
                    fn()
                samples[name].append((time.perf_counter() - start) / number)
    finally:
        if gc_was_enabled:
            gc.enable()
    return [
        Timing(name, statistics.median(samples[name]), min(samples[name]), len(samples[name]))
        for name in names
    ]


@contextlib.contextmanager
def blas_threads(limit: bool) -> Iterator[bool]:
    """One BLAS thread inside (when `limit`); yields whether the limit is in force."""
    if not limit:
        yield False
        return
    threadpoolctl = optional_module("threadpoolctl")
    if threadpoolctl is None:
        yield False
        return
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        yield True


def run_workload(workload: Workload, options: Options) -> Result:
    """Build, check and time one workload."""
    with blas_threads(workload.blas_bound) as limited:
        variants = workload.build(options)
        check_agreement(workload, variants)
        timings = time_interleaved(
            variants, options, workload.rounds(options), workload.single_call
        )
    return Result(workload, timings, limited, options)


def format_results(results: list[Result], tablefmt: str = "simple") -> str:
    """A table: one row per variant, median µs and the ratio to numpy's median (and to
    autograd's, when some workload has an "autograd" variant), then the workloads' notes.
    `tablefmt` is tabulate's ("github" for Markdown)."""
    return "\n".join([format_table(results, tablefmt), *result_notes(results)])


def format_table(results: list[Result], tablefmt: str = "simple") -> str:
    """format_results' table without the notes."""
    from tabulate import tabulate

    by_autograd = any(r.has(AUTOGRAD) for r in results)
    rows = []
    for result in results:
        label = result.workload.name + (" *" if result.blas_threads_limited else "")
        for timing in result.timings:
            row = [
                label,
                timing.variant,
                engine_of(timing.variant),
                f"{timing.median_s * 1e6:,.1f}",
                f"{result.ratio(timing.variant):.2f}",
            ]
            if by_autograd:
                has = result.has(AUTOGRAD)
                row.append(f"{result.ratio(timing.variant, AUTOGRAD):.2f}" if has else "")
            rows.append((*row, f"{timing.min_s * 1e6:,.1f}", timing.samples))
            label = ""
    headers = ["workload", "variant", "engine", "median µs", "ratio to numpy"]
    headers += ["ratio to autograd"] * by_autograd + ["min µs", "samples"]
    return tabulate(
        rows,
        headers=headers,
        tablefmt=tablefmt,
        colalign=("left", "left", "left", *["right"] * (len(headers) - 3)),
        disable_numparse=True,
    )


def result_notes(results: list[Result]) -> list[str]:
    """The lines under the table: each workload note once, then the BLAS-thread notes."""
    notes = []
    for note in dict.fromkeys(r.workload.note for r in results if r.workload.note):
        line = note(results)
        if line:
            notes.append(line)
    if any(r.blas_threads_limited for r in results):
        notes.append("* BLAS-bound: run with 1 BLAS thread (threadpoolctl)")
    if any(r.workload.blas_bound and not r.blas_threads_limited for r in results):
        notes.append("! BLAS-bound workloads ran with default BLAS threads (no threadpoolctl)")
    return notes


def tf8_engines() -> list[str]:
    """The tf8 engines to benchmark: numpy, and numba when its extra is installed."""
    return ["numpy"] + ["numba"] * (importlib.util.find_spec("numba") is not None)


def tf8_variant(engine: str, name: str = "tf8.jit") -> str:
    """A tf8 variant's name on `engine`: "tf8.jit" on numpy, "tf8.jit[numba]" on numba."""
    return name if engine == "numpy" else f"{name}[{engine}]"


def engine_of(variant: str) -> str:
    """The engine column: the bracketed engine of a tf8 variant, numpy for other tf8
    variants, empty for the other libraries."""
    if not variant.startswith("tf8"):
        return ""
    return variant[variant.index("[") + 1 : -1] if variant.endswith("]") else "numpy"


def array_module_variants(fn: Callable[..., Any], *args: np.ndarray) -> Variants:
    """Variants of `fn(xp, *args)` written once against a numpy-like module `xp`: numpy
    itself, tf8.jit over tf8.numpy, and jax.jit over jax.numpy / autograd.numpy when they
    import (x64 enabled for jax, so float64 results agree)."""
    import tf8
    import tf8.numpy as tnp

    variants: Variants = {BASELINE: lambda: fn(np, *args)}
    for engine in tf8_engines():
        jitted = tf8.jit(lambda *xs: fn(tnp, *xs), engine=engine)
        variants[tf8_variant(engine)] = functools.partial(jitted, *args)
    jax = optional_module("jax")
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        jnp = importlib.import_module("jax.numpy")
        jax_fn = jax.jit(lambda *xs: fn(jnp, *xs))
        jax_args = [jnp.asarray(a) for a in args]
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_fn(*jax_args))
    autograd_numpy = optional_module("autograd.numpy")
    if autograd_numpy is not None:
        variants["autograd"] = lambda: fn(autograd_numpy, *args)
    return variants
