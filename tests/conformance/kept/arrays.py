"""Deliberate differences in the conformance corpus: numpy arrays, indexing and the rest of numpy.
See deliberate.py."""

from __future__ import annotations

from ..rows import Row, corpus  # noqa: F401

ROWS: list[Row] = []
