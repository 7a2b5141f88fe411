"""Optimisation passes over an ExecProgram: one module per pass, one signature each.

A pass is a module (or object) with `NAME: str` and `run(program, ctx) -> int` returning the
number of instructions it removed or rewrote; `run_passes` times them and collects PassStats.
The pass list and order are configuration (`DEFAULT_PASSES`, `Runtime(passes=...)`).

`ctx` is a dict shared by the passes of one prepare: `ctx["engine"]` is the engine the
program will run on (view folding asks it whether it reads views). A pass that marks itself
`ANALYSIS = True` only annotates the program; any other pass that changes something
invalidates the analyses (`program.last_use`), so codegen never consumes a stale one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from tf8.runtime.exec_program import ExecProgram

from . import (
    algebraic_simplification,
    constant_folding,
    cse,
    dce,
    last_use,
    transpose_folding,
    view_folding,
)


class Pass(Protocol):
    NAME: str

    def run(self, program: ExecProgram, ctx: dict[str, Any]) -> int: ...


@dataclass(frozen=True, slots=True)
class PassStats:
    name: str
    changed: int
    instructions_before: int
    instructions_after: int
    seconds: float


# CF first (it exposes constants to the rules), then the rules, then CSE over the simplified
# program (CF → DCE → CSE in the 004 article's terms, with simplification in between);
# DCE sweeps what they left dead, view folding runs on the final op list, last use last.
DEFAULT_PASSES: tuple[Pass, ...] = (
    constant_folding,
    algebraic_simplification,
    cse,
    transpose_folding,
    dce,
    view_folding,
    last_use,
)


def run_passes(
    program: ExecProgram, passes: tuple[Pass, ...], ctx: dict[str, Any] | None = None
) -> list[PassStats]:
    ctx = {} if ctx is None else ctx
    stats = []
    for p in passes:
        before = len(program.instructions)
        start = time.perf_counter()
        changed = p.run(program, ctx)
        if changed and not getattr(p, "ANALYSIS", False):
            program.last_use = None
        stats.append(
            PassStats(
                p.NAME, changed, before, len(program.instructions), time.perf_counter() - start
            )
        )
    return stats


def stats_table(stats: list[PassStats]) -> str:
    from tabulate import tabulate

    rows = [
        (s.name, s.changed, s.instructions_before, s.instructions_after, f"{s.seconds * 1e6:.0f}")
        for s in stats
    ]
    return tabulate(rows, headers=["pass", "changed", "ops before", "ops after", "µs"])
