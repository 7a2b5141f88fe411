"""Run tf8's benchmarks: `python -m benchmarks` or `python benchmarks/run.py`.

    --quick       fewer, shorter samples (a rough number in seconds)
    --only NAME   run only the named workload(s) (repeatable, or comma-separated); opt-in
                  workloads run only when named: `--only dask_lstsq` (2.5 GB, a Dask cluster)
    --list        list the workloads and exit
    --json FILE   also store the results as JSON (benchmarks/results.json is the kept run)
    --markdown FILE  also write the table as Markdown
    --plot FILE   also draw each variant's time over numpy's as a bar chart (PNG)
    --from-json FILE  measure nothing: show (and write) a stored run

Workloads live in `benchmarks/workloads_*.py`, each defining `WORKLOADS: list[Workload]`;
a new module is picked up by listing it in `WORKLOAD_MODULES` below. The structural graph
engine has its own script: `python benchmarks/graph_scaling.py`.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks` and `tf8` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.harness import Options, Result, Workload, format_results, run_workload  # noqa: E402

# The registry: every module listed here contributes its WORKLOADS.
WORKLOAD_MODULES: tuple[str, ...] = (
    "benchmarks.workloads_basic",
    "benchmarks.workloads_ad",
    "benchmarks.workloads_linalg",
    "benchmarks.workloads_scipy_linalg",
    "benchmarks.workloads_eager",
    "benchmarks.workloads_firstcall",
    "benchmarks.workloads_vmap",
    "benchmarks.workloads_control",
    "benchmarks.workloads_loops",
    "benchmarks.workloads_engines",
    "benchmarks.workloads_random",
    "benchmarks.workloads_conv",
    "benchmarks.workloads_convnet",
    "benchmarks.workloads_signal",
)

# Opt-in: run only when named with --only (too big or slow for the default run).
OPT_IN_MODULES: tuple[str, ...] = ("benchmarks.workloads_dask",)


def all_workloads(opt_in: bool = False) -> list[Workload]:
    workloads: list[Workload] = []
    for module_name in WORKLOAD_MODULES + (OPT_IN_MODULES if opt_in else ()):
        workloads.extend(importlib.import_module(module_name).WORKLOADS)
    names = [w.name for w in workloads]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"workload names must be unique, repeated: {duplicates}")
    return workloads


def select(workloads: list[Workload], only: Sequence[str]) -> list[Workload]:
    """The workloads named in `only` (all when empty); unknown names are an error."""
    wanted = [name for item in only for name in item.split(",") if name]
    if not wanted:
        defaults = {w.name for w in all_workloads()}
        return [w for w in workloads if w.name in defaults]
    known = {w.name: w for w in workloads}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise SystemExit(f"unknown workload(s) {unknown}; known: {sorted(known)}")
    return [known[name] for name in dict.fromkeys(wanted)]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="fewer, shorter samples")
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="workload")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    parser.add_argument("--json", metavar="FILE", help="store the results as JSON")
    parser.add_argument("--markdown", metavar="FILE", help="write the table as Markdown")
    parser.add_argument("--plot", metavar="FILE", help="draw the ratios to numpy (PNG)")
    parser.add_argument("--from-json", metavar="FILE", help="show a stored run, measure nothing")
    parser.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # smoke test
    return parser.parse_args(argv)


def write_outputs(args: argparse.Namespace, results: list[Result], argv: Sequence[str]) -> None:
    """The files the options ask for: JSON, Markdown table, bar chart."""
    from benchmarks import report

    if args.json:
        report.write_json(results, argv, args.json)
    if args.markdown:
        Path(args.markdown).write_text(report.markdown(results))
    if args.plot:
        report.plot(results, args.plot)


def main(argv: Sequence[str] | None = None) -> list[Result]:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    if args.from_json:
        from benchmarks import report

        if args.json:
            raise SystemExit("--json stores a new run; with --from-json nothing is measured")
        data, results = report.load(args.from_json)
        print(f"{data['command']} ({data['created']}, {data['mode']} run)")
        print(format_results(results))
        write_outputs(args, results, [])
        return results
    workloads = select(all_workloads(opt_in=True), args.only)
    if args.list:
        for w in workloads:
            print(f"{w.name:12} {w.description}")
        return []
    import numpy as np

    options = Options(quick=args.quick, tiny=args.tiny)
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"{'quick' if options.quick else 'full'} run ({options.rounds} interleaved rounds)"
    )
    results = []
    for workload in workloads:
        results.append(run_workload(workload, options))
    print(format_results(results))
    write_outputs(args, results, argv)
    return results


if __name__ == "__main__":
    main()
