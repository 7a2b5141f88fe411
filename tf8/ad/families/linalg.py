"""AD rules of the linalg family's square-matrix, least-squares and expm ops.

JVP rules emit only ops linear in the tangents (einsum with primal residuals, `Solve` in its
right-hand side, structural primitives), so reverse mode comes from transposing them; the ops
linear in an operand (solve, triangular_solve, expm_frechet in B or E) have transpose rules.
Decompositions (eigh, svd, qr, eig) are in `linalg_decompositions`.

Least squares (Golub & Pereyra 1973), where the rank is locally constant:
dA⁺ = −A⁺ dA A⁺ + A⁺A⁺ᴴ dAᴴ (I − A A⁺) + (I − A⁺A) dAᴴ A⁺ᴴ A⁺, and for x = A⁺ b with the
residual r = b − A x: dx = A⁺ (db − dA x) + A⁺A⁺ᴴ dAᴴ r + (I − A⁺A) dAᴴ A⁺ᴴ x.
expm's JVP is the Fréchet derivative L(A, dA); L's own JVP is a block of L on the doubled
matrix [[A, E], [0, A]] (see `tf8.ops.extension.linalg.expm`), and in E it transposes to
L(Aᵀ, ·).
"""

from __future__ import annotations

from tf8.errors import DifferentiationError
from tf8.lax.builders import add, add_any, conj, convert, materialize, mul, neg, real, sub
from tf8.lax.core import apply, apply1
from tf8.lax.einsum import einsum
from tf8.lax.linalg import inv_of, solve_of
from tf8.lax.matrix import (
    blocks,
    columns,
    diag_embed,
    diagonal,
    eye,
    lower_symmetric,
    mH,
    mm,
    mT,
    rows,
    trace_of_product,
    tril,
)
from tf8.ops import dtypes as dt
from tf8.ops.extension.linalg import (
    Adjugate,
    Cholesky,
    Det,
    Expm,
    ExpmFrechet,
    Inv,
    LogAbsDet,
    Lstsq,
    MinorProducts,
    Pinv,
    Slogdet,
    Solve,
    Svd,
    TriangularSolve,
)
from tf8.traced import TracedTensor

from ..jvp_rules import JvpRule
from ..transpose_rules import TransposeRule


def trace_inv_times(a: TracedTensor, t: TracedTensor) -> TracedTensor:
    """tr(A⁻¹ T) per batch entry."""
    return trace_of_product(inv_of(a), t)


def inv_jvp(op: Inv, primals, outputs, tangents):
    (ainv,) = outputs
    return [neg(mm(mm(ainv, tangents[0]), ainv))]  # d(A⁻¹) = −A⁻¹ dA A⁻¹


def solve_jvp(op: Solve, primals, outputs, tangents):
    (a, _), (x,), (ta, tb) = primals, outputs, tangents
    rhs = add_any(tb, None if ta is None else neg(mm(ta, x)))
    return [solve_of(a, rhs)]  # dx = A⁻¹ (dB − dA x)


def solve_transpose(op: Solve, operands, linear, ct):
    if linear[0]:
        raise TypeError("solve is linear in its right-hand side only")
    return [None, solve_of(mT(operands[0]), ct)]  # bilinear convention: A⁻ᵀ, no conjugate


def _triangle(op: TriangularSolve, t: TracedTensor) -> TracedTensor:
    """The part of t that `op` reads: its triangle, without the diagonal if unit."""
    lower, _, unit = op.payload
    k = 1 if unit else 0
    return tril(t, -k) if lower else mT(tril(mT(t), -k))


def triangular_solve_jvp(op: TriangularSolve, primals, outputs, tangents):
    (a, _), (x,), (ta, tb) = primals, outputs, tangents
    if ta is not None:
        d_t = _triangle(op, ta)
        d_op = {0: d_t, 1: mT(d_t), 2: mH(d_t)}[op.payload[1]]
        tb = add_any(tb, neg(mm(d_op, x)))
    return [apply(op, [a, tb])[0]]  # dx = op(T)⁻¹ (dB − op(dT) x)


def triangular_solve_transpose(op: TriangularSolve, operands, linear, ct):
    if linear[0]:
        raise TypeError("triangular_solve is linear in its right-hand side only")
    lower, trans, unit = op.payload
    a = operands[0]
    if trans == 2:  # (Tᴴ)⁻ᵀ c = conj(T⁻¹ conj(c))
        inner = TriangularSolve(lower, 0, unit)
        return [None, conj(apply(inner, [a, conj(ct)])[0])]
    return [None, apply(TriangularSolve(lower, 1 - trans, unit), [a, ct])[0]]


def det_jvp(op: Det, primals, outputs, tangents):
    # d det = tr(adj(A) dA), Jacobi's formula; adj(A) = det(A) A⁻¹ exists for singular A too.
    return [trace_of_product(apply(Adjugate(), [primals[0]])[0], tangents[0])]


