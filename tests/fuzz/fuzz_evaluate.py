"""Evaluate one compiled program five ways and compare the results.

(a) the optimised tier with every pass; (b) the optimised tier with no pass; (c) each installed
engine (numba, on programs it can be compared on; Dask's lean or optimised tier on inputs
cut into small chunks, `fuzz_dask`); (d) the lean tier, and a default runtime's first (lean)
and second (optimised) runs; (e) a reference interpreter that calls each instruction's numpy
kernel in turn, and eager op-by-op dispatch of the same Python function.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

import numpy as np
from fuzz_dask import HAS_DASK, run_on_dask

import tf8
from tf8.compiler.compiler import CompiledGraph
from tf8.ops.definition import definition
from tf8.runtime import Runtime

HAS_NUMBA = importlib.util.find_spec("numba") is not None

OPTIMISED = Runtime(optimise=True)
NO_PASSES = Runtime(optimise=True, passes=())
LEAN = Runtime(optimise=False)
NUMBA = Runtime(engines=["numba"], optimise=True) if HAS_NUMBA else None


def trace(program: Any) -> tuple[CompiledGraph, list[np.ndarray]]:
    """The program compiled on placeholders, and the arrays its `run` takes (the inputs it
    reads, in the order of `compiled.placeholders`)."""
    placeholders = [tf8.placeholder(a.shape, a.dtype) for a in program.inputs]
    compiled = tf8.GraphCompiler().compile(*program.fun(*placeholders))
    position = {p.key: k for k, p in enumerate(placeholders)}
    return compiled, [program.inputs[position[key]] for key in compiled.placeholders]


def reference(compiled: CompiledGraph, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Interpret the semantic program op by op with each op's own numpy kernel."""
    program = compiled.program
    slots: list[Any] = [None] * len(program.slot_avals)
    placeholders = iter(arrays)
    for slot, key in enumerate(compiled.inputs):
        bound = compiled.bindings.get(key)
        slots[slot] = next(placeholders) if bound is None else bound
    with np.errstate(all="ignore"):
        for inst in program.instructions:
            result = definition(inst.op).kernel(inst.op, *[slots[s] for s in inst.inputs])
            if len(inst.outputs) == 1:
                slots[inst.outputs[0]] = result
            else:
                for s, r in zip(inst.outputs, result):
                    slots[s] = r
    return [np.asarray(slots[s]) for s in program.output_slots]


def tolerance(dtype: np.dtype) -> float:
    return {"e": 5e-2, "f": 1e-3, "d": 1e-8, "F": 1e-3, "D": 1e-8}.get(dtype.char, 0.0)


def assert_same(expected: Sequence[Any], got: Sequence[Any], label: str, exact: bool) -> None:
    """Equal shapes and dtypes, and values equal (NaN where NaN, inf where inf) to tolerance."""
    assert len(expected) == len(got), f"{label}: {len(got)} outputs, expected {len(expected)}"
    for k, (e, g) in enumerate(zip(expected, got)):
        e, g = np.asarray(e), np.asarray(g)
        where = f"{label}, output {k}"
        assert g.shape == e.shape, f"{where}: shape {g.shape}, expected {e.shape}"
        assert g.dtype == e.dtype, f"{where}: dtype {g.dtype}, expected {e.dtype}"
        if exact or e.dtype.kind not in "fc":
            np.testing.assert_array_equal(g, e, err_msg=where)
            continue
        tol = tolerance(e.dtype)
        scale = np.nanmax(np.abs(np.where(np.isfinite(e), e, 0)), initial=1.0)
        # complex parts apart: a part rounds as it will beside an infinite one (inf+2.5j)
        parts = (np.real, np.imag) if e.dtype.kind == "c" else (np.asarray,)
        for part in parts:
            np.testing.assert_allclose(part(g), part(e), rtol=tol, atol=tol * scale, err_msg=where)


# How many ran (printed by the tests' -s output); on Dask: on chunked inputs, on one-chunk
# inputs (an op along a chunked axis refused), refused (control flow; an axis, on one chunk).
COUNTS = {"programs": 0, "numba": 0, "dask chunked": 0, "dask one chunk": 0, "dask refused": 0}


def evaluate(program: Any, with_numba: bool, chunks: np.random.Generator | None = None) -> int:
    """Evaluate `program` every way (on Dask too with `chunks`, the generator that cuts its
    inputs into chunks); return how many evaluations were compared."""
    COUNTS["programs"] += 1
    COUNTS["numba"] += bool(with_numba and NUMBA is not None)
    compiled, arrays = trace(program)
    expected = reference(compiled, arrays)
    jitted = tf8.jit(program.fun)
    runs = {
        "optimised, all passes": OPTIMISED.prepare(compiled).run(*arrays),
        "optimised, no passes": NO_PASSES.prepare(compiled).run(*arrays),
        "lean tier": LEAN.prepare(compiled).run(*arrays),
        "jit, first call (lean)": jitted(*program.inputs),
        "jit, second call (optimised)": jitted(*program.inputs),
        "eager op by op": program.fun(*[tf8.tensor(a) for a in program.inputs]),
    }
    if with_numba and NUMBA is not None:
        runs["numba engine"] = NUMBA.prepare(compiled).run(*arrays)
    if chunks is not None and HAS_DASK:
        how, got = run_on_dask(compiled, arrays, chunks, [name for name, _ in program.steps])
        COUNTS[f"dask {how.split(', ')[-1]}" if got else "dask refused"] += 1
        if got:
            runs[f"dask engine, {how}"] = got
    for runtime in (OPTIMISED, NO_PASSES, LEAN, NUMBA):
        if runtime is not None:
            runtime.clear_cache()  # every program is new: keep the long profile's memory flat
    for label, got in runs.items():
        got = [np.asarray(g) for g in (got if isinstance(got, (list, tuple)) else [got])]
        assert_same(expected, got, f"{label} vs reference [{program.describe()}]", exact=False)
    return len(runs) + 1
