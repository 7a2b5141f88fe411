"""The benchmark code must keep running: the harness in --quick mode on tiny sizes."""

from __future__ import annotations

import subprocess
import sys
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
    assert {"dispatch", "bandwidth"} <= names
    for result in results:
        variants = [t.variant for t in result.timings]
        assert variants[0] == "numpy" and "tf8.jit" in variants
        assert result.ratio("numpy") == 1.0
        assert all(t.median_s > 0 and t.samples == QUICK.rounds for t in result.timings)
    table = capsys.readouterr().out
    assert "ratio to numpy" in table and "tf8.jit" in table


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
