"""Least squares: the pseudo-inverse and the minimum-norm least-squares solution.

Both derivatives hold where the rank is locally constant (full rank is the usual case), from
Golub & Pereyra (1973):

    dA⁺ = −A⁺ dA A⁺ + A⁺A⁺ᴴ dAᴴ (I − A A⁺) + (I − A⁺A) dAᴴ A⁺ᴴ A⁺

and for x = A⁺ b, with the residual r = b − A x:

    dx = A⁺ (db − dA x) + A⁺A⁺ᴴ dAᴴ r + (I − A⁺A) dAᴴ A⁺ᴴ x.
"""

from __future__ import annotations

import numpy as np

from tf8.lax.builders import add, add_any, neg, sub
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor, apply

from ..matrix import eye, mH, mm
from .base import LinalgOp, right_hand_side


class Pinv(LinalgOp):
    """Moore–Penrose pseudo-inverse; payload `(rcond,)`, numpy's cutoff (None: 1e-15)."""

    name = "pinv"

    def __init__(self, rcond: float | None = None) -> None:
        super().__init__(None if rcond is None else float(rcond))

    def out_avals(self, avals, guards):
        *batch, m, n = avals[0].shape
        return (Aval((*batch, n, m), avals[0].dtype),)

    def jvp(self, op, primals, outputs, tangents):
        (a,), (p,), (ta,) = primals, outputs, tangents
        ta_h = mH(ta)
        first = neg(mm(p, mm(ta, p)))
        second = mm(mm(p, mH(p)), mm(ta_h, _complement(mm(a, p))))
        third = mm(_complement(mm(p, a)), mm(ta_h, mm(mH(p), p)))
        return [add(first, add(second, third))]


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

    def cutoff(self, a: TracedTensor) -> float:
        (rcond,) = self.payload
        if rcond is not None:
            return rcond
        return float(np.finfo(a.dtype).eps) * max(a.shape[-2:])

    def jvp(self, op, primals, outputs, tangents):
        (a, b), (x,), (ta, tb) = primals, outputs, tangents
        p = apply(Pinv(self.cutoff(a)), [a])[0]
        if ta is not None:
            ta_h = mH(ta)
            residual = sub(b, mm(a, x))
            tb = add_any(tb, neg(mm(ta, x)))
            extra = add(
                mm(mm(p, mH(p)), mm(ta_h, residual)),
                mm(_complement(mm(p, a)), mm(ta_h, mm(mH(p), x))),
            )
            return [add(mm(p, tb), extra)]
        return [mm(p, tb)]


def _complement(projector: TracedTensor) -> TracedTensor:
    """I − P."""
    return sub(eye(projector), projector)


__all__ = ["Lstsq", "Pinv"]
