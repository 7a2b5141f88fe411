"""tf8.linalg's named results (numpy ≥ 2 / JAX names), symmetrize_input=, cholesky(upper=),
and the compositions matrix_rank, cond, multi_dot, tensorsolve, tensorinv, pinv(rtol=)."""

import numpy as np
import pytest

import tf8
import tf8.linalg as la
import tf8.numpy as tnp

RNG = np.random.default_rng(0)
A = RNG.normal(size=(3, 4, 4))
SPD = A @ np.swapaxes(A, -1, -2) + 4 * np.eye(4)


@pytest.mark.parametrize(
    "fn, arg, fields",
    [
        (la.slogdet, A, ("sign", "logabsdet")),
        (la.eigh, SPD, ("eigenvalues", "eigenvectors")),
        (la.eig, A, ("eigenvalues", "eigenvectors")),
        (la.svd, A, ("U", "S", "Vh")),
        (la.qr, A, ("Q", "R")),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_named_results_match_numpy(fn, arg, fields):
    ours, theirs = fn(arg), getattr(np.linalg, fn.__name__)(arg)
    assert ours._fields == fields
    for field in fields:
        if fn is la.eig:  # eigenvector order and phase are LAPACK's; compare values only
            break
        np.testing.assert_allclose(getattr(ours, field), getattr(theirs, field), atol=1e-10)
    unpacked = tuple(ours)
    assert len(unpacked) == len(fields)
    out = tf8.jit(fn)(arg)  # a pytree of the same named tuple
    assert type(out) is type(ours)


def test_lstsq_named_result():
    a, b = RNG.normal(size=(5, 3)), RNG.normal(size=5)
    ours, theirs = la.lstsq(a, b), np.linalg.lstsq(a, b)
    for mine, expected in zip(ours, theirs):
        np.testing.assert_allclose(mine, expected)
    np.testing.assert_allclose(ours.x, theirs[0])
    assert int(ours.rank) == 3


def test_symmetrize_input_matches_jax_gradient():
    m = SPD[0] + np.triu(RNG.normal(size=(4, 4)), 1)  # not symmetric
    sym = (m + m.T) / 2
    np.testing.assert_allclose(
        la.eigh(m, symmetrize_input=True).eigenvalues, np.linalg.eigvalsh(sym)
    )
    np.testing.assert_allclose(la.eigh(m).eigenvalues, np.linalg.eigvalsh(sym))  # JAX's default
    np.testing.assert_allclose(
        la.eigh(m, symmetrize_input=False).eigenvalues, np.linalg.eigvalsh(m)
    )  # numpy's triangle
    g = tf8.grad(lambda x: la.cholesky(x).sum())(m)
    np.testing.assert_allclose(g, g.T)
    lower = tf8.grad(lambda x: la.cholesky(x, symmetrize_input=False).sum())(m)
    np.testing.assert_array_equal(np.triu(lower, 1), 0)
    tf8.check_grads(lambda x: la.eigh(x, symmetrize_input=True).eigenvalues, (m,), order=1)
    tf8.check_grads(lambda x: la.cholesky(x, symmetrize_input=True), (m,), order=1)
    np.testing.assert_allclose(la.cholesky(SPD, upper=True), np.linalg.cholesky(SPD, upper=True))


def test_matrix_rank_cond_pinv():
    b = A.copy()
    b[0, :, 0] = b[0, :, 1]
    np.testing.assert_array_equal(la.matrix_rank(b), np.linalg.matrix_rank(b))
    np.testing.assert_array_equal(la.matrix_rank(b, tol=0.5), np.linalg.matrix_rank(b, tol=0.5))
    np.testing.assert_array_equal(la.matrix_rank(b, rtol=0.2), np.linalg.matrix_rank(b, rtol=0.2))
    assert int(la.matrix_rank(np.zeros(3))) == 0 and int(la.matrix_rank(np.ones(3))) == 1
    for p in (None, 2, -2, "fro", 1, -1, np.inf, "nuc"):
        np.testing.assert_allclose(la.cond(A, p), np.linalg.cond(A, p), rtol=1e-10)
    tf8.check_grads(lambda x: la.cond(x), (A[0],), order=1)
    np.testing.assert_allclose(la.pinv(A, rtol=1e-3), np.linalg.pinv(A, rtol=1e-3))
    np.testing.assert_allclose(la.pinv(SPD, hermitian=True), np.linalg.pinv(SPD, hermitian=True))


def test_multi_dot_tensorsolve_tensorinv():
    ms = [RNG.normal(size=s) for s in [(5,), (5, 3), (3, 10), (10, 2), (2,)]]
    np.testing.assert_allclose(la.multi_dot(ms), np.linalg.multi_dot(ms))
    np.testing.assert_allclose(tnp.linalg.multi_dot(ms[1:4]), np.linalg.multi_dot(ms[1:4]))
    tf8.check_grads(lambda x, y, z: la.multi_dot([x, y, z]), ms[1:4], order=1)
    a, b = RNG.normal(size=(6, 2, 3)), RNG.normal(size=(6,))
    np.testing.assert_allclose(la.tensorsolve(a, b), np.linalg.tensorsolve(a, b))
    a2 = RNG.normal(size=(2, 3, 6))
    np.testing.assert_allclose(
        la.tensorsolve(a2, b, axes=(0, 1)), np.linalg.tensorsolve(a2, b, axes=(0, 1))
    )
    t = RNG.normal(size=(4, 6, 8, 3))
    np.testing.assert_allclose(la.tensorinv(t), np.linalg.tensorinv(t))
    np.testing.assert_allclose(
        la.tensorinv(t.reshape(24, 4, 6), 1), np.linalg.tensorinv(t.reshape(24, 4, 6), 1)
    )
    tf8.check_grads(lambda x: la.tensorinv(x), (t.reshape(4, 6, 8, 3) + 0,), order=1)
