"""AD rules of the linalg family's decompositions: eigh, svd (reduced and full), qr, eig.

Hermitian inputs (`eigh`) are read from the lower triangle, as numpy's kernels do, and so are
their tangents. Degenerate spectra (repeated eigen/singular values) make the vector
derivatives infinite (1/(w_j − w_i)), as in JAX; the values themselves stay finite. A pruned
op (eigvalsh, svdvals, qr_r) differentiates through its full op on recomputed full outputs.

qr: JAX's rules, wide matrices and the complete Q included (see qr_jvp, qr_full_jvp).

eig (Magnus 1985; JAX's eig_jvp_rule has the eigenvalue part only): with M = V⁻¹ dA V,
dw = diag(M) and the unnormalised dV₀ = V (F ∘ M), F_ij = 1/(w_j − w_i). LAPACK then fixes
each eigenvector's scale and phase (unit 2-norm, largest-modulus component real); adding to
each column the multiple of itself that keeps both gives the derivative of the eigenvectors
numpy returns.
"""

from __future__ import annotations

from tf8.errors import DifferentiationError
from tf8.lax.builders import (
    add,
    compare,
    convert,
    full,
    mul,
    neg,
    real,
    reduce_sum,
    select,
    sub,
    unary,
)
from tf8.lax.core import apply, apply1
from tf8.lax.einsum import einsum
from tf8.lax.linalg import inv_of, solve_of
from tf8.lax.matrix import (
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
    reciprocal,
    rows,
    tril,
)
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.extension.linalg import (
    Eig,
    Eigh,
    Eigvals,
    Eigvalsh,
    Pruned,
    Qr,
    QrFull,
    QrR,
    QrRaw,
    Svd,
    SvdFull,
    Svdvals,
    TriangularSolve,
)
from tf8.traced import TracedTensor

from ..jvp_rules import JvpRule


def reciprocal_gaps(values: TracedTensor, squared: bool = False) -> TracedTensor:
    """F_ij = 1/(v_j − v_i) (or 1/(v_j² − v_i²)) off the diagonal, 0 on it."""
    if squared:
        values = mul(values, values)
    k = values.shape[-1]
    gaps = sub(along_rows(values, k), along_columns(values, k))
    identity = eye(gaps)
    return sub(reciprocal(add(gaps, identity)), identity)


def safe_reciprocal(s: TracedTensor) -> TracedTensor:
    """1/s where s ≠ 0, else 0 (zero singular values contribute nothing)."""
    zero = compare(s, 0, "eq")
    return select(zero, 0, reciprocal(select(zero, 1, s)))


def pruned_jvp(op: Pruned, primals, outputs, tangents):
    """The full op's JVP on recomputed full outputs, restricted to the live outputs."""
    full = op.full_op()
    ts = JVP_RULES[type(full)](full, primals, apply(full, list(primals)), tangents)
    return [t for t, alive in zip(ts, op.live) if alive]


def eigh_jvp(op: Eigh, primals, outputs, tangents):
    w, v = outputs
    da_v = mm(lower_symmetric(tangents[0]), v)
    rotated = mm(mH(v), da_v)  # M = Vᴴ dA V; dw = diag(M), computed apart (cheaper alone)
    gaps = convert(reciprocal_gaps(w), v.dtype)
    return [real(diagonal_of_product(mH(v), da_v)), mm(v, mul(rotated, gaps))]  # dV = V (F ∘ M)


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


def reduced_svd_jvp(op: Svd, primals, outputs, tangents):
    return svd_jvp(primals[0], *outputs, tangents[0])


def full_svd_jvp(op: SvdFull, primals, outputs, tangents):
    """The columns of U (rows of Vh) past min(m, n) move as dU_c = −U_r dU_rᴴ U_c, the
    derivative that does not rotate inside the complement (see `SvdFull`)."""
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


def qr_jvp(op: Qr, primals, outputs, tangents):
    # JAX's qr_jvp_rule (j-towns.github.io/papers/qr-derivative.pdf). A wide A = [A₁ A₂]
    # (A₁ square) has Q, R₁ from A₁ = Q R₁ and R₂ = Qᴴ A₂, so dR₂ = dQᴴ A₂ + Qᴴ dA₂.
    (a,), (q, r), (ta,) = primals, outputs, tangents
    m, n = _concrete_sizes(a)
    if m >= n:
        return list(_thin_qr_jvp(q, r, ta))
    dq, dr1 = _thin_qr_jvp(q, columns(r, 0, m), columns(ta, 0, m))
    dr2 = add(mm(mH(dq), columns(a, m, n)), mm(mH(q), columns(ta, m, n)))
    return [dq, join([dr1, dr2], -1)]


