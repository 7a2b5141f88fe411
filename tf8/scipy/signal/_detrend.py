"""`detrend`: remove a constant or (piecewise) linear least-squares fit along an axis.

The fit of a piece is a fixed linear map of the data (its design matrix's pseudo-inverse,
computed in numpy when tracing), so detrending is one small matrix product per piece:
linear, differentiable to any order, batched by `vmap` as any product.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8.errors import AxisError, ParameterError
from tf8.numpy._core import inexact
from tf8.traced import TracedTensor

__all__ = ["detrend"]


def detrend(
    data: Any,
    axis: int = -1,
    type: str = "linear",
    bp: int | Sequence[int] | np.ndarray = 0,
    overwrite_data: None = None,
) -> TracedTensor:
    """`data` less its least-squares trend along `axis`, as `scipy.signal.detrend`.

    Parameters: `data` (array; integers become floats), `axis` (default -1), `type`
    ("linear": a straight line, fitted apart between the breakpoints; "constant": the mean),
    `bp` (breakpoints: static ints in [0, n], for "linear"), `overwrite_data` (must be None:
    traced values are never overwritten; as JAX).

    >>> import tf8.scipy.signal as tsig
    >>> tsig.detrend([1.0, 4.0, 8.0, 8.0, 9.0]).round(6) + 0.0
    Array([-1.,  0.,  2.,  0., -1.], dtype=float64)
    """
    if overwrite_data is not None:
        raise ParameterError("detrend: overwrite_data must be None (traced values are immutable)")
    if type not in ("linear", "constant", "l", "c"):
        raise ParameterError(f"detrend: type must be 'linear' or 'constant', got {type!r}")
    x = inexact(data)
    if not isinstance(axis, (int, np.integer)) or not -x.ndim <= axis < x.ndim:
        raise AxisError(f"detrend: axis {axis!r} is out of range for data {x.aval}")
    if type in ("constant", "c"):
        return x - tnp.mean(x, axis=axis, keepdims=True)
    size = x.shape[axis]
    try:
        points = np.sort(np.unique(np.r_[0, bp, size].astype(np.int64)))
    except (TypeError, ValueError):
        raise ParameterError(f"detrend: bp must be static ints, got {bp!r}") from None
    if points[0] < 0 or points[-1] > size:
        raise ParameterError(
            f"detrend: breakpoints {bp!r} must lie in [0, {size}] (the length along axis {axis})"
        )
    moved = tnp.moveaxis(x, axis, -1)
    pieces = [_linear_residual(moved[..., a:b]) for a, b in zip(points[:-1], points[1:])]
    if not pieces:
        return x
    out = pieces[0] if len(pieces) == 1 else tnp.concatenate(pieces, axis=-1)
    return tnp.moveaxis(out, -1, axis)


def _linear_residual(piece: TracedTensor) -> TracedTensor:
    """piece less its least-squares line along the last axis (the minimum-norm fit of
    [1, t/n], t = 1..n, as scipy's lstsq; exact for the one-point piece too)."""
    n = piece.shape[-1]
    design = np.stack([np.ones(n), np.arange(1, n + 1) / n], axis=1)
    fit = design @ np.linalg.pinv(design)  # n × n projection onto the lines
    if n <= 64:
        return piece - tnp.matmul(piece, fit.T.astype(piece.dtype))
    coefficients = tnp.matmul(piece, np.linalg.pinv(design).T.astype(piece.dtype))
    return piece - tnp.matmul(coefficients, design.T.astype(piece.dtype))
