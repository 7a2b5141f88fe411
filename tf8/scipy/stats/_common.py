"""Helpers the distributions share: JAX's promote_args_inexact and typed constants (so each
function gets JAX's dtypes and weak types), and splitting a `where`'s inputs."""

from __future__ import annotations

from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8.scipy._gamma import args_inexact, strong
from tf8.traced import TracedTensor

__all__ = ["args_inexact", "const", "inexact", "split_at", "standardized", "strong"]


def const(x: TracedTensor, value: float) -> TracedTensor:
    """`value` as a scalar of x's dtype, weakly typed when x is a weakly typed scalar (JAX's
    _lax_const: a Python scalar there, a typed array otherwise)."""
    c = tnp.asarray(np.asarray(value, x.dtype))
    c._weak = x._weak and x.ndim == 0
    return c


def inexact(x: Any) -> TracedTensor:
    """x in JAX's inexact dtype for it (int32 and bool → float32, int64 → float64)."""
    return args_inexact("inexact", x)[0]


def standardized(x: Any, loc: Any, scale: Any) -> TracedTensor:
    """(x - loc) / scale, as a float."""
    return (inexact(x) - loc) / scale


def split_at(
    condition: TracedTensor, x: TracedTensor, fill_first: float, fill_second: float
) -> tuple[TracedTensor, TracedTensor]:
    """(x where condition else fill_first, x where not condition else fill_second): each branch
    of a `where` gets only inputs its formula handles, so its unused derivative stays finite."""
    return tnp.where(condition, x, fill_first), tnp.where(condition, fill_second, x)
