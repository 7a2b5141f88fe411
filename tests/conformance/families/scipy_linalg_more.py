"""The rest of `jax.scipy.linalg` (issue #34): LU and Cholesky factorisations and solves,
`solve`, the special matrices, schur, rsf2csf, hessenberg, qr, qr_multiply, polar, sqrtm,
funm, solve_sylvester, eigh_tridiagonal, and JAX's signatures of the basic functions.

Functions that take the factors as a pair (lu_solve, cho_solve) or a function (funm) are
programs. Eigenvectors JAX computes from a random start (eigh_tridiagonal) keep the values
alone. No derivatives are recorded where JAX's differ from the function's (tests/ checks
tf8's against central differences instead):
- polar's 'qdwh' (JAX's reverse mode raises in its while loop; tf8 differentiates the SVD
  route) and eigh_tridiagonal (JAX's forward mode differentiates its bisection bounds, its
  reverse mode raises; tf8's is perturbation theory);
- cho_factor: one triangle is read, and tf8's gradient lies in it (the `scipy.linalg.cholesky`
  row of kept/linalg_random.py);
- lu and lu_factor of a singular matrix: the derivative needs U⁻¹, and tf8's triangular solve
  raises LinAlgError on a singular factor (the `scipy.linalg.[ics]*` row);
- pivoted qr of a wide or batched matrix: JAX's rule takes R₂'s derivative from the
  unpermuted columns (and indexes a batch of permutations as one), so its values disagree
  with central differences; tf8 permutes both;
- rsf2csf: first-order derivatives agreed with JAX's when recorded; JAX's second order raises
  (its eig JVP is not differentiable: the `numpy.linalg.eigvals` row)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import scipy.linalg

from ..spec import Case, Static, program
from ._values import finite

PREFIX = "scipy.linalg."


@program("scipy.linalg.lu_solve[pair]")
def _lu_solve(root):
    return lambda lu, piv, b, **kw: root.scipy.linalg.lu_solve((lu, piv), b, **kw)


@program("scipy.linalg.cho_solve[pair]")
def _cho_solve(root):
    def solve(c, b, lower=False, **kw):
        return root.scipy.linalg.cho_solve((c, lower), b, **kw)

    return solve


@program("scipy.linalg.cho_factor[c]")
def _cho_factor(root):
    return lambda a, **kw: root.scipy.linalg.cho_factor(a, **kw)[0]


@program("scipy.linalg.funm[sin]")
def _funm_sin(root):
    return lambda a, **kw: root.scipy.linalg.funm(a, root.numpy.sin, **kw)


@program("scipy.linalg.funm[exp]")
def _funm_exp(root):
    return lambda a, **kw: root.scipy.linalg.funm(a, root.numpy.exp, **kw)


def _spd(rng: np.random.Generator, *shape: int) -> np.ndarray:
    m = rng.normal(size=shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def _lu(rng: np.random.Generator) -> Iterator[Case]:
    for shape in ((3, 3), (4, 3), (3, 4)):
        yield Case(PREFIX + "lu_factor", (rng.normal(size=shape),))
        yield Case(PREFIX + "lu", (rng.normal(size=shape),))
        yield Case(PREFIX + "lu", (rng.normal(size=shape),), {"permute_l": True})
    a = rng.normal(size=(3, 3))
    complex_a = a + 1j * rng.normal(size=(3, 3))
    for name in ("lu_factor", "lu"):
        yield Case(PREFIX + name, (a.astype(np.float32),))
        yield Case(PREFIX + name, (complex_a,))
        yield Case(PREFIX + name, (np.array([[1, 2], [3, 4]]),))  # ints
        singular = np.array([[1.0, 2.0], [2.0, 4.0]])
        yield Case(PREFIX + name, (singular,), derivatives=False)
        yield Case(PREFIX + name, (np.zeros((0, 0)),))
        yield Case(PREFIX + name, (np.array([1.0, 2.0]),))  # refused: 1-d
    yield Case(PREFIX + "lu_factor", (rng.normal(size=(2, 3, 3)),))  # batched
    yield Case(PREFIX + "lu", (rng.normal(size=(2, 3, 3)),))  # refused: JAX's takes one
    yield Case(PREFIX + "lu", (complex_a,), {"permute_l": True})

    name = "scipy.linalg.lu_solve[pair]"
    a = rng.normal(size=(3, 3)) + 2 * np.eye(3)
    lu, piv = scipy.linalg.lu_factor(a)
    piv = piv.astype(np.int32)
    b, v = rng.normal(size=(3, 2)), rng.normal(size=3)
    for trans in (0, 1, 2):
        yield Case(name, (lu, piv, b), {"trans": trans})
        yield Case(name, (lu, piv, v), {"trans": trans})
    yield Case(name, (lu.astype(np.float32), piv, b.astype(np.float32)))
    yield Case(name, (lu, piv, b.astype(np.float32)))
    yield Case(name, (lu, piv, np.array([1, 2, 3])))  # int b
    batch_a = rng.normal(size=(2, 3, 3)) + 2 * np.eye(3)
    factors = [scipy.linalg.lu_factor(x) for x in batch_a]
    batch_lu = np.stack([f[0] for f in factors])
    batch_piv = np.stack([f[1] for f in factors]).astype(np.int32)
    yield Case(name, (batch_lu, batch_piv, v))  # one vector, batched factors
    yield Case(name, (batch_lu, batch_piv, rng.normal(size=(2, 3, 2))))
    yield Case(name, (lu, piv, rng.normal(size=(2, 3, 2))))  # batched b, one factor
    yield Case(name, (batch_lu, batch_piv, rng.normal(size=(2, 3))))  # deprecated: vectors
    c_lu, c_piv = scipy.linalg.lu_factor(a + 1j * rng.normal(size=(3, 3)))
    for trans in (0, 1, 2):
        yield Case(name, (c_lu, c_piv.astype(np.int32), b + 0.5j), {"trans": trans})
    yield Case(name, (lu, piv, np.zeros((3, 0))))
    yield Case(name, (lu, piv, b), {"trans": 3})  # refused
    yield Case(name, (lu, piv, b[:2]))  # refused: mismatched sizes
    yield Case(name, (lu[:2], piv, b))  # refused: not square


def _cholesky(rng: np.random.Generator) -> Iterator[Case]:
    a = _spd(rng, 3, 3)
    for lower in (False, True):
        yield Case("scipy.linalg.cho_factor[c]", (a,), {"lower": lower}, derivatives=False)
    yield Case("scipy.linalg.cho_factor[c]", (_spd(rng, 2, 3, 3),), derivatives=False)
    name = "scipy.linalg.cho_solve[pair]"
    b, v = rng.normal(size=(3, 2)), rng.normal(size=3)
    for lower in (False, True):
        c = scipy.linalg.cholesky(a, lower=lower)
        yield Case(name, (c, b), {"lower": lower})
        yield Case(name, (c, v), {"lower": lower})
        yield Case(name, (c + np.triu(np.ones((3, 3)), 1).T * (not lower), v), {"lower": lower})
    m = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    hermitian = m @ m.conj().T + 3 * np.eye(3)
    for lower in (False, True):
        c = scipy.linalg.cholesky(hermitian, lower=lower)
        yield Case(name, (c, b + 1j * v[:, None]), {"lower": lower})
    c = scipy.linalg.cholesky(a)
    yield Case(name, (c.astype(np.float32), b.astype(np.float32)))
    batch = np.stack([scipy.linalg.cholesky(x) for x in _spd(rng, 2, 3, 3)])
    yield Case(name, (batch, v))
    yield Case(name, (batch, rng.normal(size=(2, 3, 2))))
    yield Case(name, (batch, rng.normal(size=(2, 3))))  # deprecated: vectors
    yield Case(name, (c, b[:2]))  # refused


def _solve(rng: np.random.Generator) -> Iterator[Case]:
    name = PREFIX + "solve"
    a, general = _spd(rng, 3, 3), rng.normal(size=(3, 3)) + 2 * np.eye(3)
    b, v = rng.normal(size=(3, 2)), rng.normal(size=3)
    for assume in ("gen", "sym", "her", "pos"):
        yield Case(name, (a, b), {"assume_a": assume})
        yield Case(name, (a, v), {"assume_a": assume})
    yield Case(name, (general, b))
    yield Case(name, (a, b), {"assume_a": "pos", "lower": True})
    yield Case(name, (a.astype(np.float32), v.astype(np.float32)), {"assume_a": "pos"})
    yield Case(name, (_spd(rng, 2, 3, 3), rng.normal(size=(2, 3))), {"assume_a": "pos"})
    yield Case(name, (_spd(rng, 2, 3, 3), rng.normal(size=(2, 3, 2))), {"assume_a": "pos"})
    m = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    yield Case(name, (m @ m.conj().T + 3 * np.eye(3), v + 1j), {"assume_a": "pos"})
    yield Case(name, (a, b), {"assume_a": "banded"})  # refused
    yield Case(name, (a, b[:2]), {"assume_a": "pos"})  # refused


def _special(rng: np.random.Generator) -> Iterator[Case]:
    c, r = rng.normal(size=4), rng.normal(size=3)
    for fn in ("toeplitz", "hankel"):
        name = PREFIX + fn
        yield Case(name, (c,))
        yield Case(name, (c, r))
        yield Case(name, (np.array([1, 2, 3]), np.array([1, 5])))  # ints
        yield Case(name, (c + 1j * r.sum(),))
        yield Case(name, (rng.normal(size=(2, 4)), r))  # batched
        yield Case(name, (np.zeros(0), r))
    yield Case(PREFIX + "hankel", (np.array(1.0),))  # refused: a scalar
    yield Case(PREFIX + "toeplitz", (np.array(2.0),))  # a scalar is one entry
    for fn in ("circulant", "fiedler", "companion", "fiedler_companion"):
        name = PREFIX + fn
        yield Case(name, (c,))
        yield Case(name, (np.array([2, -3, 1]),))  # ints
        yield Case(name, (rng.normal(size=(2, 3)),))  # batched
        yield Case(name, (c.astype(np.float32),))
    for k in (1, 2, 3, 5, 6):
        yield Case(PREFIX + "fiedler_companion", (rng.normal(size=k) + 2,))
    yield Case(PREFIX + "companion", (np.array([1.0]),))  # refused: too short
    yield Case(PREFIX + "fiedler_companion", (np.zeros(0),))  # refused: empty
    name = PREFIX + "leslie"
    yield Case(name, (c, r))
    yield Case(name, (np.array([1, 2]), np.array([0.5])))
    yield Case(name, (rng.normal(size=(2, 4)), r))  # batched
    yield Case(name, (c, c))  # refused: s too long
    name = PREFIX + "convolution_matrix"
    for n in (1, 2, 5):
        for mode in ("full", "valid", "same"):
            yield Case(name, (c, Static(n)), {"mode": mode})
    yield Case(name, (np.array([1, 2, 3]), Static(4)))
    yield Case(name, (rng.normal(size=(2, 3)), Static(3)))
    yield Case(name, (c, Static(0)))  # refused
    yield Case(name, (c, Static(2)), {"mode": "middle"})  # refused
    for n in (1, 3, 5):
        yield Case(PREFIX + "hilbert", (Static(n),))
        yield Case(PREFIX + "invhilbert", (Static(n),))
        yield Case(PREFIX + "helmert", (Static(n),))
        yield Case(PREFIX + "helmert", (Static(n),), {"full": True})
        yield Case(PREFIX + "dft", (Static(n),))
        for kind in (None, "symmetric", "lower", "upper"):
            yield Case(PREFIX + "pascal", (Static(n),), {"kind": kind})
            yield Case(PREFIX + "invpascal", (Static(n),), {"kind": kind})
    yield Case(PREFIX + "pascal", (Static(3),), {"kind": "diagonal"})  # refused
    for scale in ("sqrtn", "n"):
        yield Case(PREFIX + "dft", (Static(4),), {"scale": scale})
    yield Case(PREFIX + "dft", (Static(3),), {"dtype": "complex64"})
    yield Case(PREFIX + "dft", (Static(3),), {"dtype": "float64"})  # refused
    yield Case(PREFIX + "dft", (Static(3),), {"scale": "half"})  # refused
    for n in (1, 2, 8):
        yield Case(PREFIX + "hadamard", (Static(n),))
    yield Case(PREFIX + "hadamard", (Static(4),), {"dtype": "float32"})
    yield Case(PREFIX + "hadamard", (Static(3),))  # refused
    yield Case(PREFIX + "helmert", (Static(0),))  # refused
    name = PREFIX + "block_diag"
    yield Case(name, (rng.normal(size=(2, 2)), rng.normal(size=3)))
    yield Case(name, (np.array([[1, 2]]), np.array(3)))
    yield Case(name, (rng.normal(size=(2, 3)), np.ones((1, 2), np.float32), np.array(2.0)))
    yield Case(name, (rng.normal(size=(1, 0)), rng.normal(size=(2, 2))))
    yield Case(name, ())
    yield Case(name, (rng.normal(size=(2, 2, 2)),))  # refused


def _decompositions(rng: np.random.Generator) -> Iterator[Case]:
    a = rng.normal(size=(4, 4))
    complex_a = a + 1j * rng.normal(size=(4, 4))
    name = PREFIX + "schur"
    for output in ("real", "complex"):
        yield Case(name, (a,), {"output": output})
        yield Case(name, (complex_a,), {"output": output})
        yield Case(name, (rng.normal(size=(2, 3, 3)),), {"output": output})
    yield Case(name, (a.astype(np.float32),))
    yield Case(name, (np.array([[2.0]]),))
    yield Case(name, (a,), {"output": "other"})  # refused
    yield Case(name, (a[:3],))  # refused
    name = PREFIX + "rsf2csf"
    rotation = np.array([[1.0, 2.0, 0.5], [-3.0, 1.0, 0.2], [0.0, 0.0, 2.0]])
    for x in (a, rng.normal(size=(3, 3)), rotation):
        t, z = scipy.linalg.schur(x)
        yield Case(name, (t, z), derivatives=False)  # JAX's second order raises: see above
    t, z = scipy.linalg.schur(a)
    yield Case(name, (t, np.eye(4)), derivatives=False)
    yield Case(name, (np.array([[2.0]]), np.array([[1.0]])))
    ts = [scipy.linalg.schur(x) for x in rng.normal(size=(2, 3, 3))]
    batch = (np.stack([p[0] for p in ts]), np.stack([p[1] for p in ts]))
    yield Case(name, batch, derivatives=False)
    yield Case(name, (t, z[:3, :3]))  # refused
    name = PREFIX + "hessenberg"
    for keywords in ({}, {"calc_q": True}):
        yield Case(name, (a,), keywords)
        yield Case(name, (complex_a,), keywords)
        yield Case(name, (rng.normal(size=(2, 3, 3)),), keywords)
        yield Case(name, (np.zeros((0, 0)),), keywords)
    yield Case(name, (np.array([[2.0]]),), {"calc_q": True})
    yield Case(name, (a.astype(np.float32),))
    name = PREFIX + "qr"
    for shape in ((4, 3), (3, 4), (3, 3)):
        x = rng.normal(size=shape)
        for mode in ("full", "economic", "r"):
            for pivoting in (False, True):
                d = not (pivoting and shape[0] < shape[1])  # JAX's rule: see above
                yield Case(name, (x,), {"mode": mode, "pivoting": pivoting}, derivatives=d)
    yield Case(name, (complex_a[:, :3],), {"mode": "economic", "pivoting": True})
    yield Case(name, (complex_a[:3],))
    yield Case(name, (rng.normal(size=(2, 4, 3)),), {"pivoting": True}, derivatives=False)
    yield Case(name, (a.astype(np.float32),), {"mode": "r"})
    yield Case(name, (a,), {"mode": "raw"})  # refused
    name = PREFIX + "qr_multiply"
    for shape in ((4, 3), (3, 4)):
        x = rng.normal(size=shape)
        m, k = shape[0], min(shape)
        for conjugate in (False, True):
            yield Case(name, (x, rng.normal(size=(2, m))), {"conjugate": conjugate})
            yield Case(name, (x, rng.normal(size=(k, 2))), {"mode": "left", "conjugate": conjugate})
        yield Case(name, (x, rng.normal(size=m)))
        yield Case(name, (x, rng.normal(size=k)), {"mode": "left"})
        yield Case(name, (x, rng.normal(size=(2, m))), {"pivoting": True})
    yield Case(name, (complex_a, complex_a[:2]), {"conjugate": True})
    yield Case(name, (a, a[:2].T), {"mode": "middle"})  # refused
    yield Case(name, (a, rng.normal(size=(2, 3))))  # refused: mismatched


def _polar(rng: np.random.Generator) -> Iterator[Case]:
    name = PREFIX + "polar"
    tall, wide = rng.normal(size=(4, 3)), rng.normal(size=(3, 4))
    for method in ("qdwh", "svd"):
        d = method == "svd"  # qdwh: JAX's reverse mode raises (a while loop)
        yield Case(name, (tall,), {"method": method}, derivatives=d)
        yield Case(name, (wide,), {"side": "left", "method": method}, derivatives=d)
        yield Case(name, (rng.normal(size=(3, 3)),), {"method": method}, derivatives=d)
        yield Case(name, (rng.normal(size=(2, 3, 3)),), {"method": method}, derivatives=d)
    yield Case(name, (wide,), {"method": "svd"})
    yield Case(name, (tall,), {"side": "left", "method": "svd"})
    yield Case(name, (tall + 1j * tall[::-1],), {"method": "svd"})
    yield Case(name, (wide,))  # refused: qdwh takes m >= n on the right
    yield Case(name, (tall,), {"side": "up"})  # refused


def _functions(rng: np.random.Generator) -> Iterator[Case]:
    a = rng.normal(size=(3, 3))
    spd = _spd(rng, 3, 3)
    name = PREFIX + "sqrtm"
    yield Case(name, (spd,))
    yield Case(name, (a,))
    yield Case(name, (a + 1j * spd,))
    yield Case(name, (spd.astype(np.float32),))
    yield Case(name, (np.array([[4, 0], [0, 9]]),))
    yield Case(name, (np.array([[0.0, 1.0], [0.0, 0.0]]),))  # nilpotent: no root
    yield Case(name, (spd,), {"blocksize": 2})  # refused
    yield Case(name, (_spd(rng, 2, 3, 3),))  # refused: JAX's takes one matrix
    for fn in ("sin", "exp"):
        name = f"scipy.linalg.funm[{fn}]"
        yield Case(name, (a,))
        yield Case(name, (spd,), {"disp": False})
        yield Case(name, (a + 1j * spd,))
        yield Case(name, (np.diag([1.0, 2.0, 3.0]),))
    yield Case("scipy.linalg.funm[sin]", (a[:2],))  # refused
    name = PREFIX + "solve_sylvester"
    b, c = _spd(rng, 2, 2), rng.normal(size=(3, 2))
    yield Case(name, (spd, b, c))
    yield Case(name, (a, b, c))
    yield Case(name, (spd, b, c), {"method": "eigen"})
    yield Case(name, (spd + 1j * a, b, c))
    yield Case(name, (spd.astype(np.float32), b.astype(np.float32), c.astype(np.float32)))
    yield Case(name, (_spd(rng, 2, 3, 3), b, rng.normal(size=(2, 3, 2))))
    yield Case(name, (np.eye(2), -np.eye(2), np.ones((2, 2))))  # singular: NaN
    yield Case(name, (spd, b, c), {"tol": 1e3})  # every pair counts as singular
    yield Case(name, (spd, b, c.T))  # refused
    yield Case(name, (spd, b, c), {"method": "qr"})  # refused
    name = PREFIX + "eigh_tridiagonal"
    d, e = rng.normal(size=5), rng.normal(size=4)
    values = (0,)  # JAX's eigenvectors start from random vectors: signs differ
    yield Case(name, (d, e), {"eigvals_only": True}, derivatives=False)
    yield Case(name, (d, e), select=values, derivatives=False)
    sub = {"eigvals_only": True, "select": "i", "select_range": (1, 3)}
    yield Case(name, (d, e), sub, derivatives=False)
    low = (d.astype(np.float32), e.astype(np.float32))
    yield Case(name, low, {"eigvals_only": True}, derivatives=False)
    yield Case(name, (d + 0j, e + 1j * e[::-1]), {"eigvals_only": True}, derivatives=False)
    yield Case(name, (np.array([2.0]), np.zeros(0)), derivatives=False)
    yield Case(name, (d, e.astype(np.float32)), {"eigvals_only": True})  # refused
    yield Case(name, (d, e), {"select": "v", "select_range": (0.0, 1.0)})  # refused
    yield Case(name, (np.array([1, 2]), np.array([1])), {"eigvals_only": True})  # refused


def _signatures(rng: np.random.Generator) -> Iterator[Case]:
    """JAX's signatures of the functions the `scipy_linalg` family records."""
    a, spd = rng.normal(size=(3, 3)) + 2 * np.eye(3), _spd(rng, 3, 3)
    yield Case(PREFIX + "det", (a,), {"overwrite_a": False, "check_finite": False})
    yield Case(PREFIX + "inv", (a,), {"check_finite": False})
    yield Case(PREFIX + "svd", (a,), {"compute_uv": False, "lapack_driver": "gesvd"})
    yield Case(PREFIX + "eigh", (spd, Static(None)), {"eigvals_only": True})
    yield Case(PREFIX + "eigh", (spd, spd))  # refused: b is not supported
    yield Case(PREFIX + "expm_frechet", (0.1 * a, spd), {"method": "SPS"})
    batch = rng.normal(size=(2, 3, 3)) + 3 * np.eye(3)
    yield Case(PREFIX + "solve_triangular", (batch, rng.normal(size=(2, 3))))  # deprecated


def _all() -> Iterator[Case]:
    yield from _lu(np.random.default_rng(40))
    yield from _cholesky(np.random.default_rng(41))
    yield from _solve(np.random.default_rng(42))
    yield from _special(np.random.default_rng(43))
    yield from _decompositions(np.random.default_rng(44))
    yield from _polar(np.random.default_rng(45))
    yield from _functions(np.random.default_rng(46))
    yield from _signatures(np.random.default_rng(47))


def cases() -> Iterator[Case]:
    """Every case; those with ±inf or NaN among their arguments record values only."""
    for case in _all():
        case.derivatives = case.derivatives and finite(case.args)
        yield case
