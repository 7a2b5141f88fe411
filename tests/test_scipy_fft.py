"""tf8.scipy.fft's dct/idct/dctn/idctn and tf8.numpy.fft's hfft/ihfft against scipy.fft and
numpy.fft; under jit, vmap and derivatives to second order; bad arguments refused."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.fft as sfft

import tf8
import tf8.numpy as tnp
from tf8.errors import AxisError, DTypeError, ParameterError
from tf8.scipy import fft

RNG = np.random.default_rng(34)
REAL = RNG.normal(size=(3, 7))
CUBE = RNG.normal(size=(2, 5, 4))
COMPLEX = RNG.normal(size=(6,)) + 1j * RNG.normal(size=(6,))


@pytest.mark.parametrize("name", ["dct", "idct"])
@pytest.mark.parametrize("norm", [None, "backward", "ortho"])
@pytest.mark.parametrize("n", [None, 1, 4, 7, 10])
@pytest.mark.parametrize("axis", [0, -1])
def test_dct_and_idct_match_scipy(name: str, norm: str | None, n: int | None, axis: int) -> None:
    got = getattr(fft, name)(REAL, n=n, axis=axis, norm=norm)
    want = getattr(sfft, name)(REAL, type=2, n=n, axis=axis, norm=norm)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["dctn", "idctn"])
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"axes": (0, 2)}, {"axes": 1}, {"s": (3, 6)}, {"s": (4, 2, 3)}, {"norm": "ortho"}],
)
def test_dctn_and_idctn_match_scipy(name: str, kwargs: dict) -> None:
    got = getattr(fft, name)(CUBE, **kwargs)
    np.testing.assert_allclose(np.asarray(got), getattr(sfft, name)(CUBE, **kwargs), atol=1e-12)


@pytest.mark.parametrize("name", ["dct", "idct", "dctn", "idctn"])
def test_complex_input_is_transformed_by_parts(name: str) -> None:
    got = getattr(fft, name)(COMPLEX)
    assert got.dtype == np.complex128
    np.testing.assert_allclose(np.asarray(got), getattr(sfft, name)(COMPLEX), atol=1e-12)


@pytest.mark.parametrize(
    ("dtype", "out"),
    [(np.float32, np.float32), (np.int64, np.float64), (np.int32, np.float32)],
)
def test_dct_dtypes_follow_jax(dtype: type, out: type) -> None:
    x = np.arange(5).astype(dtype)
    assert fft.dct(x).dtype == out and fft.idct(x).dtype == out


@pytest.mark.parametrize("norm", [None, "ortho"])
def test_idct_inverts_dct(norm: str | None) -> None:
    np.testing.assert_allclose(np.asarray(fft.idct(fft.dct(REAL, norm=norm), norm=norm)), REAL)
    np.testing.assert_allclose(
        np.asarray(fft.idctn(fft.dctn(CUBE, norm=norm), norm=norm)), CUBE, atol=1e-12
    )


@pytest.mark.parametrize("name", ["dct", "idct", "dctn", "idctn"])
def test_jit_and_vmap_agree_with_eager(name: str) -> None:
    f = getattr(fft, name)
    np.testing.assert_allclose(np.asarray(tf8.jit(f)(REAL)), np.asarray(f(REAL)), atol=1e-12)
    batched = tf8.vmap(lambda x: f(x, norm="ortho"))(CUBE)
    loop = np.stack([np.asarray(f(c, norm="ortho")) for c in CUBE])
    np.testing.assert_allclose(np.asarray(batched), loop, atol=1e-12)


@pytest.mark.parametrize("name", ["dct", "idct"])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dct_derivatives_to_second_order(name: str, norm: str | None) -> None:
    f = getattr(fft, name)
    tf8.check_grads(lambda x: f(x, n=5, norm=norm), [REAL[0]], order=2)
    tf8.check_grads(lambda z: f(z, norm=norm), [COMPLEX], order=2)


def test_dctn_derivatives_to_second_order() -> None:
    tf8.check_grads(lambda x: fft.idctn(fft.dctn(x, s=(2, 3, 3)) ** 2), [CUBE], order=2)


def test_dct_grad_is_the_transposed_matrix() -> None:
    """dct is linear: the gradient of <c, dct(x)> is Mᵀ c for scipy's matrix M."""
    c = RNG.normal(size=7)
    matrix = sfft.dct(np.eye(7), axis=0)
    grad = tf8.grad(lambda x: tnp.sum(fft.dct(x) * c))(REAL[0])
    np.testing.assert_allclose(np.asarray(grad), matrix.T @ c, atol=1e-12)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: fft.dct(REAL, type=3), ParameterError),
        (lambda: fft.idct(REAL, norm="forward"), ParameterError),
        (lambda: fft.dct(REAL, axis=2), AxisError),
        (lambda: fft.dct(REAL, n=0), ParameterError),
        (lambda: fft.dctn(REAL, s=(2, 2, 2)), ParameterError),
        (lambda: fft.idctn(CUBE, s=(2, 2), axes=(0,)), ParameterError),
        (lambda: fft.dctn(CUBE, axes=(0, 0)), ParameterError),
    ],
)
def test_bad_arguments_are_refused(call, error) -> None:
    with pytest.raises(error, match="dct"):
        call()


# --- hfft / ihfft -------------------------------------------------------------------------


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("n", [None, 3, 8, 11])
def test_hfft_and_ihfft_match_numpy(norm: str | None, n: int | None) -> None:
    np.testing.assert_allclose(
        np.asarray(tnp.fft.hfft(COMPLEX, n=n, norm=norm)), np.fft.hfft(COMPLEX, n=n, norm=norm)
    )
    np.testing.assert_allclose(
        np.asarray(tnp.fft.ihfft(REAL, n=n, axis=0, norm=norm)),
        np.fft.ihfft(REAL, n=n, axis=0, norm=norm),
        atol=1e-14,
    )


def test_hfft_dtypes_follow_jax() -> None:
    assert tnp.fft.hfft(np.arange(4)).dtype == np.float64
    assert tnp.fft.hfft(COMPLEX.astype(np.complex64)).dtype == np.float32
    assert tnp.fft.ihfft(np.arange(4, dtype=np.float32)).dtype == np.complex64


def test_hfft_jit_vmap_and_derivatives() -> None:
    batch = RNG.normal(size=(3, 4)) + 1j * RNG.normal(size=(3, 4))
    np.testing.assert_allclose(
        np.asarray(tf8.jit(tnp.fft.hfft)(batch)), np.fft.hfft(batch), atol=1e-12
    )
    loop = np.stack([np.fft.ihfft(r, n=5) for r in REAL])
    batched = tf8.vmap(lambda r: tnp.fft.ihfft(r, n=5))(REAL)
    np.testing.assert_allclose(np.asarray(batched), loop, atol=1e-14)
    tf8.check_grads(lambda z: tnp.fft.hfft(z, n=7, norm="ortho"), [COMPLEX], order=2)
    tf8.check_grads(lambda x: tnp.fft.ihfft(x, n=9), [REAL[0]], order=2)


def test_hfft_and_ihfft_refuse_bad_arguments() -> None:
    with pytest.raises(DTypeError, match="ihfft"):
        tnp.fft.ihfft(COMPLEX)
    with pytest.raises(ParameterError, match="hfft"):
        tnp.fft.hfft(COMPLEX, norm="bogus")
    with pytest.raises(ParameterError):
        tnp.fft.hfft(COMPLEX, n=0)
