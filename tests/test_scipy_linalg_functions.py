"""tf8.scipy.linalg's sqrtm, funm, solve_sylvester and eigh_tridiagonal: values against scipy,
eigh_tridiagonal's derivatives against central differences, the refusals where JAX's raise,
vmap against a loop, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import tf8
import tf8.numpy as tnp
from tf8.errors import DifferentiationError, DTypeError, ParameterError, ShapeError
from tf8.ops.extension.linalg.schur import EigvalshTridiagonal
from tf8.scipy import linalg

RNG = np.random.default_rng(5)
A = RNG.standard_normal((4, 4))
SPD = A @ A.T + np.eye(4)
D, E = RNG.standard_normal(6), RNG.standard_normal(5)


def test_sqrtm_is_the_principal_root_and_complex():
    for a in (SPD, A, A + 1j * SPD):
        root = np.asarray(linalg.sqrtm(a))
        assert root.dtype == np.complex128
        np.testing.assert_allclose(root @ root, a, atol=1e-12)
    np.testing.assert_allclose(linalg.sqrtm(SPD), scipy.linalg.sqrtm(SPD), atol=1e-13)
    assert np.asarray(linalg.sqrtm(SPD.astype(np.float32))).dtype == np.complex64


def test_funm_matches_scipy_and_estimates_its_error():
    for fn, np_fn in ((tnp.sin, np.sin), (tnp.exp, np.exp), (tnp.sqrt, np.sqrt)):
        a = SPD if fn is tnp.sqrt else A
        np.testing.assert_allclose(linalg.funm(a, fn), scipy.linalg.funm(a, np_fn), atol=1e-12)
    np.testing.assert_allclose(linalg.funm(A, tnp.exp), scipy.linalg.expm(A), atol=1e-12)
    f, error = linalg.funm(A, tnp.sin, disp=False)
    expected_f, expected_error = scipy.linalg.funm(A, np.sin, disp=False)
    np.testing.assert_allclose(f, expected_f, atol=1e-12)
    np.testing.assert_allclose(error, expected_error, rtol=1e-6)


def test_sqrtm_and_funm_map_over_a_batch():
    batch = RNG.standard_normal((3, 3, 3))
    spd = batch @ np.swapaxes(batch, -1, -2) + np.eye(3)
    np.testing.assert_allclose(
        tf8.vmap(linalg.sqrtm)(spd), np.stack([scipy.linalg.sqrtm(a) for a in spd]), atol=1e-12
    )
    mapped = tf8.jit(tf8.vmap(lambda a: linalg.funm(a, tnp.cos)))(batch)
    np.testing.assert_allclose(mapped, np.stack([scipy.linalg.funm(a, np.cos) for a in batch]))


def test_solve_sylvester():
    b, c = RNG.standard_normal((2, 2)) + 3 * np.eye(2), RNG.standard_normal((4, 2))
    x = np.asarray(linalg.solve_sylvester(SPD, b, c))
    np.testing.assert_allclose(SPD @ x + x @ b, c, atol=1e-12)
    np.testing.assert_allclose(x, scipy.linalg.solve_sylvester(SPD, b, c), atol=1e-13)
    np.testing.assert_allclose(linalg.solve_sylvester(SPD, b, c, method="eigen"), x, atol=1e-13)
    assert np.asarray(linalg.solve_sylvester(SPD + 1j * A, b, c)).dtype == np.complex128
    batch = np.stack([SPD, 2 * SPD])
    found = np.asarray(linalg.solve_sylvester(batch, b, c))
    np.testing.assert_allclose(found[1], scipy.linalg.solve_sylvester(2 * SPD, b, c), atol=1e-13)
    singular = linalg.solve_sylvester(np.eye(2), -np.eye(2), np.ones((2, 2)))
    assert np.isnan(np.asarray(singular)).all()  # JAX's NaN where |λ_a + λ_b| < tol


@pytest.mark.parametrize(
    "fn",
    [
        linalg.sqrtm,
        lambda a: linalg.funm(a, tnp.sin),
        lambda a: linalg.solve_sylvester(a, a, a),
    ],
)
def test_what_jax_does_not_differentiate_raises(fn):
    with pytest.raises(DifferentiationError, match="not differentiable"):
        tf8.grad(lambda a: tnp.sum(tnp.real(fn(a))))(SPD)


def test_eigh_tridiagonal_matches_scipy():
    w, v = linalg.eigh_tridiagonal(D, E)
    expected_w, expected_v = scipy.linalg.eigh_tridiagonal(D, E)
    np.testing.assert_allclose(w, expected_w, atol=1e-13)
    np.testing.assert_allclose(np.abs(v), np.abs(expected_v), atol=1e-12)
    chosen = linalg.eigh_tridiagonal(D, E, eigvals_only=True, select="i", select_range=(1, 3))
    np.testing.assert_allclose(chosen, expected_w[1:4], atol=1e-13)
    single = linalg.eigh_tridiagonal(np.array([2.0]), np.zeros(0))
    np.testing.assert_allclose(single[0], [2.0])
    np.testing.assert_allclose(single[1], [[1.0]])


def test_eigh_tridiagonal_of_a_complex_hermitian_matrix():
    e = E + 1j * RNG.standard_normal(5)
    t = np.diag(D) + np.diag(e, 1) + np.diag(e.conj(), -1)
    w, v = linalg.eigh_tridiagonal(D + 0j, e)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(t), atol=1e-13)
    np.testing.assert_allclose(t @ np.asarray(v), np.asarray(v) * np.asarray(w), atol=1e-12)
    assert np.asarray(v).dtype == np.complex128 and np.asarray(w).dtype == np.float64


def test_eigh_tridiagonal_derivatives():
    tf8.check_grads(lambda d, e: linalg.eigh_tridiagonal(d, e, eigvals_only=True), [D, E], 2)
    sub = {"eigvals_only": True, "select": "i", "select_range": (2, 4)}
    tf8.check_grads(lambda d, e: linalg.eigh_tridiagonal(d, e, **sub), [D, E], order=2)

    def projectors(d, e, **kw):  # v v^T does not depend on the eigenvectors' signs
        v = linalg.eigh_tridiagonal(d, e, **kw)[1]
        return tnp.einsum("ik,jk->kij", v, v)

    tf8.check_grads(projectors, [D, E], order=2)
    tf8.check_grads(lambda d, e: projectors(d, e, select="i", select_range=(1, 2)), [D, E], 1)
    e = E + 1j * RNG.standard_normal(5)
    tf8.check_grads(lambda d, e: linalg.eigh_tridiagonal(d, e, eigvals_only=True), [D + 0j, e], 1)


def test_eigh_tridiagonal_eigenvalues_prune_the_vectors_and_map_over_a_batch():
    fn = lambda d, e: linalg.eigh_tridiagonal(d, e)[0]  # noqa: E731
    assert any(isinstance(op, EigvalshTridiagonal) for op in tf8.make_program(fn)(D, E).ops)
    ds, es = RNG.standard_normal((3, 6)), RNG.standard_normal((3, 5))
    mapped = tf8.vmap(fn)(ds, es)
    looped = [scipy.linalg.eigh_tridiagonal(d, e, eigvals_only=True) for d, e in zip(ds, es)]
    np.testing.assert_allclose(mapped, np.stack(looped), atol=1e-13)


def test_errors():
    with pytest.raises(ParameterError, match="blocksize"):
        linalg.sqrtm(SPD, blocksize=2)
    with pytest.raises(ShapeError, match="sqrtm: needs one matrix"):
        linalg.sqrtm(np.stack([SPD, SPD]))
    with pytest.raises(ShapeError, match="funm"):
        linalg.funm(A[:3], tnp.sin)
    with pytest.raises(ShapeError, match="solve_sylvester"):
        linalg.solve_sylvester(SPD, SPD, A[:3])
    with pytest.raises(ParameterError, match="method"):
        linalg.solve_sylvester(SPD, SPD, A, method="qr")
    with pytest.raises(DTypeError, match="one dtype"):
        linalg.eigh_tridiagonal(D, E.astype(np.float32))
    with pytest.raises(DTypeError, match="float32, float64"):
        linalg.eigh_tridiagonal(np.array([1, 2]), np.array([1]))
    with pytest.raises(ParameterError, match="select='v'"):
        linalg.eigh_tridiagonal(D, E, select="v", select_range=(0.0, 1.0))
    with pytest.raises(ParameterError, match="outside"):
        linalg.eigh_tridiagonal(D, E, select="i", select_range=(2, 9))
    with pytest.raises(ShapeError, match="one shorter"):
        linalg.eigh_tridiagonal(D, E[:3])
