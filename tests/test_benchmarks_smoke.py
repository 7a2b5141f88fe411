"""The benchmark code must keep running: the harness in --quick mode on tiny sizes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import harness, run  # noqa: E402

QUICK = harness.Options(quick=True, tiny=True)


def test_every_workload_runs_and_tf8_agrees_with_numpy(capsys: pytest.CaptureFixture[str]):
    results = run.main(["--quick", "--tiny"])
    names = {r.workload.name for r in results}
    assert {"dispatch", "bandwidth", "chain_nojit", "property_nojit", "firstcall_chain"} <= names
    for result in results:
        variants = [t.variant for t in result.timings]
        assert variants[0] == "numpy" and any(v.startswith("tf8") for v in variants)
        assert result.ratio("numpy") == 1.0
        rounds = result.workload.rounds(QUICK)
        assert all(t.median_s > 0 and t.samples == rounds for t in result.timings)
    table = capsys.readouterr().out
    assert "ratio to numpy" in table and "tf8.jit" in table
    assert "log-log slope" in table  # the first-call scaling note


def test_only_selects_workloads(capsys: pytest.CaptureFixture[str]):
    results = run.main(["--quick", "--tiny", "--only", "dispatch"])
    assert [r.workload.name for r in results] == ["dispatch"]
    with pytest.raises(SystemExit, match="unknown workload"):
        run.main(["--only", "nonexistent"])


def test_blas_bound_workloads_run_with_one_blas_thread():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    seen = []

    def build(options: harness.Options) -> harness.Variants:
        info = threadpoolctl.threadpool_info()
        seen.extend(pool["num_threads"] for pool in info if pool["user_api"] == "blas")
        a = np.ones((8, 8))
        return {"numpy": lambda: a @ a, "copy": lambda: np.dot(a, a)}

    workload = harness.Workload("matmul", "8x8 matmul", build, blas_bound=True)
    result = harness.run_workload(workload, QUICK)
    assert result.blas_threads_limited
    assert all(n == 1 for n in seen)
    assert "1 BLAS thread" in harness.format_results([result])


def test_single_call_workloads_take_one_call_per_sample():
    calls = {"numpy": 0, "fresh": 0}

    def build(options: harness.Options) -> harness.Variants:
        def count(name: str) -> Callable[[], int]:
            def call() -> int:
                calls[name] += 1
                return 1

            return call

        return {"numpy": count("numpy"), "fresh": count("fresh")}

    notes = lambda results: f"{len(results)} result(s)"  # noqa: E731
    workload = harness.Workload("once", "", build, single_call=True, max_rounds=2, note=notes)
    result = harness.run_workload(workload, QUICK)
    assert [t.samples for t in result.timings] == [2, 2]
    assert calls["fresh"] == 1 + 2  # the agreement check, then one call per sample
    assert calls["numpy"] > calls["fresh"]  # the baseline is warmed up and calibrated
    assert harness.format_results([result]).endswith("1 result(s)")


def test_random_programs_are_reproducible_and_run_on_numpy():
    from benchmarks import property_workload

    first, x, matrix = property_workload.random_programs(20, seed=3)
    again, x_again, _ = property_workload.random_programs(20, seed=3)
    assert first == again and np.array_equal(x, x_again)
    for program in first:
        assert property_workload.MIN_STEPS <= len(program) <= property_workload.MAX_STEPS
        value = property_workload.build(np, program, matrix)(x)
        assert value.shape in {(4, 3), (1, 3), (4, 1), (1, 1)}
        assert np.all(np.abs(value) <= property_workload.BOUND)


def test_disagreeing_variants_are_refused():
    workload = harness.Workload(
        "wrong", "", lambda options: {"numpy": lambda: np.ones(3), "bad": lambda: np.zeros(3)}
    )
    with pytest.raises(harness.DisagreementError, match="wrong/bad: output 0"):
        harness.run_workload(workload, QUICK)


def test_script_and_module_entry_points():
    script = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--tiny",
            "--only=dispatch",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert script.returncode == 0, script.stderr
    assert "tf8.jit" in script.stdout
    module = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--list"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert module.returncode == 0, module.stderr
    assert "bandwidth" in module.stdout


def test_results_json_markdown_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    import json

    stored, table, chart = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "r.png"
    argv = ["--quick", "--tiny", "--only", "dispatch", "--json", str(stored)]
    argv += ["--markdown", str(table), "--plot", str(chart)]
    results = run.main(argv)
    data = json.loads(stored.read_text())
    assert data["command"] == "python -m benchmarks " + " ".join(argv)
    assert data["mode"] == "quick" and data["machine"]["numpy"] == np.__version__
    (entry,) = data["workloads"]
    assert entry["name"] == "dispatch"
    assert [t["median_s"] for t in entry["timings"]] == [t.median_s for t in results[0].timings]
    markdown = table.read_text()
    assert markdown.startswith("| workload") and "| tf8.jit" in markdown
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the stored run gives the same table and Markdown again, measuring nothing
    again = tmp_path / "again.md"
    capsys.readouterr()
    loaded = run.main(["--from-json", str(stored), "--markdown", str(again)])
    assert again.read_text() == markdown
    assert harness.format_results(loaded) == harness.format_results(results)
    assert "dispatch" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="--json stores a new run"):
        run.main(["--from-json", str(stored), "--json", str(tmp_path / "x.json")])


def test_the_kept_results_load_for_notebook_07():
    from benchmarks import report

    data, results = report.load()
    assert data["schema"] == report.SCHEMA and results
    for result in results:
        assert result.ratio("numpy") == 1.0
        assert any(t.variant.startswith("tf8") for t in result.timings)
    names, ratios = report.ratio_rows(results)
    assert names == [r.workload.name for r in results] and "numpy" not in ratios


def test_the_dask_workload_is_opt_in_and_runs_on_two_worker_processes():
    pytest.importorskip("distributed", reason="the dask_lstsq workload needs dask.distributed")
    from benchmarks import workloads_dask

    assert "dask_lstsq" not in {w.name for w in run.select(run.all_workloads(True), [])}
    assert [w.name for w in run.select(run.all_workloads(True), ["dask_lstsq"])] == ["dask_lstsq"]
    rows, chunk = 40_000, 10_000
    step, close = workloads_dask.dask_variant(rows, chunk)
    try:
        value, grad = step()
    finally:
        close()
    reference, reference_grad = workloads_dask.numpy_baseline(rows)  # another random stream
    assert value == pytest.approx(reference, rel=0.1)
    np.testing.assert_allclose(grad, reference_grad, atol=0.1)
    assert 0 < workloads_dask.MEMORY["peak_over_start_chunks"] < 40
    assert "chunks of X" in workloads_dask.note([])
