"""tf8.linalg: lstsq, pinv, matrix_power, norm and full SVD against numpy, with derivatives."""

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import linalg
from tf8.errors import ParameterError, ShapeError
from tf8.ops.extension import linalg as ops

RNG = np.random.default_rng(7)
TALL = RNG.standard_normal((6, 3))
WIDE = RNG.standard_normal((3, 5))
SQUARE = RNG.standard_normal((3, 3)) + 2 * np.eye(3)
STACK = RNG.standard_normal((2, 3, 4))


@pytest.mark.parametrize(
    "a,b",
    [(TALL, RNG.standard_normal((6, 2))), (TALL, RNG.standard_normal(6)), (WIDE, np.ones(3))],
    ids=["tall", "tall_vector", "wide_vector"],
)
def test_lstsq_matches_numpy_and_x_differentiates(a, b):
    got = linalg.lstsq(a, b)
    expected = list(np.linalg.lstsq(a, b))
    if a.shape[0] <= a.shape[1]:  # JAX's residuals are always there: ‖A x − b‖² ≈ 0 here
        expected[1] = np.zeros((1,) if b.ndim == 1 else b.shape[1:])
    for g, e in zip(got, expected):
        assert np.shape(g) == np.shape(e)
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-10, atol=1e-12)
    tf8.check_grads(lambda x, y: linalg.lstsq(x, y)[0], [a, b], order=2)


def test_lstsq_closed_form_gradient_on_the_residual():
    # ½‖A x(b) − b‖² = ½‖(I − A A⁺) b‖², whose gradient is the residual r = b − A x
    b = RNG.standard_normal(6)
    residual = b - TALL @ np.linalg.lstsq(TALL, b)[0]
    grad = tf8.grad(lambda y: 0.5 * tnp.sum((TALL @ linalg.lstsq(TALL, y)[0] - y) ** 2))(b)
    np.testing.assert_allclose(grad, residual, atol=1e-12)


def test_lstsq_rcond_sets_the_rank():
    deficient = np.outer(np.arange(1.0, 5.0), np.ones(3)) + 1e-9 * RNG.standard_normal((4, 3))
    assert int(np.asarray(linalg.lstsq(deficient, np.ones(4))[2])) == 3
    assert int(np.asarray(linalg.lstsq(deficient, np.ones(4), rcond=1e-6)[2])) == 1


@pytest.mark.parametrize(
    "a", [TALL, WIDE, SQUARE, TALL + 1j * TALL[::-1]], ids=["tall", "wide", "square", "complex"]
)
def test_pinv_matches_numpy_and_differentiates(a):
    np.testing.assert_allclose(np.asarray(linalg.pinv(a)), np.linalg.pinv(a), atol=1e-12)
    tf8.check_grads(linalg.pinv, [a], order=1)


def test_pinv_second_order_and_batch():
    tf8.check_grads(linalg.pinv, [STACK], order=2)
    np.testing.assert_allclose(np.asarray(linalg.pinv(STACK, rcond=1e-8)), np.linalg.pinv(STACK))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6, -1, -2])
def test_matrix_power_matches_numpy(n):
    np.testing.assert_allclose(
        np.asarray(linalg.matrix_power(SQUARE, n)), np.linalg.matrix_power(SQUARE, n)
    )
    tf8.check_grads(lambda a: linalg.matrix_power(a, n), [SQUARE], order=1)


def test_matrix_power_integers_batches_and_errors():
    ints = np.arange(9).reshape(3, 3)
    got = np.asarray(linalg.matrix_power(ints, 5))
    assert got.dtype == ints.dtype
    np.testing.assert_array_equal(got, np.linalg.matrix_power(ints, 5))
    batch = RNG.standard_normal((2, 2, 2))
    np.testing.assert_allclose(
        np.asarray(linalg.matrix_power(batch, 3)), np.linalg.matrix_power(batch, 3)
    )
    with pytest.raises(TypeError, match="integer"):
        linalg.matrix_power(SQUARE, 1.5)
    with pytest.raises(ShapeError):
        linalg.matrix_power(TALL, 2)


MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]
VECTOR_ORDS = [None, 0, 1, 2, 3, 0.5, -1, np.inf, -np.inf]


@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norms_match_numpy_and_differentiate(ord):
    np.testing.assert_allclose(np.asarray(linalg.norm(WIDE, ord)), np.linalg.norm(WIDE, ord))
    for axis, keepdims in [((2, 0), False), ((0, 1), True)]:
        np.testing.assert_allclose(
            np.asarray(linalg.norm(STACK, ord, axis, keepdims)),
            np.linalg.norm(STACK, ord, axis, keepdims),
        )
    tf8.check_grads(lambda a: linalg.norm(a, ord, axis=(2, 0)), [STACK], order=1)


@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norms_match_numpy(ord):
    v = STACK[0, 0]
    np.testing.assert_allclose(np.asarray(linalg.norm(v, ord)), np.linalg.norm(v, ord))
    np.testing.assert_allclose(
        np.asarray(linalg.norm(STACK, ord, axis=1, keepdims=True)),
        np.linalg.norm(STACK, ord, axis=1, keepdims=True),
    )
    if ord != 0:
        tf8.check_grads(lambda a: linalg.norm(a, ord, axis=-1), [STACK], order=1)


def test_norm_of_complex_and_integer_input_and_errors():
    c = STACK + 1j * STACK[::-1]
    for ord in ("fro", "nuc", 2):
        np.testing.assert_allclose(
            np.asarray(linalg.norm(c, ord, axis=(1, 2))), np.linalg.norm(c, ord, axis=(1, 2))
        )
    tf8.check_grads(lambda a: linalg.norm(a, "nuc", axis=(1, 2)), [c], order=1)
    np.testing.assert_allclose(np.asarray(linalg.norm(STACK)), np.linalg.norm(STACK))
    assert np.asarray(linalg.norm(np.arange(4))).dtype == np.float64
    with pytest.raises(ParameterError):
        linalg.norm(WIDE, "nope")
    with pytest.raises(ParameterError):
        linalg.norm(WIDE[0], "fro")
    with pytest.raises(ShapeError):
        linalg.norm(STACK, 2)
    with pytest.raises(ShapeError):
        linalg.norm(STACK, axis=(1, 1))


@pytest.mark.parametrize("a", [TALL, WIDE, STACK], ids=["tall", "wide", "batch"])
def test_full_svd_matches_numpy_and_differentiates_basis_free_parts(a):
    got, expected = linalg.svd(a), np.linalg.svd(a)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g), e, atol=1e-12)
    k = min(a.shape[-2:])

    def basis_free(x):
        u, s, vh = linalg.svd(x)
        u_c, vh_c = u[..., :, k:], vh[..., k:, :]
        return u[..., :, :k], s, vh[..., :k, :], u_c @ tnp.swapaxes(u_c, -1, -2), vh_c.mT @ vh_c

    tf8.check_grads(basis_free, [a], order=1)


def test_full_svd_values_only_prunes():
    program_ops = tf8.make_program(lambda a: tnp.sum(linalg.svd(a)[1]))(TALL).ops
    assert any(isinstance(op, ops.Svdvals) for op in program_ops)
    np.testing.assert_allclose(
        tf8.grad(lambda a: tnp.sum(linalg.svd(a)[1]))(TALL),
        np.linalg.svd(TALL, False)[0] @ np.linalg.svd(TALL, False)[2],
    )
