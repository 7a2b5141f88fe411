"""tf8.fft: values against numpy.fft, derivatives (float64 and complex128), Parseval, errors."""

import itertools

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import fft
from tf8.errors import DTypeError, ParameterError

RNG = np.random.default_rng(0)
REAL = RNG.standard_normal((2, 6))
COMPLEX = REAL + 1j * RNG.standard_normal((2, 6))

CASES = [
    (kind, norm, n, x)
    for kind, norm, n, x in itertools.product(
        ("fft", "ifft", "rfft", "irfft"), ("backward", "ortho", "forward"), (None, 4, 9), ("r", "c")
    )
    if not (kind == "rfft" and x == "c")
]


@pytest.mark.parametrize("kind,norm,n,x", CASES)
def test_matches_numpy_and_derivatives_check(kind, norm, n, x):
    data = REAL if x == "r" else COMPLEX
    f = lambda a: getattr(fft, kind)(a, n=n, norm=norm)  # noqa: E731
    np.testing.assert_allclose(
        np.asarray(f(data)), getattr(np.fft, kind)(data, n=n, norm=norm), atol=1e-12
    )
    tf8.check_grads(f, [data], order=1)


@pytest.mark.parametrize("kind", ["fft", "rfft", "irfft"])
def test_other_axis_and_second_order(kind):
    data = RNG.standard_normal((5, 3))
    f = lambda a: getattr(fft, kind)(a, n=6, axis=0)  # noqa: E731
    np.testing.assert_allclose(np.asarray(f(data)), getattr(np.fft, kind)(data, n=6, axis=0))
    tf8.check_grads(lambda a: tnp.sum(tnp.abs(f(a)) ** 2), [data], order=2)


def test_parseval_energy_and_its_gradient():
    energy = lambda a: tnp.sum(tnp.abs(fft.fft(a, norm="ortho")) ** 2)  # noqa: E731
    np.testing.assert_allclose(energy(COMPLEX), np.sum(np.abs(COMPLEX) ** 2))
    np.testing.assert_allclose(tf8.grad(energy)(REAL), 2 * REAL, rtol=1e-12)


def test_bad_arguments():
    with pytest.raises(ParameterError, match="norm"):
        fft.fft(REAL, norm="nope")
    with pytest.raises(ParameterError, match="axis"):
        fft.fft(REAL, axis=2)
    with pytest.raises(ParameterError, match="n must"):
        fft.rfft(REAL, n=0)
    with pytest.raises(DTypeError, match="real"):
        fft.rfft(COMPLEX)


def test_float32_stays_single_precision():
    assert fft.fft(REAL.astype(np.float32)).dtype == np.complex64
    assert fft.irfft(fft.rfft(REAL.astype(np.float32))).dtype == np.float32


# --- n-D transforms -----------------------------------------------------------------------

CUBE = RNG.standard_normal((3, 4, 5))
COMPLEX_CUBE = CUBE + 1j * RNG.standard_normal((3, 4, 5))
ND_OPTIONS = [
    {},
    {"axes": (0, 2)},
    {"s": (4, 6), "axes": (-2, -1)},
    {"s": (2, -1), "axes": (2, 0)},
    {"axes": (1, 1)},
    {"s": (3, 4, 7), "axes": (0, 1, 2), "norm": "ortho"},
    {"axes": (-1, 0), "norm": "forward"},
]
ND_CASES = [
    (kind, options, x)
    for kind in ("fftn", "ifftn", "rfftn", "irfftn")
    for options in ND_OPTIONS
    for x in ("r", "c")
    if not (kind == "rfftn" and x == "c")
]


@pytest.mark.parametrize("kind,options,x", ND_CASES)
def test_nd_matches_numpy_and_derivatives_check(kind, options, x):
    data = CUBE if x == "r" else COMPLEX_CUBE
    f = lambda a: getattr(fft, kind)(a, **options)  # noqa: E731
    expected = getattr(np.fft, kind)(data, **options)
    got = np.asarray(f(data))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-12)
    tf8.check_grads(f, [data], order=1)


@pytest.mark.parametrize("kind", ["fft2", "ifft2", "rfft2", "irfft2"])
def test_2d_transforms_and_second_order(kind):
    f = lambda a: getattr(fft, kind)(a, s=(3, 6), norm="ortho")  # noqa: E731
    expected = getattr(np.fft, kind)(CUBE, s=(3, 6), norm="ortho")
    np.testing.assert_allclose(np.asarray(f(CUBE)), expected, atol=1e-12)
    tf8.check_grads(lambda a: tnp.sum(tnp.abs(f(a)) ** 2), [CUBE], order=2)


def test_nd_round_trips_and_argument_errors():
    # s without axes means the last len(s) axes (numpy 2 deprecates it, tf8 keeps it)
    np.testing.assert_allclose(
        np.asarray(fft.fftn(CUBE, s=(2, 7))), np.fft.fftn(CUBE, (2, 7), (1, 2))
    )
    np.testing.assert_allclose(np.asarray(fft.irfftn(fft.rfftn(CUBE), s=CUBE.shape)), CUBE)
    np.testing.assert_allclose(np.asarray(fft.ifftn(fft.fftn(COMPLEX_CUBE))), COMPLEX_CUBE)
    with pytest.raises(ParameterError, match="differ in length"):
        fft.fftn(CUBE, s=(2, 3), axes=(0,))
    with pytest.raises(ParameterError, match="axis"):
        fft.fft2(CUBE, axes=(0, 3))
    with pytest.raises(ParameterError):
        fft.rfftn(CUBE, axes=())


# --- complex inputs to second order -------------------------------------------------------


@pytest.mark.parametrize("kind", ["fft", "ifft", "irfft", "fftn", "irfftn"])
def test_complex_second_order(kind):
    tf8.check_grads(lambda a: getattr(fft, kind)(a, norm="ortho"), [COMPLEX_CUBE[0]], order=2)
    quadratic = lambda a: tnp.sum(tnp.abs(getattr(fft, kind)(a)) ** 2)  # noqa: E731
    tf8.check_grads(quadratic, [COMPLEX_CUBE[0]], order=2)
