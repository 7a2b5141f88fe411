"""Deliberate differences in the conformance corpus: numpy arrays, indexing and the rest of numpy.
See deliberate.py."""

from __future__ import annotations

from ..rows import Row, corpus

ROWS: list[Row] = [
    corpus(
        "numpy.tri[lu]",
        "float64[[]3]",
        "eager",
        "`tf8.numpy.tril` / `triu` of a 1-D array give numpy's (n, n) triangle.",
        "JAX 0.10 refuses a 1-D input (ValueError, 'input must be at least 2-d'); numpy reads "
        "the vector as the rows of an (n, n) matrix. `tf8.numpy` mirrors numpy's functions so "
        "that existing numpy code traces unchanged (DESIGN §3), and the answer is numpy's, not "
        "a guess.",
        differs="no error (JAX raised ValueError)",
    ),
    corpus(
        "numpy.histogram",
        "float64[[]12], float64[[]5], #2",
        "*",
        "`tf8.numpy.histogram` refuses bin edges that decrease (when their values are known).",
        "Edges out of order are invalid input: numpy raises ValueError, and JAX 0.10 returns "
        "counts from a binary search over the unsorted edges that mean nothing. tf8 raises a "
        "`ParameterError` (README: never a silent wrong answer); "
        "under `jit`, where the edges' values are unknown, its counts for such edges differ "
        "from JAX's (both are meaningless).",
    ),
    corpus(
        "numpy.array_equiv",
        "float64[[]2], float64[[]3]",
        "eager",
        "`tf8.numpy.array_equiv` of shapes that do not broadcast is False.",
        "numpy returns False, and so does JAX's own code (it catches the ValueError it expects "
        "from `equal`), but JAX 0.10's `equal` raises a TypeError there, which escapes. tf8 "
        "gives the documented answer of both libraries, as `tf8.numpy` mirrors numpy's "
        "functions so that numpy code traces unchanged (DESIGN §3).",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "numpy.clip",
        "complex*",
        "eager",
        "`tf8.numpy.clip` of complex values clips in numpy's (lexicographic) order.",
        "JAX 0.10 refuses complex input to `clip` (ValueError) although its `maximum` and "
        "`minimum` order complex values lexicographically, as numpy's do; `tf8.numpy.clip` is "
        "`minimum(maximum(a, lo), hi)`, numpy's values, so that numpy code traces unchanged "
        "(DESIGN §3).",
        differs="no error (JAX raised ValueError)",
    ),
    corpus(
        "numpy.*split",
        "float64[[]6,4,2], (*",
        "eager",
        "`tf8.numpy.split` / `array_split` take cut points past the end, as numpy does.",
        "numpy clamps each cut point into the axis, so `split(x, [0, 10])` of a length-6 axis "
        "gives x[:0], x[0:] and an empty piece; JAX 0.10 refuses any cut that makes a piece of "
        "negative size (ValueError). tf8 gives numpy's pieces: `tf8.numpy` mirrors numpy's "
        "functions so that numpy code traces unchanged (DESIGN §3).",
        differs="no error (JAX raised ValueError)",
    ),
]
