"""Deliberate differences in the conformance corpus that cut across families.
See deliberate.py."""

from __future__ import annotations

from ..rows import Row, corpus

ROWS: list[Row] = [
    corpus(
        "*",
        "*",
        "[jv][vj]p*",
        "A derivative may be a zero of the other sign than JAX's.",
        "Where JAX's derivative is `-0.0` tf8's may be `0.0`, or the reverse; the numbers are "
        "equal (`-0.0 == 0.0`) and only `copysign`, `1/x` or `arctan2` tell them apart. tf8's "
        "derivative rules come from one source and are simplified on their own terms (DESIGN "
        "§4), so a zero cotangent or tangent is built in a different order. Values (not "
        "derivatives) keep JAX's signs of zeros.",
        differs="the sign of a zero",
    ),
    corpus(
        "*",
        "*",
        "jit[[]dask[]]",
        "On the Dask engine, an op it cannot run on the operands' chunks refuses them.",
        "`gather` and `sort` along a chunked axis, and a `while_loop` (the gamma samplers' "
        "rejection loop), raise `ChunkingError`, naming the op and what to do (rechunk, or "
        "compute first), where JAX (one device, no chunks) computes: README's Dask section, "
        "nothing is computed behind the user's back (DESIGN §6).",
        differs="raised ChunkingError*",
    ),
]
