"""Deliberate differences in the conformance corpus: lax (its Python scalars, control flow,
reductions, shapes), nn, transforms.
See deliberate.py."""

from __future__ import annotations

from ..rows import Row, corpus  # noqa: F401

ROWS: list[Row] = [
    corpus(
        "lax.*",
        "*py-*",
        "eager",
        "`tf8.lax` takes a Python scalar beside an array of another dtype when nothing is lost.",
        "`lax.add(float32_array, 2.0)`, `lax.mul(x, 2)` and `lax.lt(int32_array, True)` give the "
        "array's dtype, where JAX 0.10's `lax` refuses any dtype mismatch: a Python scalar is "
        "weakly typed (DESIGN §2), so it takes the other operand's dtype as in `tf8.numpy`. A "
        "float into an integer array, a complex into a real one, or an int out of range is "
        "refused with a `DTypeError`, as JAX refuses it.",
        differs="no error (JAX raised TypeError)",
    ),
]
