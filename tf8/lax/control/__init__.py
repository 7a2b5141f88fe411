"""Structured control flow (JAX's `lax.cond`, `switch`, `scan`, `fori_loop`, `while_loop`,
`map`): bodies traced into closed sub-programs, one control op per loop or branch."""

from .branches import cond, switch
from .closure import (
    Closure,
    apply_control,
    call,
    inline,
    program_tensors,
    trace_flat,
    trace_many,
)
from .loops import fori_loop, map, scan, while_loop

__all__ = [
    "Closure",
    "apply_control",
    "call",
    "cond",
    "fori_loop",
    "inline",
    "map",
    "program_tensors",
    "scan",
    "switch",
    "trace_flat",
    "trace_many",
    "while_loop",
]
