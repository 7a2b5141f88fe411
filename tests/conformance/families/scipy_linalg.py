"""`jax.scipy.linalg`'s functions that tf8.scipy.linalg shares, with their keyword variants
(lower=, trans=, unit_diagonal=, full_matrices=, compute_uv=, eigvals_only=, compute_expm=),
batched, in float32, complex, empty, and on the matrices JAX refuses (not square, mismatched).

Eigenvectors and singular vectors are defined only up to sign (or phase): those cases keep
the values alone (`select`)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..spec import Case, Static
from ._values import finite

PREFIX = "scipy.linalg."


def _spd(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Symmetric positive-definite matrices of shape (..., n, n), well conditioned."""
    m = rng.normal(size=shape)
    n = shape[-1]
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _hermitian(rng: np.random.Generator, n: int) -> np.ndarray:
    m = rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n))
    return m @ m.conj().T + n * np.eye(n)


def _cholesky(rng: np.random.Generator) -> Iterator[Case]:
    name = PREFIX + "cholesky"
    a = _spd(rng, 3, 3)
    skew = a + np.triu(rng.normal(size=(3, 3)), 1)  # only one triangle is read
    for keywords in ({}, {"lower": True}, {"lower": False}):
        yield Case(name, (a,), keywords)
        yield Case(name, (skew,), keywords)
    yield Case(name, (a.astype(np.float32),))
    yield Case(name, (_spd(rng, 2, 3, 3),), {"lower": True})  # batched
    yield Case(name, (_hermitian(rng, 3),))
    yield Case(name, (_hermitian(rng, 3),), {"lower": True})
    yield Case(name, (np.array([[4.0]]),))
    yield Case(name, (np.zeros((0, 0)),))
    yield Case(name, (np.array([[1.0, 2.0], [2.0, 1.0]]),))  # not positive definite: NaN
    yield Case(name, (np.array([[4, 2], [2, 3]]),))  # ints
    yield Case(name, (rng.normal(size=(2, 3)),))  # refused: not square
    yield Case(name, (np.array(2.0),))  # refused: 0-d


def _det_inv(rng: np.random.Generator) -> Iterator[Case]:
    a = rng.normal(size=(3, 3))
    for fn in ("det", "inv"):
        name = PREFIX + fn
        yield Case(name, (a,))
        yield Case(name, (a.astype(np.float32),))
        yield Case(name, (rng.normal(size=(2, 4, 4)),))  # batched
        yield Case(name, (a + 1j * rng.normal(size=(3, 3)),))
        yield Case(name, (np.array([[2.5]]),))
        yield Case(name, (np.zeros((0, 0)),))
        yield Case(name, (np.array([[1.0, 2.0], [2.0, 4.0]]),))  # singular
        yield Case(name, (np.array([[1, 2], [3, 4]]),))  # ints
        yield Case(name, (np.array([[1.0, np.inf], [0.0, 1.0]]),))
        yield Case(name, (rng.normal(size=(2, 3)),))  # refused: not square
        yield Case(name, (np.array([1.0, 2.0]),))  # refused: 1-d


def _eigh(rng: np.random.Generator) -> Iterator[Case]:
    name = PREFIX + "eigh"
    a = _spd(rng, 3, 3) - 2 * np.eye(3)
    skew = a + np.triu(rng.normal(size=(3, 3)), 1)  # only one triangle is read
    values = (0,)  # the eigenvectors are defined up to sign
    for keywords in ({}, {"lower": False}, {"lower": True}):
        yield Case(name, (a,), keywords, select=values)
        yield Case(name, (skew,), keywords, select=values)
        yield Case(name, (skew,), dict(keywords, eigvals_only=True))
    yield Case(name, (a.astype(np.float32),), select=values)
    yield Case(name, (_spd(rng, 2, 4, 4),), {"eigvals_only": True})  # batched
    yield Case(name, (_hermitian(rng, 3),), select=values)
    yield Case(name, (np.diag([3.0, 1.0, 2.0]),))  # both outputs: the vectors are ±e_k
    yield Case(name, (np.array([[2.0]]),))
    yield Case(name, (np.zeros((0, 0)),))
    yield Case(name, (np.array([[2, 1], [1, 2]]),), select=values)  # ints
    yield Case(name, (rng.normal(size=(2, 3)),), select=values)  # refused: not square


