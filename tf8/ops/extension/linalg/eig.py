"""The general (non-Hermitian) eigendecomposition: eig and its pruned form eigvals.

Outputs are always complex (as JAX; numpy returns real arrays when every eigenvalue is real).
Derivatives (Magnus 1985; JAX's eig_jvp_rule has the eigenvalue part only and refuses
eigenvectors): with M = V⁻¹ dA V, dw = diag(M) and the unnormalised dV₀ = V (F ∘ M),
F_ij = 1/(w_j − w_i). LAPACK then fixes each eigenvector's
scale and phase: unit 2-norm, and its largest-modulus component real. We add to each column
the multiple of itself that keeps both: Re(v_jᴴ dv_j) = 0 and Im(dv_kj) = 0 at that component
k, so the derivative is that of the eigenvectors numpy returns. Repeated eigenvalues make
the eigenvector derivative infinite; a defective matrix has none.
"""

from __future__ import annotations

from tf8.lax.builders import add, compare, convert, mul, neg, real, reduce_sum, unary
from tf8.ops import dtypes as dt
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor, apply, apply1

from ..einsum import einsum
from ..matrix import along_rows, diagonal_of_product, mm, reciprocal
from .base import LinalgOp, Pruned, reciprocal_gaps, square
from .solve import inv_of


class Eig(LinalgOp):
    """(eigenvalues, right eigenvectors) of a square matrix, complex, in LAPACK's order."""

    name = "eig"
    outputs = 2

    def out_avals(self, avals, guards):
        n = square(self.name, avals[0], guards)
        dtype = dt.complex_dtype(avals[0].dtype)
        return Aval((*avals[0].shape[:-2], n), dtype), Aval(avals[0].shape, dtype)

    def jvp(self, op, primals, outputs, tangents):
        w, v = outputs
        v_inv, da_v = inv_of(v), mm(convert(tangents[0], v.dtype), v)
        rotated = mm(v_inv, da_v)  # M = V⁻¹ dA V
        dv0 = mm(v, mul(reciprocal_gaps(w), rotated))
        dv = add(dv0, mul(v, along_rows(_gauge(v, dv0), v.shape[-2])))
        return [diagonal_of_product(v_inv, da_v), dv]  # dw = diag(M), alone one matmul cheaper

    def prune_outputs(self, live):
        return Eigvals() if live == (True, False) else None


class Eigvals(Pruned):
    name, full, live = "eigvals", Eig, (True, False)

    def jvp(self, op, primals, outputs, tangents):
        _, v = apply(Eig(), list(primals))
        return [diagonal_of_product(inv_of(v), mm(convert(tangents[0], v.dtype), v))]


def _gauge(v: TracedTensor, dv0: TracedTensor) -> TracedTensor:
    """c_j such that dv0_j + c_j v_j keeps LAPACK's normalisation (see the module docstring)."""
    norm_part = neg(real(einsum("...ij,...ij->...j", unary("conj", v), dv0)))
    largest = _largest_component(v)  # one-hot per column, primal
    at_largest = reduce_sum(mul(largest, dv0), [v.ndim - 2])
    scale = reciprocal(real(reduce_sum(mul(largest, v), [v.ndim - 2])))
    phase_part = neg(mul(apply1("imag", [at_largest]), scale))
    return apply1("complex", [norm_part, phase_part])


def _largest_component(v: TracedTensor) -> TracedTensor:
    """1 at each column's largest-modulus entry (LAPACK makes it real), 0 elsewhere."""
    magnitude = unary("abs", v)
    rows = v.ndim - 2
    peak = apply1("reduce_max", [magnitude], axes=(rows,))
    is_peak = compare(magnitude, along_rows(peak, v.shape[-2]), "eq")
    return convert(is_peak, v.dtype)


__all__ = ["Eig", "Eigvals"]
