"""tf8.scipy.linalg's special matrices against scipy.linalg's, batched like a loop, under jit,
differentiable where built from their inputs, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import tf8
from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.scipy import linalg

RNG = np.random.default_rng(3)
C, R = RNG.standard_normal(4), RNG.standard_normal(3)

# name -> (arguments, scipy's call)
FROM_VECTORS = {
    "toeplitz": ((C, R), scipy.linalg.toeplitz),
    "toeplitz_symmetric": ((C,), scipy.linalg.toeplitz),
    "hankel": ((C, R), scipy.linalg.hankel),
    "hankel_zeros": ((C,), scipy.linalg.hankel),
    "circulant": ((C,), scipy.linalg.circulant),
    "leslie": ((C, R), scipy.linalg.leslie),
    "companion": ((C,), scipy.linalg.companion),
    "fiedler": ((C,), scipy.linalg.fiedler),
    "fiedler_companion": ((C,), scipy.linalg.fiedler_companion),
}


def _ours(name):
    return getattr(linalg, name.split("_symmetric")[0].split("_zeros")[0])


@pytest.mark.parametrize("name", sorted(FROM_VECTORS))
def test_matrices_from_vectors_match_scipy_and_differentiate(name):
    args, theirs = FROM_VECTORS[name]
    ours = _ours(name)
    np.testing.assert_allclose(ours(*args), theirs(*args), rtol=1e-14)
    np.testing.assert_allclose(tf8.jit(ours)(*args), theirs(*args), rtol=1e-14)
    if name != "fiedler":  # |a_i − a_j| has kinks at ties only, but C has none: checked too
        tf8.check_grads(ours, list(args), order=2)
    else:
        tf8.check_grads(ours, list(args), order=1)


@pytest.mark.parametrize("name", sorted(FROM_VECTORS))
def test_leading_axes_are_a_batch_as_in_jax(name):
    args, theirs = FROM_VECTORS[name]
    batch = [np.stack([a, a + 1.0, 2 * a]) for a in args]
    found = np.asarray(_ours(name)(*batch))
    for k in range(3):
        np.testing.assert_allclose(found[k], theirs(*(b[k] for b in batch)), rtol=1e-14)
    mapped = tf8.vmap(_ours(name))(*batch)
    np.testing.assert_allclose(mapped, found, rtol=1e-14)


def test_batch_axes_broadcast_between_column_and_row():
    cols, rows = RNG.standard_normal((2, 1, 4)), RNG.standard_normal((3, 5))
    found = np.asarray(linalg.toeplitz(cols, rows))
    assert found.shape == (2, 3, 4, 5)
    np.testing.assert_allclose(found[1, 2], scipy.linalg.toeplitz(cols[1, 0], rows[2]))


@pytest.mark.parametrize("n", [1, 2, 5])
@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_convolution_matrix(n, mode):
    expected = scipy.linalg.convolution_matrix(C, n, mode)
    np.testing.assert_allclose(linalg.convolution_matrix(C, n, mode), expected)
    v = RNG.standard_normal(n)
    np.testing.assert_allclose(expected @ v, np.convolve(C, v, mode)[: expected.shape[0]])
    tf8.check_grads(lambda a: linalg.convolution_matrix(a, n, mode), [C], order=1)


@pytest.mark.parametrize("n", [1, 2, 4, 7])
def test_matrices_of_a_size(n):
    for kind in (None, "lower", "upper"):
        np.testing.assert_allclose(
            linalg.pascal(n, kind), scipy.linalg.pascal(n, kind or "symmetric")
        )
        np.testing.assert_allclose(
            linalg.invpascal(n, kind), scipy.linalg.invpascal(n, kind or "symmetric")
        )
    assert np.asarray(linalg.pascal(n)).dtype == np.float32  # JAX's dtype
    np.testing.assert_allclose(linalg.hilbert(n), scipy.linalg.hilbert(n))
    np.testing.assert_allclose(linalg.invhilbert(n), scipy.linalg.invhilbert(n, exact=True))
    np.testing.assert_allclose(linalg.helmert(n), scipy.linalg.helmert(n), atol=1e-15)
    np.testing.assert_allclose(linalg.helmert(n, full=True), scipy.linalg.helmert(n, full=True))
    for scale in (None, "sqrtn", "n"):
        np.testing.assert_allclose(linalg.dft(n, scale), scipy.linalg.dft(n, scale), atol=1e-14)


def test_exact_inverses():
    for n in range(1, 7):
        identity = np.asarray(linalg.invhilbert(n)) @ scipy.linalg.hilbert(n)
        np.testing.assert_allclose(identity, np.eye(n), atol=1e-8 * 10**n)
        np.testing.assert_array_equal(
            np.asarray(linalg.invpascal(n)) @ np.asarray(linalg.pascal(n), float), np.eye(n)
        )


def test_hadamard_and_its_dtype():
    for n in (1, 2, 8):
        h = np.asarray(linalg.hadamard(n))
        assert h.dtype == np.int64
        np.testing.assert_array_equal(h, scipy.linalg.hadamard(n))
        np.testing.assert_array_equal(h @ h.T, n * np.eye(n))
    assert np.asarray(linalg.hadamard(4, dtype=np.float32)).dtype == np.float32


def test_block_diag():
    parts = [RNG.standard_normal((2, 3)), np.array(1.5), RNG.standard_normal(2)]
    np.testing.assert_allclose(linalg.block_diag(*parts), scipy.linalg.block_diag(*parts))
    empty = np.asarray(linalg.block_diag())
    assert empty.shape == (1, 0) and empty.dtype == np.float64
    assert np.asarray(linalg.block_diag(np.array([[1, 2]]), 3)).dtype == np.int64
    tf8.check_grads(lambda a, b: linalg.block_diag(a, b), [parts[0], parts[2]], order=1)


def test_dft_is_unitary_when_scaled_and_complex64_on_request():
    f = np.asarray(linalg.dft(5, "sqrtn"))
    np.testing.assert_allclose(f @ f.conj().T, np.eye(5), atol=1e-14)
    assert np.asarray(linalg.dft(3, dtype=np.complex64)).dtype == np.complex64


def test_errors():
    with pytest.raises(ShapeError, match="leslie"):
        linalg.leslie(C, C)
    with pytest.raises(ShapeError, match="companion"):
        linalg.companion([1.0])
    with pytest.raises(ShapeError, match="hankel"):
        linalg.hankel(1.0)
    with pytest.raises(ParameterError, match="convolution_matrix: n"):
        linalg.convolution_matrix(C, 0)
    with pytest.raises(ParameterError, match="mode"):
        linalg.convolution_matrix(C, 2, "middle")
    with pytest.raises(ParameterError, match="power of 2"):
        linalg.hadamard(3)
    with pytest.raises(ParameterError, match="kind"):
        linalg.pascal(3, "diagonal")
    with pytest.raises(DTypeError, match="complex"):
        linalg.dft(3, dtype=np.float64)
    with pytest.raises(ShapeError, match="at most 2 axes"):
        linalg.block_diag(np.ones((2, 2, 2)))
    with pytest.raises(ShapeError, match="do not broadcast"):
        linalg.toeplitz(np.ones((2, 3)), np.ones((3, 3)))