def _expm(rng: np.random.Generator) -> Iterator[Case]:
    name = PREFIX + "expm"
    a = rng.normal(size=(3, 3))
    yield Case(name, (a,))
    yield Case(name, (0.01 * a,))  # a small norm: few squarings
    yield Case(name, (6.0 * a,))  # a large one
    yield Case(name, (a.astype(np.float32),))
    yield Case(name, (rng.normal(size=(2, 2, 2)),))  # batched
    yield Case(name, (a + 1j * rng.normal(size=(3, 3)),))
    yield Case(name, (np.array([[0.5]]),))
    yield Case(name, (np.zeros((0, 0)),))
    yield Case(name, (np.zeros((3, 3)),))
    yield Case(name, (np.array([[0.0, 1.0], [0.0, 0.0]]),))  # nilpotent
    yield Case(name, (np.array([[1, 2], [0, 1]]),))  # ints
    yield Case(name, (np.triu(a),), {"upper_triangular": True})
    yield Case(name, (rng.normal(size=(2, 3)),))  # refused: not square

    name = PREFIX + "expm_frechet"
    e = rng.normal(size=(3, 3))
    for keywords in ({}, {"compute_expm": True}, {"compute_expm": False}):
        yield Case(name, (a, e), keywords)
    yield Case(name, (a.astype(np.float32), e.astype(np.float32)))
    yield Case(name, (5.0 * a, e), {"compute_expm": False})
    yield Case(name, (np.eye(2), np.ones((2, 2))))
    yield Case(name, (rng.normal(size=(2, 2, 2)), rng.normal(size=(2, 2, 2))))  # batched
    yield Case(name, (a + 0.5j * e, e), {"compute_expm": False})
    yield Case(name, (a, e[:2, :2]))  # refused: mismatched shapes
    yield Case(name, (a[:2], e[:2]))  # refused: not square


def _solve_triangular(rng: np.random.Generator) -> Iterator[Case]:
    name = PREFIX + "solve_triangular"
    a = rng.normal(size=(3, 3)) + 4 * np.eye(3)
    b = rng.normal(size=(3, 2))
    variants = [
        {}, {"lower": True}, {"trans": 1}, {"trans": "T", "lower": True}, {"trans": 2},
        {"trans": "C", "lower": True}, {"trans": "N"}, {"unit_diagonal": True},
        {"unit_diagonal": True, "lower": True, "trans": 1},
    ]  # fmt: skip
    for keywords in variants:
        yield Case(name, (a, b), keywords)
    yield Case(name, (a, b[:, 0]))  # b a vector
    yield Case(name, (a, b[:, 0]), {"lower": True, "trans": 1})
    yield Case(name, (a.astype(np.float32), b.astype(np.float32)), {"lower": True})
    yield Case(name, (a.astype(np.float32), b))  # float32 with float64
    yield Case(name, (np.stack([a, 2 * a]), rng.normal(size=(2, 3, 2))))  # batched
    complex_a = a + 1j * np.triu(rng.normal(size=(3, 3)))
    yield Case(name, (complex_a, b), {"trans": 2})
    yield Case(name, (complex_a, b + 1j), {"trans": "T"})
    yield Case(name, (a, np.zeros((3, 0))))
    yield Case(name, (np.array([[2, 1], [0, 4]]), np.array([1, 2])))  # ints
    yield Case(name, (np.array([[0.0, 1.0], [0.0, 1.0]]), np.ones(2)))  # singular: inf/NaN
    yield Case(name, (a, b[:2]))  # refused: mismatched sizes
    yield Case(name, (a, b), {"trans": 3})  # refused: no such trans


def _svd(rng: np.random.Generator) -> Iterator[Case]:
    name = PREFIX + "svd"
    values = (1,)  # the singular vectors are defined up to sign
    for shape in ((3, 3), (4, 2), (2, 4)):
        a = rng.normal(size=shape)
        yield Case(name, (a,), {"compute_uv": False})
        yield Case(name, (a,), select=values)
        yield Case(name, (a,), {"full_matrices": False}, select=values)
    a = rng.normal(size=(3, 2))
    yield Case(name, (a.astype(np.float32),), {"compute_uv": False})
    yield Case(name, (rng.normal(size=(2, 3, 2)),), {"compute_uv": False})  # batched
    yield Case(name, (a + 1j * rng.normal(size=(3, 2)),), {"compute_uv": False})
    yield Case(name, (np.diag([3.0, 1.0]),))  # every output: the vectors are ±e_k
    yield Case(name, (np.array([[1, 2], [3, 4]]),), {"compute_uv": False})  # ints
    yield Case(name, (np.zeros((0, 3)),), {"compute_uv": False})
    yield Case(name, (np.ones((2, 2)),), {"compute_uv": False})  # rank-deficient
    yield Case(name, (np.array([1.0, 2.0]),), {"compute_uv": False})  # refused: 1-d
    yield Case(name, (a, Static(False), Static(False)))  # positional keywords


def _all() -> Iterator[Case]:
    yield from _cholesky(np.random.default_rng(10))
    yield from _det_inv(np.random.default_rng(11))
    yield from _eigh(np.random.default_rng(12))
    yield from _expm(np.random.default_rng(13))
    yield from _solve_triangular(np.random.default_rng(14))
    yield from _svd(np.random.default_rng(15))


def cases() -> Iterator[Case]:
    """Every case; those with ±inf or NaN among their arguments record values only."""
    for case in _all():
        case.derivatives = case.derivatives and finite(case.args)
        yield case
