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
    corpus(
        "*",
        "*",
        "*",
        "In float32 and float16, a special function or its derivative may differ from JAX's in "
        "the last digits, where tf8's value is the closer one to the exact result.",
        "tf8 evaluates special functions (gamma, factorial, log_ndtr, ndtri, betainc, ...) with "
        "scipy's kernels (DESIGN §2), which compute float32 in double precision and round once, "
        "and their rows' derivatives likewise in float64; XLA evaluates float32 "
        "approximations. The replay keeps "
        "such a difference only where, element by element, tf8's value lies at least as close "
        "as JAX's to the same case computed from its arguments widened to 64 bits; where JAX's "
        "is closer the case stays an open mismatch.",
        differs="values closer to the 64-bit result than JAX's*",
    ),
    corpus(
        "transforms.custom_vjp*",
        "*",
        "jvp2",
        "The second forward derivative of a `custom_vjp` function raises.",
        "A `custom_vjp` function has no forward-mode rule, so `jvp` of it raises, in JAX and "
        "in tf8. JAX raises for `jvp(jvp(f))` too when it runs op by op, but under `jit` it "
        "returns zeros: the tangent that would raise is dropped before it runs. tf8 computes "
        "forward-mode tangents as it goes (DESIGN §4) and raises in both, rather than return a "
        "zero that is not the derivative.",
        differs="raised DifferentiationError*",
    ),
]
