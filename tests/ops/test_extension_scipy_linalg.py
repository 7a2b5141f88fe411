"""tf8.scipy.linalg: solve_triangular, expm, expm_frechet, and scipy's cholesky/eigh conventions."""

import itertools

import numpy as np
import pytest
import scipy.linalg

import tf8
import tf8.numpy as tnp
from tf8.errors import ParameterError, ShapeError
from tf8.scipy import linalg

RNG = np.random.default_rng(5)
TRIANGULAR = RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)  # both triangles well conditioned
RHS = RNG.standard_normal((2, 4, 3))
COMPLEX = TRIANGULAR[0] + 1j * RNG.standard_normal((4, 4))
COMPLEX_RHS = RNG.standard_normal((4, 2)) + 1j * RNG.standard_normal((4, 2))
SMALL = 0.4 * RNG.standard_normal((3, 3))
SPD = TRIANGULAR[0] @ TRIANGULAR[0].T


def _scipy_batched(a, b, **kwargs):
    return np.stack([scipy.linalg.solve_triangular(x, y, **kwargs) for x, y in zip(a, b)])


OPTIONS = list(itertools.product((True, False), (0, 1, 2, "N", "T", "C"), (False, True)))


@pytest.mark.parametrize("lower,trans,unit", OPTIONS)
def test_solve_triangular_matches_scipy_and_derivatives_check(lower, trans, unit):
    kwargs = dict(lower=lower, trans=trans, unit_diagonal=unit)
    got = linalg.solve_triangular(TRIANGULAR, RHS, **kwargs)
    np.testing.assert_allclose(np.asarray(got), _scipy_batched(TRIANGULAR, RHS, **kwargs))
    tf8.check_grads(lambda a, b: linalg.solve_triangular(a, b, **kwargs), [TRIANGULAR, RHS], 1)


@pytest.mark.parametrize("trans", [0, 1, 2])
def test_complex_solve_triangular_second_order(trans):
    f = lambda a, b: linalg.solve_triangular(a, b, trans=trans, lower=True)  # noqa: E731
    expected = scipy.linalg.solve_triangular(COMPLEX, COMPLEX_RHS, trans=trans, lower=True)
    np.testing.assert_allclose(np.asarray(f(COMPLEX, COMPLEX_RHS)), expected)
    tf8.check_grads(f, [COMPLEX, COMPLEX_RHS], order=2)


def test_solve_triangular_vector_and_errors():
    a, b = TRIANGULAR[0], RHS[0, :, 0]
    np.testing.assert_allclose(
        np.asarray(linalg.solve_triangular(a, b)), scipy.linalg.solve_triangular(a, b)
    )
    with pytest.raises(ParameterError, match="trans"):
        linalg.solve_triangular(a, b, trans=3)
    with pytest.raises(ShapeError):
        linalg.solve_triangular(a, np.ones(3))


@pytest.mark.parametrize("a", [SMALL, SMALL + 0.3j * SMALL.T], ids=["real", "complex"])
def test_expm_matches_scipy_and_differentiates_to_second_order(a):
    np.testing.assert_allclose(np.asarray(linalg.expm(a)), scipy.linalg.expm(a), rtol=1e-12)
    tf8.check_grads(linalg.expm, [a], order=2)


def test_expm_batched_and_third_order():
    batch = RNG.standard_normal((2, 2, 2)) * 0.5
    np.testing.assert_allclose(np.asarray(linalg.expm(batch)), scipy.linalg.expm(batch))
    tf8.check_grads(lambda a: tnp.sum(linalg.expm(a)), [batch[0]], order=3, modes=["rev"])


def test_expm_frechet_matches_scipy_and_is_linear_in_e():
    e = RNG.standard_normal((3, 3))
    expm_a, frechet = linalg.expm_frechet(SMALL, e)
    ref_expm, ref_frechet = scipy.linalg.expm_frechet(SMALL, e)
    np.testing.assert_allclose(np.asarray(expm_a), ref_expm, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(frechet), ref_frechet, rtol=1e-10)
    tf8.check_grads(lambda x, y: linalg.expm_frechet(x, y, compute_expm=False), [SMALL, e], 2)
    # the gradient of <C, L(A, E)> in E is L(Aᵀ, C)
    c = RNG.standard_normal((3, 3))
    grad = tf8.grad(lambda y: tnp.sum(c * linalg.expm_frechet(SMALL, y, compute_expm=False)))(e)
    np.testing.assert_allclose(grad, scipy.linalg.expm_frechet(SMALL.T, c)[1], rtol=1e-10)


def test_expm_gradient_closed_form():
    # d/dA tr(expm(A)) = expm(A)ᵀ
    grad = tf8.grad(lambda a: tnp.trace(linalg.expm(a)))(SMALL)
    np.testing.assert_allclose(grad, scipy.linalg.expm(SMALL).T, rtol=1e-10)


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_and_eigh_follow_scipy(lower):
    lopsided = np.tril(SPD) if lower else np.triu(SPD)  # only the read triangle is meaningful
    expected = scipy.linalg.cholesky(SPD, lower=lower)
    np.testing.assert_allclose(np.asarray(linalg.cholesky(lopsided, lower=lower)), expected)
    tf8.check_grads(lambda a: linalg.cholesky(a, lower=lower), [SPD], order=1)
    w, _ = scipy.linalg.eigh(SPD)
    np.testing.assert_allclose(np.asarray(linalg.eigh(SPD, lower=lower)[0]), w)
    np.testing.assert_allclose(np.asarray(linalg.eigh(SPD, lower=lower, eigvals_only=True)), w)
    tf8.check_grads(lambda a: linalg.eigh(a, lower=lower, eigvals_only=True), [SPD], order=1)


@pytest.mark.parametrize("lower", [True, False])
def test_eigh_symmetrizes_its_input_as_jax_does(lower):
    # JAX's scipy.linalg.eigh factors (A + Aᴴ)/2 whatever `lower` says (lax.linalg.eigh's
    # symmetrize_input=True), so both triangles count and the gradient is symmetric.
    lopsided = np.tril(SPD) if lower else np.triu(SPD)
    w_sym = scipy.linalg.eigh((lopsided + lopsided.T) / 2, eigvals_only=True)
    np.testing.assert_allclose(np.asarray(linalg.eigh(lopsided, lower=lower)[0]), w_sym)
    grad = np.asarray(tf8.grad(lambda a: linalg.eigh(a, lower=lower, eigvals_only=True)[-1])(SPD))
    np.testing.assert_allclose(grad, grad.T, atol=1e-12)
    tf8.check_grads(lambda a: linalg.eigh(a, lower=lower, eigvals_only=True), [lopsided], order=2)
