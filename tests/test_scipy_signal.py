"""tf8.scipy.signal against scipy.signal: convolution and correlation, detrend, stft, istft,
welch and csd over their keywords; under jit and vmap; derivatives to second order against
finite differences; bad arguments refused with tf8.errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.signal as ss

import tf8
import tf8.numpy as tnp
from tf8.errors import AxisError, ParameterError, ShapeError
from tf8.scipy import signal

RNG = np.random.default_rng(34)


def _draw(shape: tuple, complex_: bool = False) -> np.ndarray:
    x = RNG.normal(size=shape)
    return x + 1j * RNG.normal(size=shape) if complex_ else x


def _close(got, want, tol: float = 1e-10) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


MODES = ("full", "same", "valid")
PAIRS = [((7,), (3,)), ((3,), (7,)), ((5, 6), (2, 3)), ((2, 3), (5, 6)), ((4, 5, 3), (2, 2, 2))]


@pytest.mark.parametrize(("s1", "s2"), PAIRS)
@pytest.mark.parametrize("complex_", [False, True])
@pytest.mark.parametrize("mode", MODES)
def test_convolutions_match_scipy(s1: tuple, s2: tuple, complex_: bool, mode: str) -> None:
    a, b = _draw(s1, complex_), _draw(s2, complex_)
    for method in ("direct", "fft"):
        _close(signal.convolve(a, b, mode, method), ss.convolve(a, b, mode, method))
        _close(signal.correlate(a, b, mode, method), ss.correlate(a, b, mode, method))
    _close(signal.fftconvolve(a, b, mode), ss.fftconvolve(a, b, mode))
    if len(s1) == 2:
        _close(signal.convolve2d(a, b, mode), ss.convolve2d(a, b, mode))
        _close(signal.correlate2d(a, b, mode), ss.correlate2d(a, b, mode))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axes", [1, (1, 2), (-2,)])
def test_fftconvolve_over_some_axes_matches_scipy(mode: str, axes) -> None:
    a, b = _draw((3, 10, 4)), _draw((3, 4, 4))
    _close(signal.fftconvolve(a, b, mode, axes=axes), ss.fftconvolve(a, b, mode, axes=axes))


def test_convolution_dtypes_follow_jax() -> None:
    f32 = np.ones(4, np.float32)
    assert signal.convolve(f32, f32).dtype == np.float32
    assert signal.fftconvolve(f32, f32).dtype == np.float32
    assert signal.convolve(np.arange(4), np.arange(2)).dtype == np.float64
    assert signal.correlate(f32, f32.astype(np.complex64)).dtype == np.complex64


@pytest.mark.parametrize("name", ["convolve", "correlate", "fftconvolve"])
def test_convolution_jit_vmap_and_derivatives(name: str) -> None:
    f = getattr(signal, name)
    a, b = _draw((2, 9)), _draw((2, 4))
    _close(tf8.jit(lambda x, y: f(x, y, mode="same"))(a[0], b[0]), f(a[0], b[0], mode="same"))
    loop = np.stack([np.asarray(f(x, y)) for x, y in zip(a, b)])
    _close(tf8.vmap(f)(a, b), loop)
    tf8.check_grads(lambda x, y: f(x, y, mode="valid"), [a[0], b[0]], order=2)
    z = _draw((5,), True)
    tf8.check_grads(lambda x, y: f(x, y), [z, b[0] + 0j], order=2)


def test_2d_convolution_derivatives() -> None:
    a, b = _draw((4, 5)), _draw((2, 3))
    tf8.check_grads(lambda x, y: signal.convolve2d(x, y, mode="same"), [a, b], order=2)
    tf8.check_grads(lambda x, y: signal.correlate2d(y, x), [a, b], order=2)


@pytest.mark.parametrize("kind", ["linear", "constant"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_detrend_matches_scipy(kind: str, axis: int) -> None:
    x = _draw((20, 3)) + np.arange(20)[:, None]
    _close(signal.detrend(x, axis, kind), ss.detrend(x, axis, kind))


@pytest.mark.parametrize("bp", [5, [5, 12], [19], [0, 20], [1]])
def test_detrend_with_breakpoints_matches_scipy(bp) -> None:
    x = _draw((20, 3)) + np.arange(20)[:, None] ** 2
    _close(signal.detrend(x, 0, bp=bp), ss.detrend(x, 0, bp=bp))
    long = _draw((300,))
    _close(signal.detrend(long, bp=bp), ss.detrend(long, bp=bp))


def test_detrend_jit_vmap_and_derivatives() -> None:
    x = _draw((3, 12))
    f = lambda v: signal.detrend(v, bp=[4])  # noqa: E731
    _close(tf8.jit(f)(x[0]), f(x[0]))
    _close(tf8.vmap(f)(x), np.stack([np.asarray(f(r)) for r in x]))
    tf8.check_grads(lambda v: f(v) ** 2, [x[0]], order=2)


STFT_KEYWORDS = [
    {},
    {"nperseg": 64},
    {"nperseg": 64, "noverlap": 10},
    {"nperseg": 33, "nfft": 40},
    {"window": "hamming", "nperseg": 50},
    {"boundary": "even"},
    {"boundary": "odd"},
    {"boundary": "constant"},
    {"boundary": None, "padded": False},
    {"detrend": "linear", "nperseg": 40},
    {"detrend": "constant"},
    {"return_onesided": False, "nperseg": 20},
    {"window": ("tukey", 0.3), "nperseg": 31, "noverlap": 20},
    {"fs": 10.0, "nperseg": 16},
    {"nperseg": 16, "noverlap": 15},
]


@pytest.mark.parametrize("kwargs", STFT_KEYWORDS)
def test_stft_matches_scipy(kwargs: dict) -> None:
    x = _draw((2, 300))
    for got, want in zip(signal.stft(x, **kwargs), ss.stft(x, **kwargs)):
        _close(got, want)


def test_stft_of_other_axes_complex_signals_and_array_windows_matches_scipy() -> None:
    xt, xc = _draw((300, 2)), _draw((100,), True)
    cases = [
        ((xt,), {"nperseg": 32, "axis": 0}),
        ((xc,), {"nperseg": 16}),
        ((xt[:, 0],), {"window": np.hanning(30), "nperseg": 30}),
        ((xt,), {"nperseg": 32, "axis": 0, "detrend": lambda d: d - d.mean(0, keepdims=True)}),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args, kwargs in cases:
            for got, want in zip(signal.stft(*args, **kwargs), ss.stft(*args, **kwargs)):
                _close(got, want)


WELCH_KEYWORDS = [
    {"nperseg": 64},
    {"nperseg": 64, "average": "median"},
    {"nperseg": 50, "scaling": "spectrum"},
    {"nperseg": 64, "nfft": 65},
    {"nperseg": 64, "detrend": "linear"},
    {"nperseg": 64, "detrend": False},
    {"nperseg": 64, "return_onesided": False},
    {"nperseg": 300},
    {"nperseg": 64, "fs": 3.0, "window": "blackman"},
]


@pytest.mark.parametrize("kwargs", WELCH_KEYWORDS)
def test_welch_and_csd_match_scipy(kwargs: dict) -> None:
    x, y = _draw((2, 300)), _draw((2, 300))
    for got, want in zip(signal.welch(x, **kwargs), ss.welch(x, **kwargs)):
        _close(got, want)
    for got, want in zip(signal.csd(x, y, **kwargs), ss.csd(x, y, **kwargs)):
        _close(got, want)


def test_csd_pads_and_broadcasts_as_scipy() -> None:
    x, y = _draw((2, 300)), _draw((2, 300))
    _close(signal.csd(x, y[:, :250], nperseg=64)[1], ss.csd(x, y[:, :250], nperseg=64)[1])
    _close(signal.csd(x, y[:1], nperseg=64)[1], ss.csd(x, y[:1], nperseg=64)[1])
    assert signal.csd(x, None, nperseg=64)[1].dtype == np.float64  # y None: x's own, as JAX


def test_welch_takes_the_whole_signal_by_default_as_jax() -> None:
    x = _draw((100,))
    f, p = signal.welch(x)
    assert f.shape == p.shape == (51,)
    _close(p, ss.welch(x, nperseg=100)[1])


ISTFT_KEYWORDS = [
    {"nperseg": 64},
    {"nperseg": 64, "noverlap": 48},
    {"nperseg": 33, "nfft": 40},
    {"nperseg": 30, "window": "hamming"},
    {"nperseg": 32, "noverlap": 0, "window": "boxcar"},
]


@pytest.mark.parametrize("kwargs", ISTFT_KEYWORDS)
def test_istft_matches_scipy_and_inverts_stft(kwargs: dict) -> None:
    x = _draw((2, 300))
    _, _, z = ss.stft(x, **kwargs)
    for got, want in zip(signal.istft(z, **kwargs), ss.istft(z, **kwargs)):
        _close(got, want)
    _close(signal.istft(signal.stft(x, **kwargs)[2], **kwargs)[1][..., :300], x)


def test_istft_of_two_sided_and_moved_axes_matches_scipy() -> None:
    x, xt = _draw((2, 300)), _draw((300, 2))
    _, _, z = ss.stft(x, nperseg=32, return_onesided=False)
    kwargs = {"nperseg": 32, "input_onesided": False}
    _close(signal.istft(z, **kwargs)[1], ss.istft(z, **kwargs)[1])
    _, _, z = ss.stft(xt, nperseg=32, axis=0)
    kwargs = {"nperseg": 32, "time_axis": -1, "freq_axis": 0}
    _close(signal.istft(z, **kwargs)[1], ss.istft(z, **kwargs)[1])
    z3 = _draw((4, 17, 3)) + 0j
    _close(signal.istft(z3, time_axis=0, freq_axis=1)[1], ss.istft(z3, time_axis=0, freq_axis=1)[1])


def test_spectral_functions_under_jit_and_vmap() -> None:
    x = _draw((3, 64))
    stft = lambda v: signal.stft(v, nperseg=16)[2]  # noqa: E731
    _close(tf8.jit(stft)(x), stft(x))
    _close(tf8.vmap(stft)(x), np.stack([np.asarray(stft(r)) for r in x]))
    welch = lambda v, fs: signal.welch(v, fs, nperseg=16, average="median")[1]  # noqa: E731
    _close(tf8.jit(welch)(x, 2.0), welch(x, 2.0))
    _close(tf8.vmap(welch, (0, None))(x, 2.0), np.stack([np.asarray(welch(r, 2.0)) for r in x]))
    z = stft(x)
    istft = lambda v: signal.istft(v, nperseg=16)[1]  # noqa: E731
    _close(tf8.jit(istft)(z), istft(z))
    _close(tf8.vmap(istft)(z), np.stack([np.asarray(istft(r)) for r in z]))


def test_spectral_derivatives_to_second_order() -> None:
    x, y = _draw((40,)), _draw((40,))
    win = RNG.uniform(0.5, 1.0, 8)
    tf8.check_grads(lambda v: signal.stft(v, nperseg=8, detrend="linear")[2], [x], order=2)
    tf8.check_grads(lambda v, w: signal.stft(v, window=w, nperseg=8)[2], [x, win], order=2)
    tf8.check_grads(lambda v, fs: signal.welch(v, fs, nperseg=8), [x, 3.0], order=2)
    tf8.check_grads(lambda v, u: signal.csd(v, u, nperseg=8)[1], [x, y], order=2)
    tf8.check_grads(lambda v: signal.welch(v, nperseg=8, average="median")[1], [x], order=2)
    z = signal.stft(x, nperseg=8)[2]
    tf8.check_grads(lambda v: signal.istft(v, nperseg=8)[1], [np.asarray(z)], order=2)


def test_stft_gradient_has_its_closed_form() -> None:
    """With a boxcar window and no overlap each segment's stft is its rfft over 8: the
    gradient of Re <Zxx, c> is an irfft of c, checked exactly rather than by differences."""
    x = _draw((32,))
    frame = {"window": "boxcar", "nperseg": 8, "noverlap": 0, "boundary": None, "padded": False}
    c = np.asarray(signal.stft(_draw((32,)), **frame)[2])

    def inner(v):
        return tnp.real(tnp.sum(tnp.conj(signal.stft(v, **frame)[2]) * c))

    grad = tf8.grad(inner)(x)
    # d/dx_n Re Σ_k conj(Z_k) c_k = Re Σ_k c_k e^{2πikn/8} / 8 (the scale is 1/sum(window)),
    # an irfft of c with the ends (counted once by irfft's symmetry) weighted twice
    ends = np.array([2.0, 1.0, 1.0, 1.0, 2.0])[:, None]
    frames = np.fft.irfft(c * ends, n=8, axis=0) / 2
    _close(grad, frames.T.reshape(-1), 1e-12)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: signal.convolve(np.ones(3), np.ones((2, 2))), ShapeError, "convolve"),
        (lambda: signal.convolve(np.ones((4, 2)), np.ones((2, 4))), ShapeError, "convolve"),
        (lambda: signal.convolve(np.ones(3), np.ones(2), mode="x"), ParameterError, "mode"),
        (lambda: signal.correlate(np.ones(3), np.ones(2), method="x"), ParameterError, "method"),
        (lambda: signal.convolve(np.ones(0), np.ones(2)), ShapeError, "zero-size"),
        (lambda: signal.convolve2d(np.ones(3), np.ones(2)), ShapeError, "2-D"),
        (lambda: signal.correlate2d(np.eye(2), np.eye(2), "full", "wrap"), ParameterError, "bound"),
        (lambda: signal.fftconvolve(np.ones((3, 4)), np.ones((2, 3)), axes=0), ShapeError, "axes"),
        (lambda: signal.fftconvolve(np.ones(3), np.ones(2), axes=1), AxisError, "axis"),
        (lambda: signal.detrend(np.ones(5), type="x"), ParameterError, "type"),
        (lambda: signal.detrend(np.ones(5), bp=9), ParameterError, "breakpoints"),
        (lambda: signal.detrend(np.ones(5), axis=1), AxisError, "axis"),
        (lambda: signal.stft(np.ones(20), nperseg=8, noverlap=8), ParameterError, "noverlap"),
        (lambda: signal.stft(np.ones(20), nperseg=8, nfft=4), ParameterError, "nfft"),
        (lambda: signal.stft(np.ones(20), nperseg=0), ParameterError, "nperseg"),
        (lambda: signal.stft(np.ones(20), boundary="x"), ParameterError, "boundary"),
        (lambda: signal.stft(np.ones(20), 1.0, "nonesuch", 8), ParameterError, "window"),
        (lambda: signal.stft(np.ones(20), window=np.ones((2, 2))), ShapeError, "window"),
        (lambda: signal.stft(np.ones(4), window=np.ones(8)), ShapeError, "longer"),
        (lambda: signal.stft(np.ones(20), axis=1), AxisError, "axis"),
        (lambda: signal.welch(np.ones(20), scaling="x"), ParameterError, "scaling"),
        (lambda: signal.csd(np.ones((2, 20)), np.ones((3, 20))), ShapeError, "broadcast"),
        (lambda: signal.csd(np.ones(20), np.ones(20), average="x"), ParameterError, "average"),
        (lambda: signal.istft(np.ones(9)), ShapeError, "2-D"),
        (lambda: signal.istft(np.ones((9, 4)), time_axis=0, freq_axis=0), ParameterError, "differ"),
        (lambda: signal.istft(np.ones((9, 4)), nperseg=16, nfft=8), ParameterError, "nfft"),
    ],
)
def test_bad_arguments_are_refused(call, error, words: str) -> None:
    with pytest.raises(error, match=words):
        call()


def test_named_window_longer_than_the_signal_is_cut_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="nperseg"):
        f, _, z = signal.stft(np.ones(20))
    assert f.shape == (11,) and z.shape[0] == 11
