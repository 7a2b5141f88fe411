"""tf8.linalg where JAX goes past numpy's defaults: qr's complete and raw modes and wide
derivatives, JAX's inexact dtype for integer input, lstsq's residuals, fftfreq with a traced
spacing, tensorsolve's shape check."""

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import linalg
from tf8.errors import DifferentiationError, ShapeError

RNG = np.random.default_rng(3)
TALL = RNG.standard_normal((5, 3))
WIDE = RNG.standard_normal((3, 5))
COMPLEX_TALL = RNG.standard_normal((4, 3)) + 1j * RNG.standard_normal((4, 3))


@pytest.mark.parametrize("a", [TALL, WIDE, COMPLEX_TALL], ids=["tall", "wide", "complex"])
def test_qr_complete_matches_numpy_and_differentiates(a):
    q, r = linalg.qr(a, mode="complete")
    q0, r0 = np.linalg.qr(a, mode="complete")
    np.testing.assert_allclose(np.asarray(q), q0, atol=1e-12)
    np.testing.assert_allclose(np.asarray(r), r0, atol=1e-12)
    # the complement columns follow LAPACK's Householder construction: central differences
    # of numpy's complete Q agree with the JVP (JAX's rule, arxiv.org/abs/2409.13374)
    tf8.check_grads(lambda x: tuple(linalg.qr(x, mode="complete")), [a], order=2, modes=["fwd"])
    tf8.check_grads(lambda x: tuple(linalg.qr(x, mode="complete")), [a], order=1)


def test_qr_of_a_wide_matrix_differentiates():
    # JAX's wide rule: Q, R₁ from the leading square block, R₂ = Qᴴ A₂
    tf8.check_grads(lambda x: tuple(linalg.qr(x)), [WIDE], order=2)
    tf8.check_grads(lambda x: linalg.qr(x, mode="r"), [WIDE], order=2)


def test_qr_raw_is_lapacks_and_not_differentiable():
    h, tau = linalg.qr(TALL, mode="raw")
    h0, tau0 = np.linalg.qr(TALL, mode="raw")
    np.testing.assert_allclose(np.asarray(h), h0)
    np.testing.assert_allclose(np.asarray(tau), tau0)
    batched = tf8.vmap(lambda x: tuple(linalg.qr(x, mode="raw")))(np.stack([TALL, 2 * TALL]))
    np.testing.assert_allclose(np.asarray(batched[0][1]), np.linalg.qr(2 * TALL, mode="raw")[0])
    with pytest.raises(DifferentiationError, match="raw"):
        tf8.grad(lambda x: linalg.qr(x, mode="raw")[1].sum())(TALL)


def test_integer_input_takes_jaxs_inexact_dtype():
    # JAX's to_inexact_dtype: int32 → float32, int64 → float64
    ints = np.array([[2, 1], [1, 3]])
    assert linalg.det(ints.astype(np.int32)).dtype == np.float32
    assert linalg.det(ints).dtype == np.float64
    assert linalg.norm(np.array([3, 4], np.int32)).dtype == np.float32
    np.testing.assert_allclose(float(linalg.det(ints.astype(np.int32))), 5.0)
    assert linalg.matrix_rank(np.float64(2.0)).dtype == np.int32


def test_lstsq_residuals_of_a_wide_system_are_there_as_in_jax():
    b = RNG.standard_normal(3)
    x, residuals, rank, _ = linalg.lstsq(WIDE, b)
    assert residuals.shape == (1,) and int(rank) == 3
    np.testing.assert_allclose(np.asarray(residuals), [0.0], atol=1e-20)
    np.testing.assert_allclose(np.asarray(x), np.linalg.lstsq(WIDE, b)[0])


@pytest.mark.parametrize("fn", [tnp.fft.fftfreq, tnp.fft.rfftfreq], ids=["fftfreq", "rfftfreq"])
def test_fftfreq_takes_a_traced_spacing(fn):
    numpy_fn = getattr(np.fft, fn.__name__)
    np.testing.assert_allclose(np.asarray(tf8.jit(lambda d: fn(6, d))(0.5)), numpy_fn(6, 0.5))
    # d/dd (k / (d n)) = −k / (d² n)
    grad = tf8.grad(lambda d: fn(6, d).sum())(0.5)
    np.testing.assert_allclose(float(grad), -numpy_fn(6, 1.0).sum() / 0.25)
    batched = tf8.vmap(lambda d: fn(5, d))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(np.asarray(batched), [numpy_fn(5, 1.0), numpy_fn(5, 2.0)])


def test_tensorsolve_needs_bs_shape_in_as_leading_axes():
    # numpy only compares element counts; JAX raises a ValueError when the shapes differ
    with pytest.raises(ShapeError, match="tensorsolve"):
        linalg.tensorsolve(RNG.standard_normal((2, 3, 6)), RNG.standard_normal((3, 2)))
    a = RNG.standard_normal((2, 3, 6)) + np.eye(6).reshape(2, 3, 6) * 3
    b = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(np.asarray(linalg.tensorsolve(a, b)), np.linalg.tensorsolve(a, b))


@pytest.mark.parametrize(
    "a",
    [
        np.array([[1.0, 2.0], [2.0, 4.0]]),
        np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]),
    ],
    ids=["rank1", "rank2"],
)
def test_det_differentiates_at_a_singular_matrix(a):
    # d det = tr(adj(A) dA) (Jacobi), adj(A) the cofactor transpose, defined when det = 0;
    # JAX's gradient at [[1, 2], [2, 4]] is [[4, -2], [-2, 1]]
    cofactors = np.array(
        [
            [
                (-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1))
                for j in range(len(a))
            ]
            for i in range(len(a))
        ]
    )
    np.testing.assert_allclose(np.asarray(tf8.grad(linalg.det)(a)), cofactors, atol=1e-12)
    tf8.check_grads(linalg.det, [a], order=2)
    if len(a) == 2:  # det is bilinear in 2 x 2: its Hessian is constant
        expected = np.array([[0, 0, 0, 1], [0, 0, -1, 0], [0, -1, 0, 0], [1, 0, 0, 0]])
        hessian = np.asarray(tf8.hessian(linalg.det)(a)).reshape(4, 4)
        np.testing.assert_allclose(hessian, expected, atol=1e-12)
