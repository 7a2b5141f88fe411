"""`python -m tf8` runs its demo against numpy and exits 0; `python -m tf8 catalog` prints the
catalog table. Both run as a user would, in a fresh interpreter."""

from __future__ import annotations

import re
import subprocess
import sys

from tf8.ops.primitives import CATALOG_HEADERS, PRIMITIVES


def run_tf8(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tf8", *args], capture_output=True, text=True, timeout=120
    )


def test_demo_prints_the_program_runs_it_and_matches_numpy():
    result = run_tf8()
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "sum(tanh(W @ x + b) ** 2)" in out
    assert re.search(r"CompiledGraph: 3 inputs \(0 placeholders\), \d+ ops", out)
    for op in ("dot_general", "tanh", "reduce_sum"):
        assert op in out
    error = float(re.search(r"max abs error: (\S+)", out).group(1))
    assert error <= 1e-12
    assert not result.stderr


def test_catalog_prints_every_row_under_the_catalog_headers():
    result = run_tf8("catalog")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == CATALOG_HEADERS
    names = [line.split()[0] for line in lines[2:] if line.strip()]
    assert names == list(PRIMITIVES)


def test_unknown_command_is_a_usage_error():
    result = run_tf8("bogus")
    assert result.returncode == 2 and "invalid choice: 'bogus'" in result.stderr
