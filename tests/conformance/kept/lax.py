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
    corpus(
        "nn.s[iw]*",
        "*",
        "eager",
        "`tf8.nn.sigmoid` and `silu`/`swish` take an integer or bool array, or a Python "
        "int, and compute on its inexact dtype (int32 and bool give float32, int64 float64).",
        "JAX 0.10 raises TypeError there (its `lax.logistic` takes only inexact operands), "
        "while its own `relu6`, `elu` and `gelu` promote integers. tf8 promotes as `tf8.numpy`'s "
        "unary functions do (DESIGN §2: JAX's promotion lattice, an integer goes to its "
        "inexact dtype), the obvious result rather than a refusal out of strictness.",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "nn.glu",
        "int*",
        "eager",
        "`tf8.nn.glu` gates an integer array through the sigmoid of its inexact dtype (int64 "
        "gives float64), where JAX raises TypeError.",
        "JAX 0.10 raises TypeError there (its `lax.logistic` takes only inexact operands), "
        "while its own `relu6`, `elu` and `gelu` promote integers. tf8 promotes as `tf8.numpy`'s "
        "unary functions do (DESIGN §2: JAX's promotion lattice, an integer goes to its "
        "inexact dtype), the obvious result rather than a refusal out of strictness.",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "lax.concatenate*",
        "*, -[0-9]",
        "eager",
        "`tf8.lax.concatenate` takes a negative `dimension`, counted from the end as in numpy.",
        "JAX 0.10's `lax.concatenate` raises TypeError for a dimension outside [0, ndim), out "
        "of strictness; the axis it names is unambiguous, and tf8's `lax` reads axes as "
        "`tf8.numpy` does (DESIGN §2), so it concatenates there. An axis out of range either "
        "way is refused with an `AxisError`.",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "lax.reduce_m[ai][xn]",
        "float64[[]2,2], (1,)",
        "vjp",
        "The gradient of `lax.reduce_max`/`reduce_min` over a row holding NaN is NaN.",
        "The row [1, NaN] has no maximum to differentiate: JAX's own eager `jax.vjp` gives NaN "
        "there too (its tie count is 0, so 0.25 / 0 · 0), and only its jit-compiled XLA "
        "program, which the corpus records, gives 0. tf8 keeps the NaN at a NaN input rather "
        "than a 0 that looks like a real derivative (README: never a silent wrong answer).",
        differs="values [[]nan nan[]], JAX [[]0. 0.[]]",
    ),
    corpus(
        "lax.reduce_prod",
        "float64[[]2,2], (1,)",
        "jvp2",
        "The second derivative of `lax.reduce_prod` over a row holding inf or NaN is NaN.",
        "On the rows [1, NaN] and [inf, 2], JAX gives 2·t0·t1 = 0.5, the polynomial's "
        "constant second derivative. tf8's product rule stays exact at zeros by multiplying "
        "the other factors (no division by x), so a non-finite factor meets the zero tangent "
        "of the held-out slot (0 · inf = NaN): a singular input where NaN is defensible "
        "(DESIGN §4: one JVP rule per primitive, exact at zeros, rather than a special case "
        "for non-finite operands).",
        differs="values [[]nan nan[]], JAX [[]0.5 0.5[]]",
    ),
]
