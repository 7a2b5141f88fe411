"""The linalg family ("tf8.linalg.v1"): batched matrix ops with numpy kernels and JVP rules.

Every op acts on the last two axes and batches over the leading ones, as numpy does. JVP rules
emit only ops linear in the tangents (einsum with primal residuals, `Solve` in its right-hand
side, structural primitives), so reverse mode comes from transposing them. Hermitian inputs
(`cholesky`, `eigh`) are read from the lower triangle, as numpy's kernels do, and so are
their tangents. Ops whose outputs are partly unused prune to cheaper ones (`PRUNED`): an SVD
whose U and Vh are dead becomes `svdvals`. A kernel failure on the data (a singular matrix to
`solve`/`inv`, a non-positive-definite one to `cholesky`) raises `tf8.errors.LinAlgError`.
Degenerate spectra (repeated eigen/singular values) make the eigenvector/singular-vector
derivatives infinite (1/(w_j − w_i)), as in JAX; the eigen/singular values stay finite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.ad.lax import add, add_any, compare, convert, mul, neg, real, select, sub
from tf8.errors import DifferentiationError, DTypeError, LinAlgError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.primitive import Aval
from tf8.ops.shapes import Dim, ShapeGuard, dims_equal, shape_str
from tf8.traced import TracedTensor, apply

from .base import ExtensionOp
from .einsum import einsum
from .matrix import (
    along_columns,
    along_rows,
    diag_embed,
    diagonal,
    eye,
    lower_symmetric,
    mH,
    mm,
    mT,
    reciprocal,
    tril,
)


class LinalgOp(ExtensionOp):
    """A linalg op: subclasses set `name`, arities, `out_avals` and `compute`, and a JVP."""

    family = "tf8.linalg.v1"
    inputs = 1
    outputs = 1

    def __init__(self) -> None:
        super().__init__((), self.inputs, self.outputs)

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        for a in avals:
            _check_matrix(self.name, a)
        return self.out_avals(avals, guards)

    def out_avals(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        raise NotImplementedError

    def compute(self, *arrays: np.ndarray) -> Any:
        raise NotImplementedError

    def kernel(self, op: ExtensionOp, *arrays: Any) -> Any:
        try:
            return self.compute(*arrays)
        except np.linalg.LinAlgError as exc:
            raise LinAlgError(f"{self.name}: {exc}") from None


def _check_matrix(name: str, aval: Aval) -> None:
    if aval.ndim < 2:
        raise ShapeError(f"{name}: needs a matrix (at least 2 axes), got {shape_str(aval.shape)}")
    if aval.dtype not in dt.INEXACT:
        raise DTypeError(f"{name}: needs a float or complex matrix, got {aval.dtype}")


def _square(name: str, aval: Aval, guards: list) -> Dim:
    m, n = aval.shape[-2:]
    same = dims_equal(m, n)
    if same is False:
        raise ShapeError(f"{name}: needs square matrices, got shape {shape_str(aval.shape)}")
    if same is None:
        guards.append(ShapeGuard(m, n, f"{name}: square matrices"))
    return n


def _real_aval(shape: tuple, dtype: np.dtype) -> Aval:
    return Aval(tuple(shape), dt.real_dtype(dtype))


def _inv(a: TracedTensor) -> TracedTensor:
    return apply(Inv(), [a])[0]


def _solve(a: TracedTensor, b: TracedTensor) -> TracedTensor:
    return apply(Solve(), [a, b])[0]


# --- square-matrix ops ----------------------------------------------------------------------


class Inv(LinalgOp):
    name = "inv"

    def out_avals(self, avals, guards):
        _square(self.name, avals[0], guards)
        return (avals[0],)

    def compute(self, a):
        return np.linalg.inv(a)

    def jvp(self, op, primals, outputs, tangents):
        (ainv,) = outputs
        return [neg(mm(mm(ainv, tangents[0]), ainv))]  # d(A⁻¹) = −A⁻¹ dA A⁻¹


class Solve(LinalgOp):
    """x = A⁻¹ B for B of shape (..., n, k) with A's batch shape; linear in B."""

    name = "solve"
    inputs = 2

    def out_avals(self, avals, guards):
        a, b = avals
        n = _square(self.name, a, guards)
        if a.dtype != b.dtype:
            raise DTypeError(f"solve: operands must share one dtype, got {a.dtype} and {b.dtype}")
        if len(a.shape) != len(b.shape) or any(
            dims_equal(x, y) is False for x, y in zip((*a.shape[:-2], n), b.shape[:-1])
        ):
            raise ShapeError(
                f"solve: matrix {shape_str(a.shape)} does not fit right-hand side"
                f" {shape_str(b.shape)}"
            )
        return (b,)

    def compute(self, a, b):
        return np.linalg.solve(a, b)

    def jvp(self, op, primals, outputs, tangents):
        (a, _), (x,), (ta, tb) = primals, outputs, tangents
        rhs = add_any(tb, None if ta is None else neg(mm(ta, x)))
        return [_solve(a, rhs)]  # dx = A⁻¹ (dB − dA x)

    def transpose(self, op, operands, linear, ct):
        if linear[0]:
            raise TypeError("solve is linear in its right-hand side only")
        return [None, _solve(mT(operands[0]), ct)]  # bilinear convention: A⁻ᵀ, no conjugate


