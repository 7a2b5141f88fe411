"""Deliberate differences in the conformance corpus: numpy.linalg, numpy.fft, scipy.linalg, random.
See deliberate.py."""

from __future__ import annotations

from ..rows import Row, corpus  # noqa: F401

ROWS: list[Row] = []
