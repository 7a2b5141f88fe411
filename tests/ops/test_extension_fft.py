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
