"""`jax.scipy.signal`: convolution and correlation (n-D, 2-D, through the fft; each mode,
method and dtype, the larger operand first or second), `detrend`, and the spectral functions
`stft`, `istft`, `welch` and `csd` over their keywords (windows by name and as traced arrays,
boundaries, padding, detrending, one- and two-sided spectra, median averaging, other axes),
with the arguments JAX refuses."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..spec import Case, Static

MODES = ("full", "same", "valid")


def _draw(rng: np.random.Generator, shape: tuple, dtype=np.float64) -> np.ndarray:
    x = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return x.astype(dtype)


def _convolutions(rng: np.random.Generator) -> Iterator[Case]:
    pairs = [
        (_draw(rng, (9,)), _draw(rng, (4,))),
        (_draw(rng, (3,)), _draw(rng, (8,))),  # the larger second
        (_draw(rng, (5, 6)), _draw(rng, (2, 3))),
        (_draw(rng, (2, 3), np.complex128), _draw(rng, (4, 4), np.complex128)),
    ]
    for name in ("convolve", "correlate"):
        full = f"scipy.signal.{name}"
        for a, b in pairs:
            for mode in MODES:
                yield Case(full, (a, b), {"mode": mode})
            yield Case(full, (a, b), {"mode": "same", "method": "fft"})
        yield Case(full, (_draw(rng, (7,), np.float32), _draw(rng, (3,), np.float32)))
        yield Case(full, (np.arange(6, dtype=np.int64), np.array([1, -1], np.int64)))
        yield Case(full, (np.arange(6, dtype=np.int32), np.array([1, 2], np.int32)))
        yield Case(full, (_draw(rng, (3, 4, 3)), _draw(rng, (2, 2, 2))), {"mode": "same"})
        yield Case(full, (_draw(rng, (8,)), _draw(rng, (3,), np.complex128)), {"mode": "valid"})
        yield Case(full, (_draw(rng, (4,)), _draw(rng, (4, 1))))  # refused: ranks differ
        yield Case(full, (_draw(rng, (4, 2)), _draw(rng, (2, 4))))  # refused: neither larger
        yield Case(full, (pairs[0][0], pairs[0][1]), {"mode": "bogus"})  # refused
        yield Case(full, (pairs[0][0], pairs[0][1]), {"method": "bogus"})  # refused
    for name in ("convolve2d", "correlate2d"):
        full = f"scipy.signal.{name}"
        shapes = [((5, 6), (2, 3)), ((2, 3), (4, 5)), ((3, 3), (3, 3)), ((4, 2), (3, 2))]
        for s1, s2 in shapes:
            a, b = _draw(rng, s1), _draw(rng, s2)
            for mode in MODES:
                yield Case(full, (a, b), {"mode": mode})
        a, b = _draw(rng, (4, 5), np.complex128), _draw(rng, (2, 2), np.complex128)
        for mode in MODES:
            yield Case(full, (a, b), {"mode": mode})
            yield Case(full, (b, a), {"mode": mode})
        yield Case(full, (_draw(rng, (4, 4), np.float32), _draw(rng, (2, 3), np.float32)))
        yield Case(full, (_draw(rng, (5,)), _draw(rng, (2,))))  # refused: 1-D
        yield Case(full, (a, b), {"boundary": "wrap"})  # refused
        yield Case(full, (a, b), {"fillvalue": 1.0})  # refused
    full = "scipy.signal.fftconvolve"
    for a, b in pairs:
        for mode in MODES:
            yield Case(full, (a, b), {"mode": mode})
    yield Case(full, (_draw(rng, (7,), np.float32), _draw(rng, (3,), np.float32)))
    yield Case(full, (np.arange(5, dtype=np.int64), np.array([1, 2, 1], np.int64)))
    cube, kernel = _draw(rng, (3, 8, 4)), _draw(rng, (3, 3, 4))
    for axes in ((1,), (1, 2), (-2,)):
        for mode in MODES:
            yield Case(full, (cube, kernel), {"mode": mode, "axes": axes})
    yield Case(full, (_draw(rng, (1, 4)), _draw(rng, (3, 1))))  # only ones against sizes
    yield Case(full, (_draw(rng, (4,)), _draw(rng, (4, 1))))  # refused: ranks differ
    yield Case(full, (cube, _draw(rng, (2, 3, 4))), {"axes": (1,)})  # refused: other axes
    yield Case(full, (_draw(rng, (4, 2)), _draw(rng, (2, 4))), {"mode": "valid"})  # refused


def _detrends(rng: np.random.Generator) -> Iterator[Case]:
    full = "scipy.signal.detrend"
    x = _draw(rng, (12, 3)) + np.arange(12.0)[:, None]
    for kind in ("linear", "constant"):
        yield Case(full, (x,), {"type": kind})
        yield Case(full, (x,), {"type": kind, "axis": 0})
    yield Case(full, (x,), {"axis": 0, "bp": (4, 9)})
    yield Case(full, (x,), {"axis": 0, "bp": 11})
    yield Case(full, (_draw(rng, (10,), np.float32),))
    yield Case(full, (np.array([1, 4, 8, 8, 9], np.int64),))
    yield Case(full, (_draw(rng, (9,), np.complex128),))
    yield Case(full, (_draw(rng, (2, 3, 7)),), {"axis": 1, "type": "constant"})
    yield Case(full, (x,), {"type": "bogus"})  # refused
    yield Case(full, (x,), {"axis": 0, "bp": 20})  # refused


def _spectra(rng: np.random.Generator) -> Iterator[Case]:
    x = _draw(rng, (48,))
    batch = _draw(rng, (2, 40))
    stft = "scipy.signal.stft"
    yield Case(stft, (x,), {"nperseg": 16})
    yield Case(stft, (x, 4.0), {"nperseg": 12, "noverlap": 4})
    yield Case(stft, (batch,), {"nperseg": 10, "nfft": 13})
    yield Case(stft, (batch.T,), {"nperseg": 8, "axis": 0})
    for boundary in ("even", "odd", "constant", None):
        yield Case(stft, (x,), {"nperseg": 8, "boundary": boundary})
    yield Case(stft, (x,), {"nperseg": 9, "padded": False, "boundary": None})
    yield Case(stft, (x,), {"nperseg": 8, "detrend": "linear"})
    yield Case(stft, (x,), {"nperseg": 8, "detrend": "constant"})
    yield Case(stft, (x,), {"nperseg": 8, "return_onesided": False})
    yield Case(stft, (x,), {"nperseg": 10, "window": "hamming"})
    yield Case(stft, (x, 1.0, rng.uniform(0.5, 1.0, 8), Static(8)))  # a traced window
    yield Case(stft, (x.astype(np.float32),), {"nperseg": 16})
    yield Case(stft, (np.arange(20, dtype=np.int64),), {"nperseg": 8})
    yield Case(stft, (_draw(rng, (30,), np.complex128),), {"nperseg": 8})
    yield Case(stft, (_draw(rng, (20,)),))  # nperseg 256 > 20: cut to 20
    yield Case(stft, (x,), {"nperseg": 8, "noverlap": 8})  # refused
    yield Case(stft, (x,), {"nperseg": 8, "nfft": 4})  # refused
    yield Case(stft, (x,), {"nperseg": 8, "boundary": "bogus"})  # refused
    istft = "scipy.signal.istft"
    spectrum = _draw(rng, (9, 7), np.complex128)
    yield Case(istft, (spectrum,))
    yield Case(istft, (spectrum, 2.0), {"nperseg": 16, "noverlap": 12})
    yield Case(istft, (spectrum,), {"nperseg": 15, "nfft": 16})
    yield Case(istft, (spectrum,), {"boundary": False})
    yield Case(istft, (spectrum,), {"window": "hamming"})
    yield Case(istft, (spectrum, 1.0, rng.uniform(0.5, 1.0, 16)))  # a traced window
    yield Case(istft, (_draw(rng, (8, 5), np.complex128),), {"input_onesided": False})
    yield Case(istft, (_draw(rng, (2, 5, 4), np.complex128),))
    yield Case(istft, (_draw(rng, (5, 2, 4), np.complex128),), {"freq_axis": 0})
    yield Case(istft, (_draw(rng, (4, 5, 2), np.complex128),), {"time_axis": 0, "freq_axis": 1})
    yield Case(istft, (spectrum.astype(np.complex64),))
    yield Case(istft, (_draw(rng, (9, 7)),))  # real input: made complex
    yield Case(istft, (_draw(rng, (9,), np.complex128),))  # refused: 1-D
    yield Case(istft, (spectrum,), {"time_axis": 0, "freq_axis": 0})  # refused
    yield Case(istft, (spectrum,), {"nperseg": 16, "nfft": 8})  # refused
    long, other = _draw(rng, (64,)), _draw(rng, (64,))
    for name in ("welch", "csd"):
        full = f"scipy.signal.{name}"
        first = (long,) if name == "welch" else (long, other)
        yield Case(full, first, {"nperseg": 16})
        yield Case(full, first)  # nperseg None: one segment, as JAX
        yield Case(full, (*first, 8.0), {"nperseg": 16, "noverlap": 4})
        yield Case(full, first, {"nperseg": 16, "average": "median"})
        yield Case(full, first, {"nperseg": 16, "scaling": "spectrum"})
        yield Case(full, first, {"nperseg": 16, "nfft": 21})
        yield Case(full, first, {"nperseg": 16, "detrend": "linear"})
        yield Case(full, first, {"nperseg": 16, "detrend": False})
        yield Case(full, first, {"nperseg": 16, "return_onesided": False})
        yield Case(full, first, {"nperseg": 12, "window": ("tukey", 0.25)})
        yield Case(full, tuple(v.astype(np.float32) for v in first), {"nperseg": 16})
        yield Case(full, tuple(_draw(rng, (2, 32)) for _ in first), {"nperseg": 8})
        yield Case(full, tuple(_draw(rng, (32, 2)) for _ in first), {"nperseg": 8, "axis": 0})
        yield Case(full, tuple(_draw(rng, (30,), np.complex128) for _ in first), {"nperseg": 8})
        yield Case(full, first, {"nperseg": 16, "scaling": "bogus"})  # refused
        yield Case(full, first, {"nperseg": 16, "average": "bogus"})  # refused
    csd = "scipy.signal.csd"
    yield Case(csd, (_draw(rng, (2, 40)), _draw(rng, (1, 32))), {"nperseg": 8})  # broadcast
    yield Case(csd, (long, Static(None)), {"nperseg": 16})  # y None: x's own, complex
    yield Case(csd, (_draw(rng, (2, 40)), _draw(rng, (3, 40))), {"nperseg": 8})  # refused


def cases() -> Iterator[Case]:
    rng = np.random.default_rng(34)
    yield from _convolutions(rng)
    yield from _detrends(rng)
    yield from _spectra(rng)
