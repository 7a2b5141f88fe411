"""`istft`: the signal back from its short-time Fourier transform, by windowed overlap-add."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8.errors import AxisError, ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._frames import complex_of, hann, named_window, overlap_add

__all__ = ["istft"]


def istft(
    Zxx: Any,
    fs: Any = 1.0,
    window: Any = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    input_onesided: bool = True,
    boundary: bool = True,
    time_axis: int = -1,
    freq_axis: int = -2,
) -> tuple[TracedTensor, TracedTensor]:
    """Inverse short-time Fourier transform, as `scipy.signal.istft`: returns (t, x).

    Parameters: `Zxx` (at least 2-D: frequencies along `freq_axis`, segments along
    `time_axis`), `fs`, `window` (as `stft`'s), `nperseg` (default from Zxx: 2·(m − 1) if
    `input_onesided`, else m), `noverlap` (default nperseg // 2), `nfft` (default from Zxx),
    `input_onesided` (Zxx holds the rfft half), `boundary` (stft extended the signal: cut
    nperseg // 2 from each end). x is real for one-sided input, complex otherwise; its time
    axis replaces Zxx's two axes at the place of `time_axis`.

    >>> import numpy as np
    >>> import tf8.scipy.signal as tsig
    >>> x = np.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0])
    >>> _, _, Z = tsig.stft(x, nperseg=4)
    >>> t, back = tsig.istft(Z)
    >>> back.round(6) + 0.0
    Array([1., 2., 3., 2., 1., 0., 1., 2.], dtype=float64)

    As scipy's (where JAX differs): `noverlap=0` means no overlap (JAX takes nperseg // 2);
    the NOLA condition is not checked (samples no window covers come back as 0).
    """
    z = tnp.asarray(Zxx)
    if z.ndim < 2:
        raise ShapeError(f"istft: Zxx must be at least 2-D, got {z.aval}")
    axes = []
    for what, value in (("freq_axis", freq_axis), ("time_axis", time_axis)):
        if not -z.ndim <= operator.index(value) < z.ndim:
            raise AxisError(f"istft: {what}={value} is out of range for Zxx {z.aval}")
        axes.append(operator.index(value) % z.ndim)
    freq_axis, time_axis = axes
    if freq_axis == time_axis:
        raise ParameterError("istft: time_axis and freq_axis must differ")
    z = z.astype(complex_of(dt.float_dtype(z.dtype)))
    default = 2 * (z.shape[freq_axis] - 1) if input_onesided else z.shape[freq_axis]
    nperseg = default if nperseg is None else operator.index(nperseg)
    if nperseg < 1:
        raise ParameterError(f"istft: nperseg must be a positive integer, got {nperseg}")
    if nfft is None:
        nfft = default + 1 if input_onesided and nperseg == default + 1 else default
    nfft = operator.index(nfft)
    if nfft < nperseg:
        raise ParameterError(f"istft: nfft={nfft} must be at least nperseg={nperseg}")
    noverlap = nperseg // 2 if noverlap is None else operator.index(noverlap)
    if noverlap >= nperseg:
        raise ParameterError(f"istft: noverlap={noverlap} must be less than nperseg={nperseg}")
    step = nperseg - noverlap
    outer = [i for i in range(z.ndim) if i not in (time_axis, freq_axis)]
    z = tnp.transpose(z, (*outer, time_axis, freq_axis))  # (..., segments, frequencies)
    inverse = tnp.fft.irfft if input_onesided else tnp.fft.ifft
    segments = inverse(z, n=nfft, axis=-1)[..., :nperseg]
    win = _window(window, nperseg, segments.dtype)
    segments = segments * (win * tnp.sum(win))  # the sum undoes stft's "spectrum" scaling
    x = overlap_add(segments, step)
    squares = tnp.broadcast_to(win * win, (segments.shape[-2], nperseg))
    norm = overlap_add(squares, step)
    if boundary:
        cut = nperseg // 2
        x = x[..., cut : x.shape[-1] - cut]
        norm = norm[..., cut : norm.shape[-1] - cut]
    x = x / tnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != z.ndim - 1:
        place = time_axis - 1 if freq_axis < time_axis else time_axis
        x = tnp.moveaxis(x, -1, place)
    time = tnp.asarray(np.arange(x.shape[0], dtype=dt.real_dtype(x.dtype))) / fs
    return time, x


def _window(window: Any, nperseg: int, dtype: np.dtype) -> TracedTensor:
    if isinstance(window, (str, tuple)):
        values = hann(nperseg) if window == "hann" else named_window("istft", window, nperseg)
        return tnp.asarray(values.astype(dt.real_dtype(dtype)))
    win = tnp.asarray(window)
    if win.ndim != 1:
        raise ShapeError(f"istft: window must be 1-D, got {win.aval}")
    if win.shape[0] != nperseg:
        raise ShapeError(f"istft: window {win.aval} must have length nperseg={nperseg}")
    return win.astype(dtype) if dt.is_complex(win.dtype) else win.astype(dt.real_dtype(dtype))
