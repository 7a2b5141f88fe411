"""Hermitian eigendecomposition, SVD (reduced and full) and QR, with their pruned forms.

Hermitian inputs (`eigh`) are read from the lower triangle, as numpy's kernels do. Ops whose
outputs are partly unused prune to cheaper ones: an SVD whose U and Vh are dead becomes
`svdvals`. Derivatives are in `tf8.ad.families.linalg_decompositions`.
"""

from __future__ import annotations

from tf8.ops.avals import Aval

from .base import (
    LinalgOp,
    Pruned,
    concrete_min,
    real_aval,
    square,
)


class Eigh(LinalgOp):
    """(eigenvalues ascending, eigenvectors) of a Hermitian matrix read from its lower triangle."""

    name = "eigh"
    outputs = 2

    def out_avals(self, avals, guards):
        n = square(self.name, avals[0], guards)
        return (real_aval((*avals[0].shape[:-2], n), avals[0].dtype), avals[0])

    def prune_outputs(self, live):
        return Eigvalsh() if live == (True, False) else None


class Eigvalsh(Pruned):
    name, full, live = "eigvalsh", Eigh, (True, False)


class Svd(LinalgOp):
    """Reduced SVD (U, s, Vh), numpy's order; with U and Vh unused it prunes to `Svdvals`."""

    name = "svd"
    outputs = 3

    def out_avals(self, avals, guards):
        a = avals[0]
        *batch, m, n = a.shape
        k = concrete_min(self.name, m, n)
        return (
            Aval((*batch, m, k), a.dtype),
            real_aval((*batch, k), a.dtype),
            Aval((*batch, k, n), a.dtype),
        )

    def prune_outputs(self, live):
        return Svdvals() if live == (False, True, False) else None


class SvdFull(Svd):
    """Full SVD: U is (m, m) and Vh (n, n), numpy's full_matrices=True.

    The columns of U (rows of Vh) past min(m, n) are an arbitrary orthonormal basis of a
    complement; their derivative is the one that does not rotate inside the complement,
    dU_c = −U_r dU_rᴴ U_c, so only functions invariant to that basis (the projector
    U_c U_cᴴ, anything of U_r, s, V) differentiate to match finite differences.
    """

    name = "svd_full"

    def out_avals(self, avals, guards):
        a = avals[0]
        *batch, m, n = a.shape
        k = concrete_min(self.name, m, n)
        return (
            Aval((*batch, m, m), a.dtype),
            real_aval((*batch, k), a.dtype),
            Aval((*batch, n, n), a.dtype),
        )


class Svdvals(Pruned):
    name, full, live = "svdvals", Svd, (False, True, False)


class Qr(LinalgOp):
    """Reduced QR (Q, R); with Q unused it prunes to `QrR`."""

    name = "qr"
    outputs = 2

    def out_avals(self, avals, guards):
        a = avals[0]
        *batch, m, n = a.shape
        k = concrete_min(self.name, m, n)
        return Aval((*batch, m, k), a.dtype), Aval((*batch, k, n), a.dtype)

    def prune_outputs(self, live):
        return QrR() if live == (False, True) else None


class QrR(Pruned):
    name, full, live = "qr_r", Qr, (False, True)


class QrFull(LinalgOp):
    """Complete QR (numpy's mode='complete'): Q is (m, m) and R (m, n)."""

    name = "qr_full"
    outputs = 2

    def out_avals(self, avals, guards):
        a = avals[0]
        *batch, m, n = a.shape
        return Aval((*batch, m, m), a.dtype), Aval((*batch, m, n), a.dtype)


class QrRaw(LinalgOp):
    """numpy's mode='raw' (LAPACK's geqrf): (h, tau), h (n, m) holding R and the Householder
    reflectors, tau their (min(m, n),) scale factors. Not differentiable (neither is numpy's)."""

    name = "qr_raw"
    outputs = 2

    def out_avals(self, avals, guards):
        a = avals[0]
        *batch, m, n = a.shape
        k = concrete_min(self.name, m, n)
        return Aval((*batch, n, m), a.dtype), Aval((*batch, k), a.dtype)


__all__ = ["Eigh", "Eigvalsh", "Qr", "QrFull", "QrR", "QrRaw", "Svd", "SvdFull", "Svdvals"]
