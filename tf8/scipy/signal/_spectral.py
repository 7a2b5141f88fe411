"""Spectral estimates over overlapping windowed segments: `stft`, `csd` and `welch`.

One helper (scipy's `_spectral_helper`, in the form JAX gives it) checks the arguments,
extends and pads the signal, cuts it into segments (`_frames.frames`), detrends and windows
each one and transforms it. Everything is a composition of tf8.numpy, so it runs under
`jit`, `vmap`, `grad` and `jvp` with no rules of its own; `fs` and an array `window` may be
traced (the results are differentiable in them).
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import AxisError, ParameterError, ShapeError
from tf8.numpy._core import broadcast_shapes, inexact, promote
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._detrend import detrend as _detrend
from ._frames import BOUNDARIES, complex_of, extend, frames, window_array

__all__ = ["csd", "spectral", "stft", "welch"]


def _positive(name: str, what: str, value: Any) -> int:
    number = operator.index(value)
    if number < 1:
        raise ParameterError(f"{name}: {what} must be a positive integer, got {value!r}")
    return number


def _detrender(name: str, detrend: Any, axis: int, ndim: int) -> Callable:
    """Each segment's detrending (segments along the last axis)."""
    if isinstance(detrend, str):
        return lambda d: _detrend(d, axis=-1, type=detrend)
    if callable(detrend):
        if axis == ndim - 1:
            return detrend

        def along_axis(d: TracedTensor) -> TracedTensor:
            # as scipy: the callable sees each segment along the signal's own axis
            return tnp.moveaxis(detrend(tnp.moveaxis(d, -1, axis)), axis, -1)

        return along_axis
    if not detrend:
        return lambda d: d
    raise ParameterError(f"{name}: detrend must be a name, a callable or False, got {detrend!r}")


def _transform(
    x: TracedTensor,
    win: TracedTensor,
    detrend: Callable,
    sizes: tuple[int, int, int],
    onesided: bool,
) -> TracedTensor:
    """The windowed transforms of x's segments: (..., nseg, nfft // 2 + 1 if onesided else
    nfft); `sizes` is (nperseg, step, nfft)."""
    nperseg, step, nfft = sizes
    segments = detrend(frames(x, nperseg, step))
    if dt.is_complex(win.dtype):
        segments = segments.astype(complex_of(segments.dtype))
    segments = win * segments
    if onesided:
        return tnp.fft.rfft(lax.real(segments), n=nfft)
    return tnp.fft.fft(segments, n=nfft)


