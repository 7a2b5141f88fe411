"""The general (non-Hermitian) eigendecomposition: eig and its pruned form eigvals.

Outputs are always complex (as JAX; numpy returns real arrays when every eigenvalue is real).
Derivatives (Magnus 1985) are in `tf8.ad.families.linalg_decompositions`; repeated eigenvalues
make the eigenvector derivative infinite, and a defective matrix has none.
"""

from __future__ import annotations

from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval

from .base import LinalgOp, Pruned, square


class Eig(LinalgOp):
    """(eigenvalues, right eigenvectors) of a square matrix, complex, in LAPACK's order."""

    name = "eig"
    outputs = 2

    def out_avals(self, avals, guards):
        n = square(self.name, avals[0], guards)
        dtype = dt.complex_dtype(avals[0].dtype)
        return Aval((*avals[0].shape[:-2], n), dtype), Aval(avals[0].shape, dtype)

    def prune_outputs(self, live):
        return Eigvals() if live == (True, False) else None


class Eigvals(Pruned):
    name, full, live = "eigvals", Eig, (True, False)


__all__ = ["Eig", "Eigvals"]
