"""The corpus rows of the table of deliberate differences, one module per group of families,
so that each group's rows sit beside each other (deliberate.py puts them first)."""

from __future__ import annotations

from . import arrays, elementwise, general, lax, linalg_random, scipy

ROWS = [
    *general.ROWS,
    *lax.ROWS,
    *elementwise.ROWS,
    *arrays.ROWS,
    *scipy.ROWS,
    *linalg_random.ROWS,
]
