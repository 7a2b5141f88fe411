"""The fuzz's Dask evaluation: a program on the Dask engine, its inputs cut into small chunks.

Each input axis of two or more elements is cut at random into at least two chunks (of one
element or more: `(1, 2, 1)`, `(2, 2)`, ...), each input its own cut, so operands of one shape
meet with different chunkings; the lean or the optimised tier (one, drawn at random: each
costs ~7 ms a program) builds its lazy graph, which the synchronous scheduler computes.

The engine refuses, by design, what it cannot run on chunks, raising `ChunkingError` while
it builds the graph (`tf8/runtime/engines/dask/`): control flow, which has no Dask kernel,
and an op whose axis must be one chunk (sort, fft) when the chunks cut that axis. A refusal
must be one of these, for an op of the program; an axis refusal is retried on one-chunk inputs
(where only a chunked intermediate, a concatenation's say, may be refused again).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.compiler.compiler import CompiledGraph
from tf8.errors import ChunkingError
from tf8.runtime import Runtime

HAS_DASK = importlib.util.find_spec("dask") is not None
TIERS = ("lean", "optimised")
RUNTIMES = (
    {tier: Runtime(engines=["dask"], optimise=tier == "optimised") for tier in TIERS}
    if HAS_DASK
    else {}
)
# The refusals the engine may give, by kind: the ops named, and the fuzz steps they come from.
NO_KERNEL = {"cond": "cond", "scan": "scan", "while": "while_loop"}
WHOLE_AXIS = {"sort": "sort", "fft": "fft", "ifft": "fft"}
REFUSALS = {
    "no kernel": (r"(\w+): the Dask engine has no kernel for this op", NO_KERNEL),
    "whole axis": (r"(\w+): the transformed axis \d+ .* must be one chunk", WHOLE_AXIS),
}


def random_chunks(rng: np.random.Generator, shape: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Per axis, a random cut into chunks: at least two wherever the axis has two elements."""
    chunks = []
    for size in shape:
        cuts = [k for k in range(1, size) if rng.random() < 0.5]
        if size > 1 and not cuts:
            cuts = [size // 2]
        edges = [0, *cuts, size]
        chunks.append(tuple(b - a for a, b in zip(edges, edges[1:])) if size else (0,))
    return tuple(chunks)


def refusal(exc: ChunkingError, steps: Sequence[str]) -> str:
    """The kind of a refusal the engine may give for a program of `steps`; else the error."""
    for kind, (pattern, sources) in REFUSALS.items():
        found = re.match(pattern, str(exc))
        if found and sources.get(found.group(1)) in steps:
            return kind
    raise AssertionError(f"the Dask engine refused an op it should run: {exc}") from exc


def lazy_outputs(compiled: CompiledGraph, inputs: Sequence[Any], tier: str) -> list[Any]:
    """The tier's lazy outputs of the program on dask arrays `inputs`."""
    try:
        return RUNTIMES[tier].prepare(compiled).run(*inputs)
    finally:
        RUNTIMES[tier].clear_cache()  # every program is new: keep the long profile's memory flat


def run_on_dask(
    compiled: CompiledGraph,
    arrays: Sequence[np.ndarray],
    rng: np.random.Generator,
    steps: Sequence[str],
) -> tuple[str, list[np.ndarray]]:
    """The program's outputs on one tier (drawn by `rng`, as the chunks are), computed from
    chunked inputs (else one-chunk ones), and how it ran: "<tier>, chunked", "<tier>, one
    chunk", or the kind of the refusal (then no outputs)."""
    import dask
    import dask.array as da

    tier = TIERS[int(rng.integers(len(TIERS)))]
    try:
        chunked = [da.from_array(a, chunks=random_chunks(rng, a.shape)) for a in arrays]
        how, lazy = "chunked", lazy_outputs(compiled, chunked, tier)
    except ChunkingError as exc:
        if (kind := refusal(exc, steps)) != "whole axis":
            return kind, []
        try:
            whole = [da.from_array(a, chunks=-1) for a in arrays]
            how, lazy = "one chunk", lazy_outputs(compiled, whole, tier)
        except ChunkingError as again:
            return refusal(again, steps), []
    assert all(isinstance(x, da.Array) for x in lazy), f"{tier} tier: results not lazy"
    with np.errstate(all="ignore"):  # dask's own reductions warn of NaN, as numpy's do
        computed = dask.compute(*lazy, scheduler="synchronous")
    return f"{tier}, {how}", list(computed)
