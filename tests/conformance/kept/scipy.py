"""Deliberate differences in the conformance corpus: scipy.special, scipy.stats,
lax.special functions.
See deliberate.py."""

from __future__ import annotations

from ..rows import Row, corpus  # noqa: F401

ROWS: list[Row] = []