def adjugate_jvp(op: Adjugate, primals, outputs, tangents):
    # A = U S Vᴴ: adj(A + E) = det(U) det(Vᴴ) V adj(S + F) Uᴴ with F = Uᴴ E V, and at a
    # diagonal S, d adj(S)[F]_ii = Σ_{k≠i} F_kk H_ik, d adj(S)[F]_ij = −F_ij H_ij (i ≠ j),
    # H_ij = ∏_{k∉{i,j}} s_k (`MinorProducts`): defined where A is singular, as JAX's.
    (a,), (t,) = primals, tangents
    u, s, vh = apply(Svd(), [a])
    n = a.shape[-1]
    h = convert(apply(MinorProducts(), [s])[0], a.dtype)
    f = mm(mH(u), mm(t, mH(vh)))
    f_h = mul(f, h)
    diag_f = diagonal(f)
    diagonal_part = sub(einsum("...ik,...k->...i", h, diag_f), diagonal(f_h))
    inner = sub(diag_embed(diagonal_part), sub(f_h, diag_embed(diagonal(f_h))))
    phase = mul(apply(Det(), [u])[0], apply(Det(), [vh])[0])
    phase = apply1(
        "broadcast_in_dim",
        [phase],
        shape=(*phase.shape, n, n),
        broadcast_dimensions=tuple(range(phase.ndim)),
    )
    return [mul(phase, mm(mH(vh), mm(inner, mH(u))))]


def minor_products_jvp(op: MinorProducts, primals, outputs, tangents):
    raise DifferentiationError("det: derivatives past the second order are not implemented")


def slogdet_jvp(op: Slogdet, primals, outputs, tangents):
    trace = trace_inv_times(primals[0], tangents[0])  # d log det = tr(A⁻¹ dA)
    if not dt.is_complex(trace.dtype):
        return [None, trace]
    imaginary = sub(trace, convert(real(trace), trace.dtype))
    return [mul(outputs[0], imaginary), real(trace)]


def logabsdet_jvp(op: LogAbsDet, primals, outputs, tangents):
    return [real(trace_inv_times(primals[0], tangents[0]))]


def cholesky_jvp(op: Cholesky, primals, outputs, tangents):
    # dL = L Φ(L⁻¹ dA L⁻ᴴ), Φ = lower triangle with the diagonal halved.
    (chol,) = outputs
    lower_solve = TriangularSolve(True, 0, False)
    left = apply(lower_solve, [chol, lower_symmetric(tangents[0])])[0]
    middle = mH(apply(lower_solve, [chol, mH(left)])[0])
    phi = add(tril(middle, -1), mul(diag_embed(diagonal(middle)), 0.5))
    return [mm(chol, phi)]


def expm_jvp(op: Expm, primals, outputs, tangents):
    return [apply(ExpmFrechet(), [primals[0], tangents[0]])[0]]


def expm_frechet_jvp(op: ExpmFrechet, primals, outputs, tangents):
    (a, e), (ta, te) = primals, tangents
    if ta is None:
        return [apply(op, [a, te])[0]]
    n = a.shape[-1]
    zero = materialize(None, a.aval)
    x = blocks([[a, e], [zero, a]])
    dx = blocks([[ta, materialize(te, a.aval)], [zero, ta]])
    return [columns(rows(apply(op, [x, dx])[0], 0, n), n, 2 * n)]


def expm_frechet_transpose(op: ExpmFrechet, operands, linear, ct):
    if linear[0]:
        raise TypeError("expm_frechet is linear in its direction E only")
    return [None, apply(op, [mT(operands[0]), ct])[0]]


def pinv_jvp(op: Pinv, primals, outputs, tangents):
    (a,), (p,), (ta,) = primals, outputs, tangents
    ta_h = mH(ta)
    first = neg(mm(p, mm(ta, p)))
    second = mm(mm(p, mH(p)), mm(ta_h, _complement(mm(a, p))))
    third = mm(_complement(mm(p, a)), mm(ta_h, mm(mH(p), p)))
    return [add(first, add(second, third))]


def lstsq_jvp(op: Lstsq, primals, outputs, tangents):
    (a, b), (x,), (ta, tb) = primals, outputs, tangents
    p = apply(Pinv(op.cutoff(a.aval)), [a])[0]
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


JVP_RULES: dict[type, JvpRule] = {
    Inv: inv_jvp,
    Solve: solve_jvp,
    TriangularSolve: triangular_solve_jvp,
    Det: det_jvp,
    Adjugate: adjugate_jvp,
    MinorProducts: minor_products_jvp,
    Slogdet: slogdet_jvp,
    LogAbsDet: logabsdet_jvp,
    Cholesky: cholesky_jvp,
    Expm: expm_jvp,
    ExpmFrechet: expm_frechet_jvp,
    Pinv: pinv_jvp,
    Lstsq: lstsq_jvp,
}
TRANSPOSE_RULES: dict[type, TransposeRule] = {
    Solve: solve_transpose,
    TriangularSolve: triangular_solve_transpose,
    ExpmFrechet: expm_frechet_transpose,
}
