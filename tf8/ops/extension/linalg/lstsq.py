"""Least squares: the pseudo-inverse and the minimum-norm least-squares solution.

Their derivatives (Golub & Pereyra 1973) are in `tf8.ad.families.linalg`.
"""

from __future__ import annotations

import numpy as np

from tf8.ops.avals import Aval

from .base import LinalgOp, right_hand_side


class Pinv(LinalgOp):
    """Moore–Penrose pseudo-inverse; payload `(rcond,)`, numpy's cutoff (None: 1e-15)."""

    name = "pinv"

    def __init__(self, rcond: float | None = None) -> None:
        super().__init__(None if rcond is None else float(rcond))

    def out_avals(self, avals, guards):
        *batch, m, n = avals[0].shape
        return (Aval((*batch, n, m), avals[0].dtype),)


class Lstsq(LinalgOp):
    """x minimising ‖A x − B‖ (minimum norm), B of shape (..., m, k); payload `(rcond,)`,
    numpy.linalg.lstsq's cutoff (None: machine epsilon × max(m, n))."""

    name = "lstsq"
    inputs = 2

    def __init__(self, rcond: float | None = None) -> None:
        super().__init__(None if rcond is None else float(rcond))

    def out_avals(self, avals, guards):
        a, b = avals
        right_hand_side(self.name, a, b, a.shape[-2])
        return (Aval((*b.shape[:-2], a.shape[-1], b.shape[-1]), b.dtype),)

    def cutoff(self, a: Aval) -> float:
        """The singular-value cutoff used for a matrix like `a`."""
        (rcond,) = self.payload
        if rcond is not None:
            return rcond
        return float(np.finfo(a.dtype).eps) * max(a.shape[-2:])


__all__ = ["Lstsq", "Pinv"]
