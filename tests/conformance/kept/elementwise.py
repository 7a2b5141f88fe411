"""Deliberate differences in the conformance corpus: elementwise numpy and lax functions,
numpy products.
See deliberate.py."""

from __future__ import annotations

from ..rows import Row, corpus  # noqa: F401

ROWS: list[Row] = []
