"""The numba engine (issue 17): placement next to numpy, tiers, the disk cache, and the
shared differential corpus against the numpy engine.

numba compiles cost 0.1-1 s each, so these tests compile few, distinct programs; every
compiled region goes to a fresh cache directory (TF8_CACHE_DIR), so nothing is trusted from
an earlier run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.api import runtime_for
from tf8.ops.primitives import PRIMITIVES
from tf8.runtime import Runtime

pytest.importorskip("numba", reason="the numba engine needs its extra: pip install numba")

from tf8.runtime.engines.numba import TOLERANCE, NumbaEngine, cache  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True, scope="module")
def fresh_cache(tmp_path_factory):
    patch = pytest.MonkeyPatch()
    directory = tmp_path_factory.mktemp("tf8-cache")
    patch.setenv("TF8_CACHE_DIR", str(directory))
    yield directory
    patch.undo()


def chain(x):
    acc = x
    for _ in range(20):
        acc = acc * x + x
    return tnp.sum(acc)


def _regions(jitted, *args):
    return runtime_for("numba").prepare(jitted.lower(*args)).prepared.guest_regions


def test_mixed_program_places_svd_on_numpy_with_visible_transfers():
    f = tf8.jit(lambda a: tnp.sum(tnp.exp(tf8.linalg.svdvals(a)) * 2.0 + 1.0), engine="numba")
    a = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, 1.0, 1.5]])
    expected = np.sum(np.exp(np.linalg.svd(a, compute_uv=False)) * 2.0 + 1.0)
    assert f(a) == pytest.approx(expected, rel=1e-12)  # lean
    assert f(a) == pytest.approx(expected, rel=TOLERANCE["float64"])  # placed, compiled
    prepared = runtime_for("numba").prepare(f.lower(a))
    text = prepared.pretty()
    engine_of = {inst.name: inst.engine for inst in prepared.program.instructions}
    assert engine_of["svdvals"] == "numpy", text
    assert engine_of["exp"] == engine_of["reduce_sum"] == "numba", text
    assert "transfer[numpy→numba]" in text and "transfer[numba→numpy]" in text, text
    assert "compiled regions:\n  numba: " in text, text
    dot = prepared.to_dot()
    assert 'label="numba: compiled, 4 ops"' in dot and "numpy→numba" in dot, dot


def test_compiles_only_when_a_program_runs_again_and_a_whole_chain_is_one_function(monkeypatch):
    compiles = []
    original = NumbaEngine.region_code

    def counting(self, program, indices, escapes):
        compiles.append(len(indices))
        return original(self, program, indices, escapes)

    monkeypatch.setattr(NumbaEngine, "region_code", counting)
    x = np.linspace(-1.0, 1.0, 16)
    for f in (chain, tf8.grad(chain)):
        jitted, reference = tf8.jit(f, engine="numba"), tf8.jit(f, engine="numpy")
        first = jitted(x)
        assert compiles == [], "a first call never compiles"
        np.testing.assert_array_equal(first, reference(x))  # the lean tier is numpy's
        np.testing.assert_allclose(jitted(x), reference(x), rtol=TOLERANCE["float64"])
        (region,) = _regions(jitted, x)  # every op in one compiled function, one loop
        assert "one function, 1 loop(s) over (16,)" in region.description
        compiles.clear()
    # large arrays: the first call is optimised at once, but on numpy; numba compiles next
    big = np.linspace(-1.0, 1.0, 1 << 18)
    jitted = tf8.jit(lambda x: tnp.sum(tnp.sin(x) * x + x * x), engine="numba")
    jitted(big)
    prepared = runtime_for("numba").prepare(jitted.lower(big)).prepared
    assert compiles == [] and prepared.tier.startswith("optimised on the host engine")
    value = jitted(big)
    assert compiles and prepared.tier == "optimised"
    expected = np.sum(np.sin(big) * big + big * big)
    assert value == pytest.approx(expected, rel=TOLERANCE["float64"])


_SECOND_PROCESS = """
import os, sys, time
import numpy as np
import tf8, tf8.numpy as tnp
from tf8.api import runtime_for
assert tf8.config.tf8_default_engine == "numba"
f = tf8.jit(lambda x: tnp.sum(tnp.tanh(x) * x + 1.0))
x = np.linspace(-1.0, 1.0, 64)
f(x)
print("numba imported by a first call:", "numba" in sys.modules)
import numba  # not counted: what the first optimised call costs beyond importing numba
start = time.perf_counter()
value = f(x)
print("first optimised call ms:", (time.perf_counter() - start) * 1e3)
(region,) = runtime_for(None).prepare(f.lower(x)).prepared.guest_regions
print("loaded:", region.loaded, "value:", repr(float(value)))
"""


def _second_process(directory: Path) -> dict[str, str]:
    env = {**os.environ, "TF8_CACHE_DIR": str(directory), "TF8_DEFAULT_ENGINE": "numba"}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_SECOND_PROCESS)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    print(done.stdout)
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    return lines


def test_disk_cache_hits_across_processes_and_rebuilds_a_stale_entry(fresh_cache):
    f = tf8.jit(lambda x: tnp.sum(tnp.tanh(x) * x + 1.0), engine="numba")
    x = np.linspace(-1.0, 1.0, 64)
    f(x)
    expected = float(f(x))
    (region,) = _regions(f, x)
    assert not region.loaded and region.path.read_text() == region.source
    # a second process (the default engine from TF8_DEFAULT_ENGINE) loads, not compiles
    lines = _second_process(fresh_cache)
    assert lines["numba imported by a first call"] == "False"
    assert lines["loaded"].startswith("True"), lines
    assert float(lines["loaded"].split("value: ")[1]) == expected
    # stale source and corrupt numba files: detected, rewritten, recompiled
    region.path.write_text("# written by an older tf8\n" + region.source[:40])
    for numba_file in (region.path.parent / "__pycache__").glob(f"{region.path.stem}.*"):
        numba_file.write_bytes(b"\x00corrupt")
    cache._LOADED.clear()
    runtime = Runtime(engines=["numba"], optimise=True)
    prepared = runtime.prepare(f.lower(x))
    (rebuilt,) = prepared.prepared.guest_regions
    assert not rebuilt.loaded and rebuilt.path == region.path
    assert region.path.read_text() == region.source
    assert float(prepared.run(x)[0]) == expected
    # and the rebuilt entry is good for the next process
    assert _second_process(fresh_cache)["loaded"].startswith("True")


# --- the shared differential corpus -------------------------------------------------------


def _corpus(grad: bool):
    """Every AD-test row (tests/ad/ad_cases.py, float64) the numba engine runs, as one
    program: a weighted sum of every row's output (and its gradient when `grad`), each row
    on its own random operands inside its smooth domain. (Rows numba lacks run on numpy
    under both engines; they are left out so that few functions are compiled.)"""
    sys.path.insert(0, str(ROOT / "tests" / "ad"))
    from ad_cases import DIFFERENTIABLE, F64, draw_call, dtypes_of

    engine = NumbaEngine()
    names = [n for n in DIFFERENTIABLE if F64 in dtypes_of(n) and engine.compiles(PRIMITIVES[n])]
    calls = [draw_call((2, 3), 17, name, F64) for name in names]
    rng = np.random.default_rng(17)
    weights = [rng.standard_normal(call(*call.args).shape) for call in calls]

    def total(args):
        out = 0.0
        for call, xs, w in zip(calls, args, weights):
            out = out + tnp.sum(tnp.real(call(*xs)) * w)
        return out

    args = [call.args for call in calls]
    flat = [a for xs in args for a in xs]
    program = tf8.value_and_grad(total) if grad else total
    return names, tf8.make_program(program)(args), flat


@pytest.mark.parametrize("passes", ["on", "off"])
def test_differential_corpus_agrees_with_the_numpy_engine(passes):
    """Passes on: values and gradients; passes off: values (compiles cost ~1 s a function
    here, so the unoptimised gradient program, the largest, is not compiled too)."""
    names, compiled, flat = _corpus(grad=passes == "on")
    assert len(names) >= 30 and {"exp", "div", "select", "reduce_max", "convert"} <= set(names)
    chosen = None if passes == "on" else ()
    expected = Runtime(passes=chosen, optimise=True).prepare(compiled).run(*flat)
    prepared = Runtime(engines=["numba"], passes=chosen, optimise=True).prepare(compiled)
    got = prepared.run(*flat)
    placed = [inst.engine for inst in prepared.program.instructions]
    assert placed.count("numba") > len(names), prepared.pretty()  # the rows ran on numba
    assert len(prepared.prepared.guest_regions) <= 4  # few compiled functions
    assert len(got) == len(expected)
    for value, reference in zip(got, expected):
        assert value.dtype == reference.dtype and value.shape == reference.shape
        np.testing.assert_allclose(value, reference, rtol=TOLERANCE["float64"], atol=1e-12)


def test_float32_keeps_its_dtype_within_the_documented_tolerance():
    f = tf8.jit(lambda x: (tnp.sum(tnp.exp(x) * x - x), tnp.maximum(x * x, 0.25)), engine="numba")
    x = np.linspace(-1.0, 1.0, 1000, dtype=np.float32)
    f(x)
    total, clipped = f(x)
    (region,) = _regions(f, x)
    assert "1 reduction(s)" in region.description
    assert total.dtype == np.float32 and clipped.dtype == np.float32
    assert total == pytest.approx(np.sum(np.exp(x) * x - x), rel=TOLERANCE["float32"])
    np.testing.assert_array_equal(clipped, np.maximum(x * x, np.float32(0.25)))
