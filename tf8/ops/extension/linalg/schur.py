"""scipy.linalg's other decompositions and matrix functions (kernels from scipy/LAPACK).

- `Schur`: A ↦ (T, Z), A = Z T Zᴴ (LAPACK's gees): T quasi-upper triangular (real Schur
  form) for a real A, upper triangular for a complex one; with Z unused, `SchurT`.
- `Hessenberg`: A ↦ (H, Q), A = Q H Qᴴ (gehrd, orghr); with Q unused, `HessenbergH`.
- `Sqrtm`: the principal square root, by JAX's algorithm (a complex Schur form,
  then the upper-triangular recurrence), complex.
- `Parlett`: (T, f) ↦ (F, minden): the upper-triangular F = f(T) from T upper triangular and
  the values f takes on its diagonal (Parlett's recurrence, Golub & Van Loan 11.1.1), and the
  smallest |T_jj − T_ii| it divided by (for `funm`'s error estimate).
- `SolveSylvester(tol)`: (A, B, C) ↦ X with A X + X B = C (Bartels–Stewart); NaN where some
  |λ_A + λ_B| < tol, as JAX's.
- `QrPivoted(full)`: A ↦ (Q, R, P) with A[:, P] = Q R (geqp3), P int32; with Q unused,
  `QrPivotedR`. `full` gives Q (m, m) and R (m, n), else Q (m, k) and R (k, n).
- `QrMultiply(mode, pivoting, conjugate)`: (A, C) ↦ (C Q or Q C, R[, P]) as
  `jax.scipy.linalg.qr_multiply`.

None of these is differentiated (JAX's neither), except `QrPivoted`, through `qr`'s rules
with the columns permuted (`tf8.ad.families.linalg_scipy`).
"""

from __future__ import annotations

from tf8.errors import ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.shapes import shape_str

from ..base import ExtensionOp
from .base import LinalgOp, Pruned, check_matrix, concrete_min, same_dtype, square


class Schur(LinalgOp):
    name = "schur"
    outputs = 2

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        return (avals[0], avals[0])

    def prune_outputs(self, live):
        return SchurT() if live == (True, False) else None


class SchurT(Pruned):
    name, full, live = "schur_t", Schur, (True, False)


class Hessenberg(LinalgOp):
    name = "hessenberg"
    outputs = 2

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        return (avals[0], avals[0])

    def prune_outputs(self, live):
        return HessenbergH() if live == (True, False) else None


class HessenbergH(Pruned):
    name, full, live = "hessenberg_h", Hessenberg, (True, False)


class Sqrtm(LinalgOp):
    name = "sqrtm"

    def out_avals(self, avals, guards):
        square(self.name, avals[0], guards)
        return (Aval(avals[0].shape, dt.complex_dtype(avals[0].dtype)),)


class Parlett(LinalgOp):
    """(F, minden) from T (..., n, n) upper triangular and f (..., n) the function on its
    diagonal."""

    name = "parlett"
    inputs = 2
    outputs = 2

    def infer(self, avals, guards):
        t, f = avals
        check_matrix(self.name, t)
        n = square(self.name, t, guards)
        if f.shape != (*t.shape[:-2], n) or f.dtype != t.dtype:
            raise ShapeError(
                f"funm: func must keep the diagonal's shape {shape_str((*t.shape[:-2], n))} "
                f"and dtype {t.dtype}, got {f}"
            )
        return (t, Aval(t.shape[:-2], dt.real_dtype(t.dtype)))


class SolveSylvester(LinalgOp):
    """X with A X + X B = C for A (..., m, m), B (..., n, n), C (..., m, n); payload (tol,)."""

    name = "solve_sylvester"
    inputs = 3

    def __init__(self, tol: float) -> None:
        super().__init__(float(tol))

    def out_avals(self, avals, guards):
        a, b, c = avals
        same_dtype(self.name, a, c)
        same_dtype(self.name, b, c)
        m, n = square(self.name, a, guards), square(self.name, b, guards)
        if c.shape[-2:] != (m, n) or not (a.shape[:-2] == b.shape[:-2] == c.shape[:-2]):
            raise ShapeError(
                f"solve_sylvester: incompatible shapes A {shape_str(a.shape)}, "
                f"B {shape_str(b.shape)}, C {shape_str(c.shape)}"
            )
        return (c,)