def spectral(
    name: str,
    x: Any,
    y: Any,
    fs: Any = 1.0,
    window: Any = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: Any = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    mode: str = "psd",
    boundary: str | None = None,
    padded: bool = False,
) -> tuple[TracedTensor, TracedTensor, TracedTensor]:
    """(frequencies, segment times, spectra) as scipy's `_spectral_helper`; `y` None means
    x's own spectrum (mode "psd" or "stft"), else the cross spectrum (mode "psd")."""
    if mode not in ("psd", "stft"):
        raise ParameterError(f"{name}: mode must be 'psd' or 'stft', got {mode!r}")
    if boundary not in BOUNDARIES:
        raise ParameterError(f"{name}: boundary must be one of {BOUNDARIES}, got {boundary!r}")
    if scaling not in ("density", "spectrum"):
        raise ParameterError(f"{name}: scaling must be 'density' or 'spectrum', got {scaling!r}")
    axis = operator.index(axis)
    if y is None:
        x = inexact(x)
    else:
        x, y = (inexact(v) for v in promote(x, y))
        if x.ndim != y.ndim:
            raise ShapeError(f"{name}: x and y must have the same rank, got {x.aval} and {y.aval}")
    if not -x.ndim <= axis < x.ndim:
        raise AxisError(f"{name}: axis {axis} is out of range for x {x.aval}")
    axis %= x.ndim
    drop = [i for i in range(x.ndim) if i != axis]
    outer = tuple(x.shape[i] for i in drop)
    if y is not None:
        try:
            outer = broadcast_shapes([x.shape[i] for i in drop], [y.shape[i] for i in drop])
        except ShapeError:
            raise ShapeError(f"{name}: x {x.aval} and y {y.aval} cannot be broadcast") from None
    result_dtype = complex_of(x.dtype)
    freq_dtype = dt.real_dtype(result_dtype)
    if nperseg is not None:
        nperseg = _positive(name, "nperseg", nperseg)
    win, nperseg = window_array(name, window, nperseg, x.shape[axis], x.dtype)
    noverlap = nperseg // 2 if noverlap is None else operator.index(noverlap)
    nfft = nperseg if nfft is None else operator.index(nfft)
    if x.size == 0 or (y is not None and y.size == 0):
        length = x.shape[axis] if y is None else min(x.shape[axis], y.shape[axis])
        shape = (*outer[:axis], length, *outer[axis:])
        zeros = tnp.zeros(shape, freq_dtype)
        return zeros, zeros, tnp.zeros(shape, result_dtype)
    x = tnp.moveaxis(x, axis, -1)
    if y is not None:
        y = tnp.moveaxis(y, axis, -1)
        longest = max(x.shape[-1], y.shape[-1])
        x, y = (_zero_pad(v, longest - v.shape[-1]) for v in (x, y))
    if nfft < nperseg:
        raise ParameterError(f"{name}: nfft={nfft} must be at least nperseg={nperseg}")
    if noverlap >= nperseg:
        raise ParameterError(f"{name}: noverlap={noverlap} must be less than nperseg={nperseg}")
    step = nperseg - noverlap
    signals = [v for v in (x, y) if v is not None]
    signals = [extend(name, v, boundary, nperseg // 2) for v in signals]
    if padded:  # a whole number of segments
        signals = [_zero_pad(v, (-(v.shape[-1] - nperseg) % step) % nperseg) for v in signals]
    length = signals[0].shape[-1]
    detrend_fn = _detrender(name, detrend, axis, x.ndim)
    if scaling == "density":
        scale = 1.0 / (fs * tnp.sum(win * win))
    else:
        scale = 1.0 / tnp.sum(win) ** 2
    onesided = bool(return_onesided)
    if onesided and dt.is_complex(x.dtype):
        onesided = False
        warnings.warn(
            f"{name}: input data is complex, switching to return_onesided=False", stacklevel=3
        )
    freqs = (tnp.fft.rfftfreq if onesided else tnp.fft.fftfreq)(nfft, 1 / fs, dtype=freq_dtype)
    if mode == "stft":  # the scale folded into the window: one pass less over the result
        win = win * tnp.sqrt(scale)
    sizes = (nperseg, step, nfft)
    spectra = [_transform(v, win, detrend_fn, sizes, onesided) for v in signals]
    if mode == "stft":
        result = spectra[0]
    else:
        result = tnp.conj(spectra[0]) * spectra[-1]
        result = result * scale.astype(complex_of(scale.dtype))
        if onesided:
            doubled = np.full(result.shape[-1], 2.0)
            doubled[0] = 1.0
            if nfft % 2 == 0:
                doubled[-1] = 1.0
            result = result * doubled.astype(dt.real_dtype(result.dtype))
    times = np.arange(nperseg / 2, length - nperseg / 2 + 1, step, dtype=freq_dtype)
    time = tnp.asarray(times) / fs
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = lax.real(result)
    return freqs, time, tnp.moveaxis(result, -1, axis)


def _zero_pad(x: TracedTensor, count: int) -> TracedTensor:
    return x if count == 0 else tnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, count)])


