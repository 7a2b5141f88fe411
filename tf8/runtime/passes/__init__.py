"""Optimisation passes over an ExecProgram: one module per pass, one signature each.

A pass is a module (or object) with `NAME: str` and `run(program, ctx) -> int` returning the
number of instructions it removed or rewrote; `run_passes` times them and collects PassStats.
The pass list and order are configuration (`DEFAULT_PASSES`, `Runtime(passes=...)`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from tf8.runtime.exec_program import ExecProgram

from . import dce


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


DEFAULT_PASSES: tuple[Pass, ...] = (dce,)


def run_passes(
    program: ExecProgram, passes: tuple[Pass, ...], ctx: dict[str, Any] | None = None
) -> list[PassStats]:
    ctx = {} if ctx is None else ctx
    stats = []
    for p in passes:
        before = len(program.instructions)
        start = time.perf_counter()
        changed = p.run(program, ctx)
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