class Det(LinalgOp):
    name = "det"

    def out_avals(self, avals, guards):
        _square(self.name, avals[0], guards)
        return (Aval(avals[0].shape[:-2], avals[0].dtype),)

    def compute(self, a):
        return np.asarray(np.linalg.det(a))

    def jvp(self, op, primals, outputs, tangents):
        # d det = det · tr(A⁻¹ dA); needs A invertible (a singular A raises LinAlgError).
        return [mul(outputs[0], _trace_inv_times(primals[0], tangents[0]))]


def _trace_inv_times(a: TracedTensor, t: TracedTensor) -> TracedTensor:
    return einsum("...ij,...ji->...", _inv(a), t)


class Slogdet(LinalgOp):
    """(sign, log|det|); with the sign unused it prunes to `LogAbsDet`."""

    name = "slogdet"
    outputs = 2

    def out_avals(self, avals, guards):
        _square(self.name, avals[0], guards)
        batch = avals[0].shape[:-2]
        return (Aval(batch, avals[0].dtype), _real_aval(batch, avals[0].dtype))

    def compute(self, a):
        sign, logabsdet = np.linalg.slogdet(a)
        return np.asarray(sign), np.asarray(logabsdet)

    def jvp(self, op, primals, outputs, tangents):
        trace = _trace_inv_times(primals[0], tangents[0])  # d log det = tr(A⁻¹ dA)
        if not dt.is_complex(trace.dtype):
            return [None, trace]
        imaginary = sub(trace, convert(real(trace), trace.dtype))
        return [mul(outputs[0], imaginary), real(trace)]

    def prune_outputs(self, live):
        return LogAbsDet() if live == (False, True) else None


class Cholesky(LinalgOp):
    name = "cholesky"

    def out_avals(self, avals, guards):
        _square(self.name, avals[0], guards)
        return (avals[0],)

    def compute(self, a):
        return np.linalg.cholesky(a)

    def jvp(self, op, primals, outputs, tangents):
        # dL = L Φ(L⁻¹ dA L⁻ᴴ), Φ = lower triangle with the diagonal halved.
        (chol,) = outputs
        left = _solve(chol, lower_symmetric(tangents[0]))
        middle = mH(_solve(chol, mH(left)))
        phi = add(tril(middle, -1), mul(diag_embed(diagonal(middle)), 0.5))
        return [mm(chol, phi)]


# --- decompositions -------------------------------------------------------------------------


def _reciprocal_gaps(values: TracedTensor, squared: bool = False) -> TracedTensor:
    """F_ij = 1/(v_j − v_i) (or 1/(v_j² − v_i²)) off the diagonal, 0 on it."""
    if squared:
        values = mul(values, values)
    k = values.shape[-1]
    gaps = sub(along_rows(values, k), along_columns(values, k))
    identity = eye(gaps)
    return sub(reciprocal(add(gaps, identity)), identity)


class Eigh(LinalgOp):
    """(eigenvalues ascending, eigenvectors) of a Hermitian matrix read from its lower triangle."""

    name = "eigh"
    outputs = 2

    def out_avals(self, avals, guards):
        n = _square(self.name, avals[0], guards)
        return (_real_aval((*avals[0].shape[:-2], n), avals[0].dtype), avals[0])

    def compute(self, a):
        w, v = np.linalg.eigh(a)
        return w, v

    def jvp(self, op, primals, outputs, tangents):
        w, v = outputs
        rotated = mm(mH(v), mm(lower_symmetric(tangents[0]), v))  # M = Vᴴ dA V
        gaps = convert(_reciprocal_gaps(w), v.dtype)
        return [real(diagonal(rotated)), mm(v, mul(rotated, gaps))]  # dw, dV = V (F ∘ M)

    def prune_outputs(self, live):
        return Eigvalsh() if live == (True, False) else None