def qr_full_jvp(op: QrFull, primals, outputs, tangents):
    # JAX's qr_jvp_rule for full_matrices (arxiv.org/pdf/2409.13374, eqs. 32-33): the columns
    # of Q past n follow LAPACK's Householder construction.
    (a,), (q, r), (ta,) = primals, outputs, tangents
    m, n = _concrete_sizes(a)
    if m <= n:
        return qr_jvp(op, primals, outputs, tangents)
    q_mn = columns(q, 0, n)
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, rows(r, 0, n), ta)
    q_nn, q_pn, q_mp = rows(q_mn, 0, n), rows(q_mn, n, m), columns(q, n, m)
    dq_nn, dq_pn = rows(dq_mn, 0, n), rows(dq_mn, n, m)
    z_pn_h = solve_of(mH(sub(q_nn, eye(q_nn))), mH(q_pn))  # Z_pn = Q_pn (Q_nn − I)⁻¹
    z_pn = mH(z_pn_h)
    dq_mp = sub(
        mm(dq_mn, z_pn_h),
        mm(add(q_mn, mm(q_mp, z_pn)), mH(sub(dq_pn, mm(z_pn, dq_nn)))),
    )
    zeros = full(Aval((*r.shape[:-2], m - n, n), r.dtype), 0)
    return [join([dq_mn, dq_mp], -1), join([dr_nn, zeros], -2)]


def qr_raw_jvp(op: QrRaw, primals, outputs, tangents):
    raise DifferentiationError("qr: mode='raw' (Householder reflectors) is not differentiable")


def _concrete_sizes(a: TracedTensor) -> tuple[int, int]:
    *_, m, n = a.shape
    if not (isinstance(m, int) and isinstance(n, int)):
        raise DifferentiationError(f"qr: derivative needs concrete matrix sizes, got {m} x {n}")
    return m, n


def _thin_qr_jvp(q, r, ta) -> tuple[TracedTensor, TracedTensor]:
    """(dQ, dR) of A = Q R with m >= n (JAX's _thin_qr_jvp)."""
    # dA R⁻¹ = (R⁻ᵀ dAᵀ)ᵀ, R upper triangular
    dx_rinv = mT(apply(TriangularSolve(False, 1, False), [r, mT(ta)])[0])
    qt_dx_rinv = mm(mH(q), dx_rinv)
    lower = tril(qt_dx_rinv, -1)
    skew = sub(lower, mH(lower))
    if dt.is_complex(ta.dtype):
        imaginary = sub(qt_dx_rinv, convert(real(qt_dx_rinv), ta.dtype))
        skew = add(skew, mul(eye(qt_dx_rinv), imaginary))
    dq = add(mm(q, sub(skew, qt_dx_rinv)), dx_rinv)
    dr = mm(sub(qt_dx_rinv, skew), r)
    return dq, dr


def eig_jvp(op: Eig, primals, outputs, tangents):
    w, v = outputs
    v_inv, da_v = inv_of(v), mm(convert(tangents[0], v.dtype), v)
    rotated = mm(v_inv, da_v)  # M = V⁻¹ dA V
    dv0 = mm(v, mul(reciprocal_gaps(w), rotated))
    dv = add(dv0, mul(v, along_rows(_gauge(v, dv0), v.shape[-2])))
    return [diagonal_of_product(v_inv, da_v), dv]  # dw = diag(M), alone one matmul cheaper


def eigvals_jvp(op: Eigvals, primals, outputs, tangents):
    _, v = apply(Eig(), list(primals))
    return [diagonal_of_product(inv_of(v), mm(convert(tangents[0], v.dtype), v))]


def _gauge(v: TracedTensor, dv0: TracedTensor) -> TracedTensor:
    """c_j such that dv0_j + c_j v_j keeps LAPACK's normalisation (see the module docstring):
    Re(v_jᴴ dv_j) = 0 and Im(dv_kj) = 0 at each column's largest component k."""
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


JVP_RULES: dict[type, JvpRule] = {
    Eigh: eigh_jvp,
    Eigvalsh: pruned_jvp,
    Svd: reduced_svd_jvp,
    SvdFull: full_svd_jvp,
    Svdvals: pruned_jvp,
    Qr: qr_jvp,
    QrR: pruned_jvp,
    QrFull: qr_full_jvp,
    QrRaw: qr_raw_jvp,
    Eig: eig_jvp,
    Eigvals: eigvals_jvp,
}
