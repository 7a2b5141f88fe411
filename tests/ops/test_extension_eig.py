"""tf8.linalg.eig/eigvals: values against numpy, LAPACK's normalisation, derivatives, pruning."""

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import linalg
from tf8.errors import ShapeError
from tf8.ops.extension import linalg as ops

RNG = np.random.default_rng(3)
REAL = RNG.standard_normal((4, 4))  # two real eigenvalues and a complex pair
COMPLEX = REAL + 1j * RNG.standard_normal((4, 4))
BATCH = RNG.standard_normal((2, 3, 3))


@pytest.mark.parametrize("a", [REAL, COMPLEX, BATCH], ids=["real", "complex", "batch"])
def test_values_match_numpy_and_are_complex(a):
    w, v = linalg.eig(a)
    w0, v0 = np.linalg.eig(a)
    assert w.dtype == v.dtype == np.complex128
    np.testing.assert_allclose(np.asarray(w), w0, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(v), v0, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(np.asarray(linalg.eigvals(a)), np.linalg.eigvals(a), rtol=1e-12)


def test_real_spectrum_is_complex_too_and_float32_gives_complex64():
    sym = REAL + REAL.T
    assert np.iscomplexobj(np.asarray(linalg.eigvals(sym)))
    assert linalg.eig(REAL.astype(np.float32))[0].dtype == np.complex64


@pytest.mark.parametrize("a", [REAL, COMPLEX, BATCH], ids=["real", "complex", "batch"])
def test_eigenvalue_and_eigenvector_derivatives_check(a):
    tf8.check_grads(linalg.eig, [a], order=1)
    tf8.check_grads(linalg.eigvals, [a], order=2)


def test_eigenvector_second_order():
    tf8.check_grads(lambda a: linalg.eig(a)[1], [REAL], order=2)


def test_eigenvector_tangent_keeps_lapack_normalisation():
    # unit norm and a real largest component: the tangent moves neither
    tangent = RNG.standard_normal((4, 4)) + 1j * RNG.standard_normal((4, 4))
    _, (_, dv) = tf8.jvp(linalg.eig, (COMPLEX,), (tangent,))
    _, v = np.linalg.eig(COMPLEX)
    np.testing.assert_allclose(np.real(np.sum(np.conj(v) * dv, axis=0)), 0, atol=1e-12)
    largest = np.argmax(np.abs(v), axis=0)
    np.testing.assert_allclose(np.imag(dv[largest, range(4)]), 0, atol=1e-12)


def test_trace_is_sum_of_eigenvalues_with_identity_gradient():
    grad = tf8.grad(lambda a: tnp.real(tnp.sum(linalg.eigvals(a))))(REAL)
    np.testing.assert_allclose(grad, np.eye(4), atol=1e-12)


def test_unused_eigenvectors_prune_to_eigvals():
    program_ops = tf8.make_program(lambda a: linalg.eig(a)[0])(REAL).ops
    assert any(isinstance(op, ops.Eigvals) for op in program_ops)
    assert not any(isinstance(op, ops.Eig) for op in program_ops)


def test_non_square_is_a_shape_error():
    with pytest.raises(ShapeError, match=r"\(3, 4\)"):
        linalg.eig(np.ones((3, 4)))
