"""Helpers the distributions share: standardising x by loc and scale, in a float dtype."""

from __future__ import annotations

from typing import Any

import tf8.numpy as tnp
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor


def inexact(x: Any) -> TracedTensor:
    """x in an inexact dtype (ints and bools → float64)."""
    x = tnp.asarray(x)
    return x if dt.is_inexact(x.dtype) else tnp.astype(x, tnp.float64)


def standardized(x: Any, loc: Any, scale: Any) -> TracedTensor:
    """(x - loc) / scale, as a float."""
    return (inexact(x) - loc) / scale


def split_at(
    condition: TracedTensor, x: TracedTensor, fill_first: float, fill_second: float
) -> tuple[TracedTensor, TracedTensor]:
    """(x where condition else fill_first, x where not condition else fill_second): each branch
    of a `where` gets only inputs its formula handles, so its unused derivative stays finite."""
    return tnp.where(condition, x, fill_first), tnp.where(condition, fill_second, x)