class QrPivoted(LinalgOp):
    """(Q, R, P), A[:, P] = Q R; payload (full,)."""

    name = "qr_pivoted"
    outputs = 3

    def __init__(self, full: bool) -> None:
        super().__init__(bool(full))

    def out_avals(self, avals, guards):
        a = avals[0]
        *batch, m, n = a.shape
        k = m if self.payload[0] else concrete_min(self.name, m, n)
        return (
            Aval((*batch, m, k), a.dtype),
            Aval((*batch, k, n), a.dtype),
            Aval((*batch, n), dt.int32),
        )

    def prune_outputs(self, live):
        return None if live[0] else QrPivotedR(self.payload[0], live[2])


class QrPivotedR(Pruned):
    """R, and P if `with_permutation`, of `QrPivoted(full)` (the kernel computes no Q)."""

    name, full = "qr_pivoted_r", QrPivoted

    def __init__(self, full: bool, with_permutation: bool) -> None:
        payload = (bool(full), bool(with_permutation))
        ExtensionOp.__init__(self, payload, 1, 1 + payload[1])

    @property
    def live(self) -> tuple[bool, ...]:  # type: ignore[override]
        return (False, True, self.payload[1])

    def full_op(self) -> LinalgOp:
        return QrPivoted(self.payload[0])


class QrMultiply(LinalgOp):
    """(C Q or Q C, R[, P]); payload (mode, pivoting, conjugate), mode 'left' or 'right'."""

    name = "qr_multiply"
    inputs = 2

    def __init__(self, mode: str, pivoting: bool, conjugate: bool) -> None:
        payload = (mode, bool(pivoting), bool(conjugate))
        ExtensionOp.__init__(self, payload, 2, 3 if pivoting else 2)

    def out_avals(self, avals, guards):
        a, c = avals
        same_dtype(self.name, a, c)
        *batch, m, n = a.shape
        k = concrete_min(self.name, m, n)
        mode = self.payload[0]
        if mode == "left":
            product = Aval((*batch, m, c.shape[-1]), a.dtype)
        else:
            product = Aval((*batch, c.shape[-2], k), a.dtype)
        outs = (product, Aval((*batch, k, n), a.dtype))
        return (*outs, Aval((*batch, n), dt.int32)) if self.payload[1] else outs


class EighTridiagonal(LinalgOp):
    """(w, v) of the Hermitian tridiagonal matrix with diagonal d (n,) and superdiagonal e
    (n − 1,) (subdiagonal conj(e)); payload (select_range,): None for every eigenvalue, or
    (lo, hi) for those of indices lo..hi. With v unused, `EigvalshTridiagonal`."""

    name = "eigh_tridiagonal"
    inputs = 2
    outputs = 2

    def __init__(self, select_range: tuple[int, int] | None) -> None:
        super().__init__(None if select_range is None else tuple(int(i) for i in select_range))

    def infer(self, avals, guards):
        d, e = avals
        if d.ndim < 1 or e.shape != (*d.shape[:-1], max(d.shape[-1] - 1, 0)):
            raise ShapeError(
                f"eigh_tridiagonal: e must be one shorter than d, got d {shape_str(d.shape)} "
                f"and e {shape_str(e.shape)}"
            )
        n = d.shape[-1]
        (selected,) = self.payload
        k = n if selected is None else selected[1] - selected[0] + 1
        batch = d.shape[:-1]
        return (Aval((*batch, k), dt.real_dtype(d.dtype)), Aval((*batch, n, k), d.dtype))

    def prune_outputs(self, live):
        return EigvalshTridiagonal(*self.payload) if live == (True, False) else None


class EigvalshTridiagonal(Pruned):
    name, full, live = "eigvalsh_tridiagonal", EighTridiagonal, (True, False)
    inputs = 2

    def infer(self, avals, guards):
        return self.full_op().infer(avals, guards)[:1]


__all__ = [
    "EighTridiagonal",
    "EigvalshTridiagonal",
    "Hessenberg",
    "HessenbergH",
    "Parlett",
    "QrMultiply",
    "QrPivoted",
    "QrPivotedR",
    "Schur",
    "SchurT",
    "SolveSylvester",
    "Sqrtm",
]
