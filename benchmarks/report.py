"""Benchmark results kept and shown: a JSON file, a Markdown table and a bar chart.

`python -m benchmarks --json benchmarks/results.json` stores a run (the machine, the versions,
every workload's timings and notes); the repository keeps one, which notebook 07 reads, so
the notebook runs without JAX and without re-running benchmarks. `--markdown out.md` writes
the table (tabulate's GitHub format) and `--plot out.png` a bar chart of each variant's time
over numpy's (matplotlib, Agg backend). `--from-json FILE` turns a stored run into the table,
Markdown and chart again without measuring.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.harness import (
    BASELINE,
    Options,
    Result,
    Timing,
    Workload,
    format_table,
    optional_module,
    result_notes,
)

SCHEMA = 1
RESULTS_JSON = Path(__file__).resolve().parent / "results.json"  # the run the repo keeps


def _version(module: str) -> str | None:
    found = optional_module(module)
    return getattr(found, "__version__", "installed") if found is not None else None


def results_to_json(results: Sequence[Result], argv: Sequence[str]) -> dict[str, Any]:
    """A run as plain data: when and where it ran, then per workload its timings and note."""
    import numpy as np

    options = results[0].options if results else Options()
    return {
        "schema": SCHEMA,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["python -m benchmarks", *argv]),
        "mode": "quick" if options.quick else "full",
        "sizes": "tiny (smoke test)" if options.tiny else "as described",
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "numpy": np.__version__,
            "jax": _version("jax"),
            "autograd": _version("autograd"),
        },
        "workloads": [
            {
                "name": r.workload.name,
                "description": r.workload.description,
                "blas_threads_limited": r.blas_threads_limited,
                "note": r.workload.note(results) if r.workload.note else None,
                "timings": [
                    {
                        "variant": t.variant,
                        "median_s": t.median_s,
                        "min_s": t.min_s,
                        "samples": t.samples,
                    }
                    for t in r.timings
                ],
            }
            for r in results
        ],
    }


def results_from_json(data: dict[str, Any]) -> list[Result]:
    """Results rebuilt from `results_to_json`'s data (their workloads cannot run again)."""
    if data.get("schema") != SCHEMA:
        raise ValueError(f"benchmark results schema {data.get('schema')!r}, expected {SCHEMA}")
    options = Options(quick=data["mode"] == "quick")
    notes: dict[str, Callable[[Sequence[Result]], str]] = {}  # one note function per line
    results = []
    for entry in data["workloads"]:
        line = entry["note"]
        note = notes.setdefault(line, lambda results, line=line: line) if line else None
        workload = Workload(entry["name"], entry["description"], _not_runnable, note=note)
        timings = [Timing(**t) for t in entry["timings"]]
        results.append(Result(workload, timings, entry["blas_threads_limited"], options))
    return results


def _not_runnable(options: Options) -> Any:
    raise RuntimeError("a workload loaded from stored results cannot run again")


def load(path: str | Path = RESULTS_JSON) -> tuple[dict[str, Any], list[Result]]:
    """The stored run at `path`: its data and its results."""
    data = json.loads(Path(path).read_text())
    return data, results_from_json(data)


def write_json(results: Sequence[Result], argv: Sequence[str], path: str | Path) -> None:
    Path(path).write_text(json.dumps(results_to_json(results, argv), indent=1) + "\n")


def markdown(results: Sequence[Result], heading: str = "") -> str:
    """The table in GitHub Markdown, with the notes as a list under it."""
    results = list(results)
    lines = [heading, ""] if heading else []
    lines.append(format_table(results, tablefmt="github"))
    notes = result_notes(results)
    if notes:
        lines += ["", *(f"- {line.replace('*', chr(92) + '*', 1)}" for line in notes)]
    return "\n".join(lines) + "\n"


def ratio_rows(results: Sequence[Result]) -> tuple[list[str], dict[str, list[float | None]]]:
    """Workload names and, per variant other than numpy, its median over numpy's per workload
    (None where a workload has no such variant)."""
    names = [r.workload.name for r in results]
    variants = [v for r in results for v in (t.variant for t in r.timings) if v != BASELINE]
    ratios: dict[str, list[float | None]] = {}
    for variant in dict.fromkeys(variants):
        ratios[variant] = [r.ratio(variant) if r.has(variant) else None for r in results]
    return names, ratios


def plot(results: Sequence[Result], path: str | Path | None = None, ax: Any = None) -> Any:
    """Grouped bars: per workload, each variant's median time over numpy's (log scale; below
    1 is faster than numpy). Writes a PNG (or what `path`'s suffix names) when `path` is given;
    returns the matplotlib Axes."""
    import matplotlib

    if ax is None and "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    names, ratios = ratio_rows(results)
    if ax is None:
        _, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(names) + 2), 4.5))
    width = 0.8 / max(1, len(ratios))
    for index, (variant, values) in enumerate(ratios.items()):
        positions = [i + (index - (len(ratios) - 1) / 2) * width for i in range(len(names))]
        heights = [v if v is not None else float("nan") for v in values]
        ax.bar(positions, heights, width, label=variant)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("median time / numpy's (log)")
    ax.set_title("tf8 against numpy (1 = numpy; lower is faster)")
    ax.legend(fontsize=8)
    ax.figure.tight_layout()
    if path is not None:
        ax.figure.savefig(path, dpi=120)
    return ax