class Svd(LinalgOp):
    """Reduced SVD (U, s, Vh), numpy's order; with U and Vh unused it prunes to `Svdvals`."""

    name = "svd"
    outputs = 3

    def out_avals(self, avals, guards):
        a = avals[0]
        *batch, m, n = a.shape
        k = min(m, n) if isinstance(m, int) and isinstance(n, int) else _concrete_min(m, n)
        return (
            Aval((*batch, m, k), a.dtype),
            _real_aval((*batch, k), a.dtype),
            Aval((*batch, k, n), a.dtype),
        )

    def compute(self, a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        return u, s, vh

    def jvp(self, op, primals, outputs, tangents):
        # JAX's svd_jvp_rule (reduced SVD).
        (a,), (u, s, vh), (ta,) = primals, outputs, tangents
        v = mH(vh)
        *_, m, n = a.shape
        k = s.shape[-1]
        d_s = mm(mH(u), mm(ta, v))  # dS = Uᴴ dA V
        ds = real(diagonal(d_s))
        f = convert(_reciprocal_gaps(s, squared=True), a.dtype)
        s_row = convert(along_rows(s, k), a.dtype)  # s_j
        s_col = convert(along_columns(s, k), a.dtype)  # s_i
        dss, sds = mul(d_s, s_row), mul(d_s, s_col)
        s_inv = convert(_safe_reciprocal(s), a.dtype)
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

    def prune_outputs(self, live):
        return Svdvals() if live == (False, True, False) else None


def _concrete_min(m: Dim, n: Dim) -> Dim:
    if dims_equal(m, n):
        return m
    raise ShapeError(f"svd: needs concrete or equal matrix sizes, got {m} x {n}")


def _safe_reciprocal(s: TracedTensor) -> TracedTensor:
    """1/s where s ≠ 0, else 0 (zero singular values contribute nothing)."""
    zero = compare(s, 0, "eq")
    return select(zero, 0, reciprocal(select(zero, 1, s)))


class Qr(LinalgOp):
    """Reduced QR (Q, R); with Q unused it prunes to `QrR`."""

    name = "qr"
    outputs = 2

    def out_avals(self, avals, guards):
        a = avals[0]
        *batch, m, n = a.shape
        k = min(m, n) if isinstance(m, int) and isinstance(n, int) else _concrete_min(m, n)
        return Aval((*batch, m, k), a.dtype), Aval((*batch, k, n), a.dtype)

    def compute(self, a):
        q, r = np.linalg.qr(a)
        return q, r

    def jvp(self, op, primals, outputs, tangents):
        # JAX's qr_jvp_rule (j-towns.github.io/papers/qr-derivative.pdf); needs m >= n.
        (a,), (q, r), (ta,) = primals, outputs, tangents
        *_, m, n = a.shape
        if not (isinstance(m, int) and isinstance(n, int)) or m < n:
            raise DifferentiationError(f"qr: derivative needs rows >= columns, got {m} x {n}")
        dx_rinv = mT(_solve(mT(r), mT(ta)))  # dA R⁻¹
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


# --- pruned forms: the same JVP, a cheaper kernel -------------------------------------------


class _Pruned(LinalgOp):
    """The live outputs of `full`; its JVP is the full op's, on recomputed full outputs."""

    full: type[LinalgOp]
    live: tuple[bool, ...]

    def out_avals(self, avals, guards):
        outs = self.full().out_avals(avals, guards)
        return tuple(o for o, alive in zip(outs, self.live) if alive)

    def jvp(self, op, primals, outputs, tangents):
        full = self.full()
        ts = full.jvp(full, primals, apply(full, list(primals)), tangents)
        return [t for t, alive in zip(ts, self.live) if alive]


class LogAbsDet(_Pruned):
    name, full, live = "logabsdet", Slogdet, (False, True)

    def compute(self, a):
        return np.asarray(np.linalg.slogdet(a)[1])

    def jvp(self, op, primals, outputs, tangents):
        return [real(_trace_inv_times(primals[0], tangents[0]))]


class Eigvalsh(_Pruned):
    name, full, live = "eigvalsh", Eigh, (True, False)

    def compute(self, a):
        return np.linalg.eigvalsh(a)


class Svdvals(_Pruned):
    name, full, live = "svdvals", Svd, (False, True, False)

    def compute(self, a):
        return np.linalg.svd(a, compute_uv=False)


class QrR(_Pruned):
    name, full, live = "qr_r", Qr, (False, True)

    def compute(self, a):
        return np.linalg.qr(a, mode="r")


__all__ = [
    "Cholesky",
    "Det",
    "Eigh",
    "Eigvalsh",
    "Inv",
    "LinalgOp",
    "LogAbsDet",
    "Qr",
    "QrR",
    "Slogdet",
    "Solve",
    "Svd",
    "Svdvals",
]
