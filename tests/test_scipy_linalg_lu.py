"""tf8.scipy.linalg's LU and Cholesky factorisations and solves, and `solve`: values against
scipy, derivatives against central differences to second order (real and complex), `vmap`
against a loop, `jit` against eager, pruning, and the errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.linalg

import tf8
import tf8.numpy as tnp
from tf8.errors import DTypeError, LinAlgError, ParameterError, ShapeError
from tf8.lax.core import apply
from tf8.ops.extension.linalg.factor_tangents import (
    CholeskyFactorProduct,
    CholeskyFactorProductT,
    LuFactorProduct,
    LuFactorProductT,
)
from tf8.ops.extension.linalg.lu import Lu, LuPruned
from tf8.ops.extension.linalg.triangular import PermuteRows, TriangularOuter, TriangularProduct
from tf8.scipy import linalg

RNG = np.random.default_rng(7)
A = RNG.standard_normal((4, 4)) + 2 * np.eye(4)
B = RNG.standard_normal((4, 2))
V = RNG.standard_normal(4)
SPD = A @ A.T + np.eye(4)
COMPLEX = A + 1j * RNG.standard_normal((4, 4))
HPD = COMPLEX @ COMPLEX.conj().T + np.eye(4)
B_COMPLEX = B + 1j * RNG.standard_normal((4, 2))


def _factors(a):
    lu, piv = scipy.linalg.lu_factor(a)
    return lu, piv.astype(np.int32)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_lu_factor_and_lu_match_scipy(shape):
    a = RNG.standard_normal(shape)
    lu, piv = linalg.lu_factor(a)
    expected_lu, expected_piv = scipy.linalg.lu_factor(a)
    np.testing.assert_allclose(lu, expected_lu, rtol=1e-13)
    assert np.asarray(piv).dtype == np.int32 and (np.asarray(piv) == expected_piv).all()
    for ours, theirs in zip(linalg.lu(a), scipy.linalg.lu(a)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-15)
    pl, u = linalg.lu(a, permute_l=True)
    np.testing.assert_allclose(np.asarray(pl) @ np.asarray(u), a, atol=1e-13)


def test_lu_of_a_complex_matrix_has_a_real_permutation_as_jax():
    p, lower, upper = linalg.lu(COMPLEX)
    assert np.asarray(p).dtype == np.float64 and np.asarray(lower).dtype == np.complex128
    np.testing.assert_allclose(np.asarray(p) @ np.asarray(lower) @ np.asarray(upper), COMPLEX)


@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("rhs", [B, V], ids=["matrix", "vector"])
def test_lu_solve_matches_scipy(trans, rhs):
    lu, piv = _factors(A)
    expected = scipy.linalg.lu_solve((lu, piv), rhs, trans=trans)
    np.testing.assert_allclose(linalg.lu_solve((lu, piv), rhs, trans=trans), expected, rtol=1e-12)
    jitted = tf8.jit(lambda f, p, b: linalg.lu_solve((f, p), b, trans=trans))
    np.testing.assert_allclose(jitted(lu, piv, rhs), expected, rtol=1e-12)


@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_lu_solve_derivatives_in_the_factors_and_b(trans, dtype):
    a, b = (A, B) if dtype == np.float64 else (COMPLEX, B_COMPLEX)
    lu, piv = _factors(a)
    tf8.check_grads(lambda f, y: linalg.lu_solve((f, piv), y, trans=trans), [lu, b], order=2)


def test_lu_solve_gradient_is_the_two_half_solves():
    # x = U⁻¹ L⁻¹ P b; for ℓ = Σ x: q = U⁻ᵀ 1, w = L⁻ᵀ q, b̄ = Pᵀ w and
    # L̄U = −(tril(w yᵀ, −1) + triu(q xᵀ)), y = U x
    lu, piv = _factors(A)
    grad_lu, grad_b = tf8.grad(lambda f, y: tnp.sum(linalg.lu_solve((f, piv), y)), (0, 1))(lu, V)
    x = scipy.linalg.lu_solve((lu, piv), V)
    y = np.triu(lu) @ x
    q = scipy.linalg.solve_triangular(lu, np.ones(4), trans=1)
    w = scipy.linalg.solve_triangular(lu, q, trans=1, lower=True, unit_diagonal=True)
    np.testing.assert_allclose(grad_lu, -(np.tril(np.outer(w, y), -1) + np.triu(np.outer(q, x))))
    np.testing.assert_allclose(grad_b, np.linalg.solve(A.T, np.ones(4)), rtol=1e-12)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_lu_derivatives(shape):
    a = RNG.standard_normal(shape) + np.eye(*shape)
    tf8.check_grads(lambda x: linalg.lu_factor(x)[0], [a], order=2)
    tf8.check_grads(lambda x: linalg.lu(x)[1:], [a], order=2)
    tf8.check_grads(lambda x: linalg.lu(x, permute_l=True), [a], order=1)
    imaginary = RNG.standard_normal(shape)  # (a + i a[::-1] would tie pivots)
    tf8.check_grads(lambda x: linalg.lu_factor(x)[0], [a + 1j * imaginary], order=1)


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_cho_solve_values_and_derivatives(lower, dtype):
    a, b = (SPD, B) if dtype == np.float64 else (HPD, B_COMPLEX)
    c = scipy.linalg.cholesky(a, lower=lower)
    ours = linalg.cho_solve(linalg.cho_factor(a, lower=lower), b)
    np.testing.assert_allclose(ours, np.linalg.solve(a, b), rtol=1e-11)
    np.testing.assert_allclose(linalg.cho_solve((c, lower), b[:, 0]), np.linalg.solve(a, b[:, 0]))
    tf8.check_grads(lambda f, y: linalg.cho_solve((f, lower), y), [c, b], order=2)


def test_cho_solve_reads_one_triangle_of_the_factor():
    c = scipy.linalg.cholesky(SPD)
    garbage = c + np.tril(np.ones((4, 4)), -1)  # the unread triangle
    np.testing.assert_allclose(linalg.cho_solve((garbage, False), V), np.linalg.solve(SPD, V))
    grad = tf8.grad(lambda f: tnp.sum(linalg.cho_solve((f, False), V)))(garbage)
    assert np.all(np.asarray(grad)[np.tril_indices(4, -1)] == 0)


@pytest.mark.parametrize("assume_a", ["gen", "sym", "her", "pos"])
def test_solve_with_assume_a(assume_a):
    np.testing.assert_allclose(linalg.solve(SPD, B, assume_a=assume_a), np.linalg.solve(SPD, B))
    np.testing.assert_allclose(linalg.solve(SPD, V, assume_a=assume_a), np.linalg.solve(SPD, V))
    # JAX's pos solve is differentiated as if the full matrix were read: symmetric directions
    sym = lambda a, b: linalg.solve((a + a.T) / 2, b, assume_a=assume_a)  # noqa: E731
    tf8.check_grads(sym, [SPD, B], order=2)


def test_solve_pos_uses_the_triangle_lower_names():
    lopsided = np.tril(SPD) + np.triu(np.ones((4, 4)), 1)
    np.testing.assert_allclose(
        linalg.solve(lopsided, V, assume_a="pos", lower=True), np.linalg.solve(SPD, V)
    )


def test_batched_factors_broadcast_against_b_and_vmap_is_a_loop():
    batch = RNG.standard_normal((3, 4, 4)) + 2 * np.eye(4)
    lu, piv = linalg.lu_factor(batch)
    expected = np.stack([np.linalg.solve(a, V) for a in batch])
    np.testing.assert_allclose(linalg.lu_solve((lu, piv), V), expected, rtol=1e-12)
    rhs = RNG.standard_normal((3, 4, 2))
    looped = np.stack([np.linalg.solve(a, b) for a, b in zip(batch, rhs)])
    mapped = tf8.vmap(lambda a, b: linalg.lu_solve(linalg.lu_factor(a), b))(batch, rhs)
    np.testing.assert_allclose(mapped, looped, rtol=1e-12)
    spd = batch @ np.swapaxes(batch, -1, -2)
    mapped = tf8.jit(tf8.vmap(lambda a: linalg.cho_solve(linalg.cho_factor(a), V)))(spd)
    np.testing.assert_allclose(mapped, np.stack([np.linalg.solve(a, V) for a in spd]))
    grads = tf8.vmap(tf8.grad(lambda a: tnp.sum(linalg.lu_solve(linalg.lu_factor(a), V))))(batch)
    expected = [
        tf8.grad(lambda a: tnp.sum(linalg.lu_solve(linalg.lu_factor(a), V)))(a) for a in batch
    ]
    np.testing.assert_allclose(grads, np.stack(expected), rtol=1e-10)


def test_a_batch_of_vectors_is_solved_as_vectors_with_jaxs_warning():
    batch = RNG.standard_normal((3, 4, 4)) + 2 * np.eye(4)
    vectors = RNG.standard_normal((3, 4))
    with pytest.warns(FutureWarning, match="batched 1D solves"):
        found = linalg.lu_solve(linalg.lu_factor(batch), vectors)
    np.testing.assert_allclose(found, np.stack([np.linalg.solve(*p) for p in zip(batch, vectors)]))


def test_an_unused_permutation_is_pruned_and_the_kernel_skips_it():
    program = tf8.make_program(lambda a: linalg.lu_factor(a)[0])(A)
    assert any(isinstance(op, LuPruned) for op in program.ops)
    assert not any(type(op) is Lu for op in program.ops)
    with_p = tf8.make_program(lambda a: linalg.lu(a)[0])(A)
    assert any(type(op) is Lu for op in with_p.ops)


def test_a_singular_factor_gives_inf_or_nan_as_jax_and_its_derivative_raises():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    lu, piv = linalg.lu_factor(singular)
    assert np.asarray(lu)[1, 1] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        x = np.asarray(linalg.lu_solve((lu, piv), np.ones(2)))
    assert not np.isfinite(x).all()
    with pytest.raises(LinAlgError, match="triangular_solve"):
        tf8.grad(lambda a: tnp.sum(linalg.lu_factor(a)[0]))(singular)


def test_errors_name_the_function_and_the_argument():
    lu, piv = _factors(A)
    with pytest.raises(ParameterError, match="lu_solve: trans"):
        linalg.lu_solve((lu, piv), V, trans="T")
    with pytest.raises(ShapeError, match="lu_solve"):
        linalg.lu_solve((lu, piv), V[:3])
    with pytest.raises(DTypeError, match="pivots must be integers"):
        linalg.lu_solve((lu, piv.astype(float)), V)
    with pytest.raises(ShapeError, match="pivots"):
        linalg.lu_solve((lu, piv[:3]), V)
    with pytest.raises(LinAlgError, match="pivots must lie"):
        linalg.lu_solve((lu, piv + 10), V)
    with pytest.raises(ShapeError, match="lu: needs one matrix"):
        linalg.lu(np.stack([A, A]))
    with pytest.raises(ShapeError, match="square"):
        linalg.cho_solve((B, False), V)
    with pytest.raises(ParameterError, match="assume_a"):
        linalg.solve(A, V, assume_a="banded")
    with pytest.raises(ParameterError, match="pair"):
        linalg.cho_solve(A, V)


def _apply(op, *xs):
    return apply(op, [tnp.asarray(x) for x in xs])[0]


def _mask(lower: bool, strict: bool) -> np.ndarray:
    if lower:
        return np.tri(4, k=-int(strict), dtype=bool)
    return ~np.tri(4, k=int(strict) - 1, dtype=bool)


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("strict", [False, True])
def test_the_triangle_ops_and_their_derivatives(lower, strict):
    """TriangularProduct and TriangularOuter, which transpose into each other."""
    c, b = RNG.standard_normal((4, 2)), RNG.standard_normal((4, 2))
    tri = np.where(_mask(lower, strict), A, 0)
    for trans in (0, 1):
        op = TriangularProduct(lower, trans, strict)
        np.testing.assert_allclose(_apply(op, A, b), (tri.T if trans else tri) @ b, rtol=1e-13)
        np.testing.assert_allclose(
            _apply(op, A, V[:, None]), (tri.T if trans else tri) @ V[:, None]
        )
        tf8.check_grads(lambda x, y, op=op: _apply(op, x, y), [A, b], order=2)
    outer = TriangularOuter(lower, strict)
    np.testing.assert_allclose(_apply(outer, c, b), np.where(_mask(lower, strict), c @ b.T, 0))
    tf8.check_grads(lambda x, y: _apply(outer, x, y), [c, b], order=2)
    batch = RNG.standard_normal((2, 4, 4))
    looped = np.stack([(np.where(_mask(lower, strict), x, 0)) @ b for x in batch])
    np.testing.assert_allclose(
        _apply(TriangularProduct(lower, 0, strict), batch, np.stack([b, b])), looped
    )


@pytest.mark.parametrize("inverse", [False, True])
def test_permute_rows_and_its_inverse(inverse):
    b = RNG.standard_normal((4, 2))
    perm = RNG.permutation(4).astype(np.int32)
    found = np.asarray(_apply(PermuteRows(inverse), b, perm))
    np.testing.assert_allclose(found[perm] if inverse else found, b if inverse else b[perm])
    tf8.check_grads(lambda x: _apply(PermuteRows(inverse), x, perm), [b], order=2)


@pytest.mark.parametrize(
    "fn,transposed",
    [
        (lambda f, b: tnp.sum(linalg.lu_solve((f, _factors(A)[1]), b) ** 2), LuFactorProductT),
        (lambda f, b: tnp.sum(linalg.cho_solve((f, False), b) ** 2), CholeskyFactorProductT),
    ],
)
def test_reverse_mode_writes_the_factors_cotangent_once(fn, transposed):
    factor = _factors(A)[0] if transposed is LuFactorProductT else scipy.linalg.cholesky(SPD)
    program = tf8.make_program(tf8.grad(fn, (0, 1)))(factor, V)
    assert sum(isinstance(op, transposed) for op in program.ops) == 1
    assert not any(isinstance(op, (TriangularOuter, TriangularProduct)) for op in program.ops)


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_the_factor_products_and_their_transposes(lower, dtype):
    """dF_c(t) x against the dense formula; derivatives of both ops to second order."""
    imaginary = 1j if dtype == np.complex128 else 0
    c = scipy.linalg.cholesky(SPD + imaginary * (A - A.T), lower=lower)
    x, w = B + imaginary * B[::-1], B[::-1] - imaginary * B
    t = A + imaginary * A.T
    tri = np.tril if lower else np.triu
    f, d = tri(c), tri(t)
    dense = d @ f.conj().T + f @ d.conj().T if lower else d.conj().T @ f + f.conj().T @ d
    product = CholeskyFactorProduct(lower)
    np.testing.assert_allclose(_apply(product, c, x, t), dense @ x, rtol=1e-12)
    tf8.check_grads(lambda *xs: _apply(product, *xs), [c, x, t], order=2)
    tf8.check_grads(lambda *xs: _apply(CholeskyFactorProductT(lower), *xs), [c, x, w], order=2)
    lu = _factors(A + imaginary * A.T)[0]
    dense = np.tril(t, -1) @ np.triu(lu) + (np.tril(lu, -1) + np.eye(4)) @ np.triu(t)
    np.testing.assert_allclose(_apply(LuFactorProduct(), lu, x, t), dense @ x, rtol=1e-12)
    tf8.check_grads(lambda *xs: _apply(LuFactorProduct(), *xs), [lu, x, t], order=2)
    tf8.check_grads(lambda *xs: _apply(LuFactorProductT(), *xs), [lu, x, w], order=2)


def test_third_order_derivatives_of_the_solves():
    lu, piv = _factors(A[:3, :3])
    b = B[:3]
    tf8.check_grads(lambda f, y: linalg.lu_solve((f, piv), y), [lu, b], order=3, modes=["rev"])
    c = scipy.linalg.cholesky(SPD[:3, :3], lower=True)
    tf8.check_grads(lambda f, y: linalg.cho_solve((f, True), y), [c, b], order=3, modes=["fwd"])