def stft(
    x: Any,
    fs: Any = 1.0,
    window: Any = "hann",
    nperseg: int = 256,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: Any = False,
    return_onesided: bool = True,
    boundary: str | None = "zeros",
    padded: bool = True,
    axis: int = -1,
) -> tuple[TracedTensor, TracedTensor, TracedTensor]:
    """Short-time Fourier transform, as `scipy.signal.stft`: returns (f, t, Zxx).

    Parameters: `x` (the signal, time along `axis`), `fs` (sampling frequency), `window` (a
    name or (name, parameter) tuple of `scipy.signal.get_window`, or a 1-D array, possibly
    traced), `nperseg` (segment length, at most the signal's), `noverlap` (default
    nperseg // 2), `nfft` (transform length, default nperseg), `detrend` (False, "constant",
    "linear" or a callable on a segment), `return_onesided` (the rfft half for real x),
    `boundary` ("zeros", "even", "odd", "constant" or None: how x is extended by nperseg // 2
    at each end), `padded` (zero-pad to a whole number of segments), `axis`. Zxx has the
    frequencies at `axis` and the segments last; it is complex of x's precision.

    >>> import numpy as np
    >>> import tf8.scipy.signal as tsig
    >>> f, t, Z = tsig.stft(np.arange(8.0), nperseg=4)
    >>> f.shape, t.shape, Z.shape, Z.dtype
    ((3,), (5,), (3, 5), dtype('complex128'))

    As JAX's: no `scaling` argument (always scipy's "spectrum"). As scipy's (where JAX
    differs): a callable `detrend` sees the segments with time along `axis` (JAX moves the
    axes the other way).
    """
    return spectral(
        "stft",
        x,
        None,
        fs,
        window,
        nperseg,
        noverlap,
        nfft,
        detrend,
        return_onesided,
        scaling="spectrum",
        axis=axis,
        mode="stft",
        boundary=boundary,
        padded=padded,
    )


def csd(
    x: Any,
    y: Any,
    fs: Any = 1.0,
    window: Any = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: Any = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    average: str = "mean",
) -> tuple[TracedTensor, TracedTensor]:
    """Cross power spectral density by Welch's method, as `scipy.signal.csd`: (f, Pxy).

    Parameters: `x`, `y` (signals; y None gives x's own spectrum, as `welch` but complex),
    `fs`, `window`, `nperseg`, `noverlap`, `nfft`, `detrend`, `return_onesided`, `axis`
    (as `stft`), `scaling` ("density", per Hz, or "spectrum"), `average` ("mean" or
    "median" of the segments' periodograms, the median bias-corrected as scipy's).

    >>> import numpy as np
    >>> import tf8.scipy.signal as tsig
    >>> f, P = tsig.csd(np.sin(np.arange(64.0)), np.cos(np.arange(64.0)), nperseg=16)
    >>> f.shape, P.shape, P.dtype
    ((9,), (9,), dtype('complex128'))

    As JAX's: `nperseg=None` takes the whole signal as one segment (scipy takes 256), and a
    csd(x, y) is the cross spectrum even when y is x.
    """
    if average not in ("mean", "median"):
        raise ParameterError(f"csd: average must be 'mean' or 'median', got {average!r}")
    segments = (window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis)
    freqs, _, pxy = spectral("csd", x, y, fs, *segments, mode="psd")
    if y is not None:
        pxy = pxy.astype(complex_of(pxy.dtype))
    if pxy.ndim >= 2 and pxy.size > 0:
        count = pxy.shape[-1]
        if count == 1:
            pxy = pxy[..., 0]
        elif average == "mean":
            pxy = tnp.mean(pxy, axis=-1)
        else:
            pxy = _median(pxy) / np.asarray(_median_bias(count), dt.real_dtype(pxy.dtype))
    return freqs, pxy


def welch(
    x: Any,
    fs: Any = 1.0,
    window: Any = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: Any = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    average: str = "mean",
) -> tuple[TracedTensor, TracedTensor]:
    """Power spectral density by Welch's method, as `scipy.signal.welch`: (f, Pxx), real.

    Parameters: as `csd` without `y`.

    >>> import numpy as np
    >>> import tf8.scipy.signal as tsig
    >>> f, P = tsig.welch(np.sin(np.arange(256.0)), nperseg=64)
    >>> int(np.argmax(P)), float(f[np.argmax(P)]) * 2 * np.pi  # the peak: 1 rad per sample
    (10, 0.9817477042468103)

    As JAX's: `nperseg=None` takes the whole signal as one segment (scipy takes 256).
    """
    segments = (window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis)
    freqs, pxx = csd(x, None, fs, *segments, average=average)
    return freqs, lax.real(pxx)


def _median(p: TracedTensor) -> TracedTensor:
    if not dt.is_complex(p.dtype):
        return tnp.median(p, axis=-1)
    return lax.complex(tnp.median(lax.real(p), axis=-1), tnp.median(lax.imag(p), axis=-1))


def _median_bias(n: int) -> float:
    """The median's bias against the mean over n periodograms (scipy's `_median_bias`)."""
    even = np.arange(2.0, n, 2)
    return float(1 + np.sum(1.0 / (even + 1) - 1.0 / even))
