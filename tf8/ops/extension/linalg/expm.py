"""The matrix exponential and its Fréchet derivative (kernels from scipy.linalg).

`expm_frechet(A, E)` = L(A, E) = d/dt expm(A + tE) at t = 0, linear in E. expm's JVP is
L(A, dA). L's own JVP uses the block identity (Mathias 1996)

    expm([[A, E], [0, A]]) = [[expm(A), L(A, E)], [0, expm(A)]],

so L(A + t dA, E + t dE) is the top-right block of expm(X + t dX) with X = [[A, E], [0, A]]
and dX = [[dA, dE], [0, dA]]: its tangent is the top-right block of L(X, dX), linear in
(dA, dE), and derivatives of any order follow on twice-larger blocks. In E, L transposes
(JAX's bilinear convention, no conjugation) to L(Aᵀ, ·), since tr(Cᵀ L(A, E)) =
tr(L(Aᵀ, C)ᵀ E). The rules are in `tf8.ad.families.linalg`.
"""

from __future__ import annotations

from .base import LinalgOp, right_hand_side, square


class Expm(LinalgOp):
    name = "expm"

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        return (avals[0],)


class ExpmFrechet(LinalgOp):
    """L(A, E), the Fréchet derivative of expm at A in direction E; linear in E."""

    name = "expm_frechet"
    inputs = 2

    def out_avals(self, avals, guards):
        n = square(self.name, avals[0], guards)
        right_hand_side(self.name, avals[0], avals[1], n)
        square(self.name, avals[1], guards)
        return (avals[1],)


__all__ = ["Expm", "ExpmFrechet"]
