"""AD rules of scipy.linalg's other decompositions (`tf8.ops.extension.linalg.schur`).

- schur, hessenberg, sqrtm, funm's Parlett recurrence, solve_sylvester and qr_multiply are
  not differentiated, as in JAX (whose rules raise NotImplementedError): their JVP raises
  `DifferentiationError`.
- pivoted QR: A[:, P] = Q R with P piecewise constant, so (dQ, dR) is the QR derivative of
  A[:, P] in the direction dA[:, P] (JAX's rule).
- eigh_tridiagonal (first-order perturbation theory, as eigh's): with dT the tridiagonal
  tangent, dw_j = v_jᴴ dT v_j and dv_j = Σ_{i≠j} v_i (v_iᴴ dT v_j) / (w_j − w_i), the sum over
  the whole spectrum (recomputed when only some eigenpairs were selected). Repeated eigenvalues
  make dv infinite, as eigh's.
"""

from __future__ import annotations

import numpy as np

from tf8.errors import DifferentiationError
from tf8.lax.builders import add, add_any, conj, convert, full, mul, real, select, sub
from tf8.lax.core import apply, apply1
from tf8.lax.einsum import einsum
from tf8.lax.matrix import along_columns, along_rows, diag_embed, join, mH, mm, mT, reciprocal
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.extension.linalg import QrFull
from tf8.ops.extension.linalg.schur import (
    EighTridiagonal,
    EigvalshTridiagonal,
    Hessenberg,
    HessenbergH,
    Parlett,
    QrMultiply,
    QrPivoted,
    QrPivotedR,
    Schur,
    SchurT,
    SolveSylvester,
    Sqrtm,
)
from tf8.ops.extension.linalg.triangular import PermuteRows
from tf8.ops.primitive import ConstantValue
from tf8.traced import TracedTensor

from ..jvp_rules import JvpRule
from .linalg_decompositions import qr_full_jvp, qr_jvp


def not_differentiable(public_name: str) -> JvpRule:
    def rule(op, primals, outputs, tangents):
        raise DifferentiationError(
            f"{public_name} is not differentiable (JAX's raises NotImplementedError too); "
            "wrap its input in stop_gradient to use it inside a differentiated function"
        )

    return rule


def pruned(op, primals, outputs, tangents):
    """The full op's JVP on recomputed outputs, restricted to the live ones."""
    whole = op.full_op()
    found = JVP_RULES[type(whole)](whole, primals, apply(whole, list(primals)), tangents)
    return [t for t, alive in zip(found, op.live) if alive]


def _columns_permuted(x: TracedTensor, p: TracedTensor) -> TracedTensor:
    """x[..., :, p] (linear in x)."""
    return mT(apply(PermuteRows(False), [mT(x), p])[0])


def qr_pivoted_jvp(op: QrPivoted, primals, outputs, tangents):
    (a,), (q, r, p), (ta,) = primals, outputs, tangents
    permuted = [_columns_permuted(a, p)]
    rule = qr_full_jvp if op.payload[0] else qr_jvp
    dq, dr = rule(QrFull(), permuted, [q, r], [_columns_permuted(ta, p)])
    return [dq, dr, None]


def _tridiagonal(td: TracedTensor | None, te: TracedTensor | None, n: int, like) -> TracedTensor:
    """The Hermitian tridiagonal matrix with diagonal Re(td), superdiagonal te and
    subdiagonal conj(te) (zero parts symbolic)."""
    batch = like.shape[:-1]
    total = None
    if td is not None:
        total = diag_embed(convert(real(td), like.dtype))
    if te is not None and n > 1:
        column = full(Aval((*batch, n - 1, 1), like.dtype), 0)
        row = full(Aval((*batch, 1, n), like.dtype), 0)
        upper = join([join([column, diag_embed(te)], -1), row], -2)
        total = add_any(total, add(upper, mH(upper)))
    return total if total is not None else full(Aval((*batch, n, n), like.dtype), 0)


def eigh_tridiagonal_jvp(op: EighTridiagonal, primals, outputs, tangents):
    (d, e), (w, v), (td, te) = primals, outputs, tangents
    n = d.shape[-1]
    (selected,) = op.payload
    w_all, v_all = (w, v) if selected is None else apply(EighTridiagonal(None), [d, e])
    dt_v = mm(_tridiagonal(td, te, n, d), v)
    dw = real(einsum("...ij,...ij->...j", _conj(v), dt_v))
    rotated = mm(mH(v_all), dt_v)  # (v_iᴴ dT v_j)
    k = w.shape[-1]
    gaps = sub(along_rows(w, n), along_columns(w_all, k))  # w_j − w_all_i
    itself = _is_itself(gaps, 0 if selected is None else selected[0])
    inverse = select(itself, 0, reciprocal(select(itself, 1, gaps)))
    return [dw, mm(v_all, mul(rotated, convert(inverse, v.dtype)))]


def _conj(x: TracedTensor) -> TracedTensor:
    return conj(x) if dt.is_complex(x.dtype) else x


def _is_itself(gaps: TracedTensor, lo: int) -> TracedTensor:
    """True at (lo + j, j): where the selection's eigenpair j sits in the whole spectrum."""
    n, k = gaps.shape[-2:]
    mask = np.arange(n)[:, None] == lo + np.arange(k)[None, :]
    value = apply1("constant", [], value=ConstantValue(mask))
    return apply1(
        "broadcast_in_dim",
        [value],
        shape=gaps.shape,
        broadcast_dimensions=(gaps.ndim - 2, gaps.ndim - 1),
    )


JVP_RULES: dict[type, JvpRule] = {
    Schur: not_differentiable("schur"),
    SchurT: not_differentiable("schur"),
    Hessenberg: not_differentiable("hessenberg"),
    HessenbergH: not_differentiable("hessenberg"),
    Sqrtm: not_differentiable("sqrtm"),
    Parlett: not_differentiable("funm"),
    SolveSylvester: not_differentiable("solve_sylvester"),
    QrMultiply: not_differentiable("qr_multiply"),
    QrPivoted: qr_pivoted_jvp,
    QrPivotedR: pruned,
    EighTridiagonal: eigh_tridiagonal_jvp,
    EigvalshTridiagonal: pruned,
}
