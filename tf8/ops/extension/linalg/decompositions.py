"""Hermitian eigendecomposition, SVD (reduced and full) and QR, with their pruned forms.

Hermitian inputs (`eigh`) are read from the lower triangle, as numpy's kernels do, and so are
their tangents. Degenerate spectra (repeated eigen/singular values) make the vector
derivatives infinite (1/(w_j − w_i)), as in JAX; the values themselves stay finite. Ops whose
outputs are partly unused prune to cheaper ones: an SVD whose U and Vh are dead becomes
`svdvals`.
"""

from __future__ import annotations

from tf8.errors import DifferentiationError
from tf8.lax.builders import add, convert, mul, neg, real, sub
from tf8.ops import dtypes as dt
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor, apply

from ..matrix import (
    along_columns,
    along_rows,
    columns,
    diag_embed,
    diagonal_of_product,
    eye,
    join,
    lower_symmetric,
    mH,
    mm,
    mT,
    rows,
    tril,
)
from .base import (
    LinalgOp,
    Pruned,
    concrete_min,
    real_aval,
    reciprocal_gaps,
    safe_reciprocal,
    square,
)
from .solve import TriangularSolve


class Eigh(LinalgOp):
    """(eigenvalues ascending, eigenvectors) of a Hermitian matrix read from its lower triangle."""

    name = "eigh"
    outputs = 2

    def out_avals(self, avals, guards):
        n = square(self.name, avals[0], guards)
        return (real_aval((*avals[0].shape[:-2], n), avals[0].dtype), avals[0])

    def jvp(self, op, primals, outputs, tangents):
        w, v = outputs
        da_v = mm(lower_symmetric(tangents[0]), v)
        rotated = mm(mH(v), da_v)  # M = Vᴴ dA V; dw = diag(M), computed apart (cheaper alone)
        gaps = convert(reciprocal_gaps(w), v.dtype)
        return [real(diagonal_of_product(mH(v), da_v)), mm(v, mul(rotated, gaps))]  # dV = V (F ∘ M)

    def prune_outputs(self, live):
        return Eigvalsh() if live == (True, False) else None


class Eigvalsh(Pruned):
    name, full, live = "eigvalsh", Eigh, (True, False)


def svd_jvp(a, u, s, vh, ta) -> list[TracedTensor]:
    """JAX's svd_jvp_rule for the reduced SVD: [dU, ds, dVh]."""
    v = mH(vh)
    *_, m, n = a.shape
    k = s.shape[-1]
    da_v = mm(ta, v)
    d_s = mm(mH(u), da_v)  # dS = Uᴴ dA V
    ds = real(diagonal_of_product(mH(u), da_v))  # its diagonal, alone one matmul cheaper
    f = convert(reciprocal_gaps(s, squared=True), a.dtype)
    s_row = convert(along_rows(s, k), a.dtype)  # s_j
    s_col = convert(along_columns(s, k), a.dtype)  # s_i
    dss, sds = mul(d_s, s_row), mul(d_s, s_col)
    s_inv = convert(safe_reciprocal(s), a.dtype)
    du_dv_diag = mul(diag_embed(s_inv), mul(sub(d_s, mH(d_s)), 0.5))
    du = mm(u, add(mul(f, add(dss, mH(dss))), du_dv_diag))
    dv = mm(v, mul(f, add(sds, mH(sds))))
    if m != n:
        s_inv_rows = along_rows(s_inv, m if m > n else n)
        if m > n:
            dav = mm(ta, v)
            du = add(du, mul(sub(dav, mm(u, mm(mH(u), dav))), s_inv_rows))
        else:
            dahu = mm(mH(ta), u)
            dv = add(dv, mul(sub(dahu, mm(v, mm(vh, dahu))), s_inv_rows))
    return [du, ds, mH(dv)]


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

    def jvp(self, op, primals, outputs, tangents):
        return svd_jvp(primals[0], *outputs, tangents[0])

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

    def jvp(self, op, primals, outputs, tangents):
        (a,), (u, s, vh), (ta,) = primals, outputs, tangents
        *_, m, n = a.shape
        k = s.shape[-1]
        u_r, vh_r = columns(u, 0, k), rows(vh, 0, k)
        du_r, ds, dvh_r = svd_jvp(a, u_r, s, vh_r, ta)
        du, dvh = du_r, dvh_r
        if m > k:
            du = join([du_r, _complement_tangent(u_r, du_r, columns(u, k, m))], -1)
        if n > k:
            v_r, dv_r = mH(vh_r), mH(dvh_r)
            dv_c = _complement_tangent(v_r, dv_r, mH(rows(vh, k, n)))
            dvh = join([dvh_r, mH(dv_c)], -2)
        return [du, ds, dvh]


def _complement_tangent(q_r, dq_r, q_c) -> TracedTensor:
    """dQ_c = −Q_r dQ_rᴴ Q_c: keeps [Q_r, Q_c] unitary without rotating inside Q_c."""
    return neg(mm(q_r, mm(mH(dq_r), q_c)))


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

    def jvp(self, op, primals, outputs, tangents):
        # JAX's qr_jvp_rule (j-towns.github.io/papers/qr-derivative.pdf); needs m >= n.
        (a,), (q, r), (ta,) = primals, outputs, tangents
        *_, m, n = a.shape
        if not (isinstance(m, int) and isinstance(n, int)) or m < n:
            raise DifferentiationError(f"qr: derivative needs rows >= columns, got {m} x {n}")
        # dA R⁻¹ = (R⁻ᵀ dAᵀ)ᵀ, R upper triangular
        dx_rinv = mT(apply(TriangularSolve(False, 1, False), [r, mT(ta)])[0])
        qt_dx_rinv = mm(mH(q), dx_rinv)
        lower = tril(qt_dx_rinv, -1)
        skew = sub(lower, mH(lower))
        if dt.is_complex(a.dtype):
            imaginary = sub(qt_dx_rinv, convert(real(qt_dx_rinv), a.dtype))
            skew = add(skew, mul(eye(qt_dx_rinv), imaginary))
        dq = add(mm(q, sub(skew, qt_dx_rinv)), dx_rinv)
        dr = mm(sub(qt_dx_rinv, skew), r)
        return [dq, dr]

    def prune_outputs(self, live):
        return QrR() if live == (False, True) else None


class QrR(Pruned):
    name, full, live = "qr_r", Qr, (False, True)


__all__ = ["Eigh", "Eigvalsh", "Qr", "QrR", "Svd", "SvdFull", "Svdvals", "svd_jvp"]
