"""tf8.fft: numpy.fft's transforms on traced values, differentiable; kernels from scipy.fft.

One-axis transforms (fft, ifft, rfft, irfft): `n` pads or truncates the input along `axis`
(irfft and hfft: the output length, default 2·(m − 1)). n-D transforms (fft2, ifft2, fftn, ifftn,
rfft2, irfft2, rfftn, irfftn) take numpy's `s` (lengths, -1 keeps an axis' size) and `axes`
(default: the last len(s) axes, or all) and compose one-axis ops as numpy does: rfftn is an
rfft of the last axis then ffts of the others; irfftn ifft's all but the last axis, then an
irfft of it. `norm` is "backward" (default), "ortho" or "forward". Real input to the complex
transforms is computed as complex; ops live in `tf8.ops.extension.fft` (family "tf8.fft.v1").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import AxisError, DTypeError, ParameterError
from tf8.lax.builders import broadcast, conj, convert, div, mul
from tf8.lax.fft import transform
from tf8.numpy._core import constant
from tf8.numpy._rearrange import roll
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor, tensor

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]

Lengths = Sequence[int] | None
Axes = Sequence[int] | None


def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> TracedTensor:
    """Discrete Fourier transform along `axis`."""
    return transform("fft", tensor(a), n, axis, norm)


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> TracedTensor:
    """Inverse discrete Fourier transform along `axis`."""
    return transform("ifft", tensor(a), n, axis, norm)


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> TracedTensor:
    """Fourier transform of real input: the n//2 + 1 non-negative frequencies."""
    return transform("rfft", tensor(a), n, axis, norm)


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> TracedTensor:
    """Inverse of rfft: real output of length `n` (default 2·(m − 1))."""
    return transform("irfft", tensor(a), n, axis, norm)


_SWAPPED = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> TracedTensor:
    """Fourier transform of a Hermitian-symmetric signal given by its first half: real output.

    Parameters: `a` (the m non-negative-frequency terms), `n` (output length along `axis`,
    default 2·(m − 1); `a` is cut or zero-padded to n // 2 + 1), `axis` (default -1),
    `norm` ("backward" (default: unscaled), "ortho" or "forward"). As numpy's and JAX's:
    irfft of conj(a) with the opposite normalisation. Output dtype is the real one of `a`'s
    inexact dtype (float64 for integers).

    >>> import tf8.numpy as tnp
    >>> tnp.fft.hfft(tnp.array([1.0, 2.0, 3.0]))
    Array([ 8., -2.,  0., -2.], dtype=float64)
    """
    t = tensor(a)
    if norm not in _SWAPPED:
        raise ParameterError(f"hfft: norm must be one of {tuple(_SWAPPED)[1:]}, got {norm!r}")
    return transform("irfft", conj(t), n, axis, _SWAPPED[norm])


def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> TracedTensor:
    """Inverse of hfft: the n // 2 + 1 first terms of the inverse transform of real `a`.

    Parameters: `a` (real), `n` (transform length along `axis`, default its size; `a` is cut
    or zero-padded to it), `axis` (default -1), `norm` ("backward" (default: scaled by 1/n),
    "ortho" or "forward"). As numpy's and JAX's: conj(rfft(a)) with the opposite
    normalisation; complex `a` is refused (DTypeError), as rfft refuses it.

    >>> import tf8.numpy as tnp
    >>> tnp.fft.ihfft(tnp.array([8.0, -2.0, 0.0, -2.0]))
    Array([1.-0.j, 2.-0.j, 3.-0.j], dtype=complex128)
    """
    t = tensor(a)
    if norm not in _SWAPPED:
        raise ParameterError(f"ihfft: norm must be one of {tuple(_SWAPPED)[1:]}, got {norm!r}")
    if dt.is_complex(t.dtype):
        raise DTypeError(f"ihfft: needs a real operand, got {t.aval}")
    return conj(transform("rfft", t, n, axis, _SWAPPED[norm]))


def _complex_nd(kind: str, a: Any, s: Lengths, axes: Axes, norm: str | None) -> TracedTensor:
    """fftn / ifftn: the 1-D transform along each axis, last axis first (numpy's order)."""
    x = tensor(a)
    lengths, axes = _lengths_and_axes(kind + "n", x, s, axes)
    for n, axis in reversed(list(zip(lengths, axes))):
        x = transform(kind, x, n, axis, norm)
    return _complex(x)


def fftn(a: Any, s: Lengths = None, axes: Axes = None, norm: str | None = None) -> TracedTensor:
    """n-D discrete Fourier transform over `axes`."""
    return _complex_nd("fft", a, s, axes, norm)


def ifftn(a: Any, s: Lengths = None, axes: Axes = None, norm: str | None = None) -> TracedTensor:
    """n-D inverse discrete Fourier transform over `axes`."""
    return _complex_nd("ifft", a, s, axes, norm)


def rfftn(a: Any, s: Lengths = None, axes: Axes = None, norm: str | None = None) -> TracedTensor:
    """n-D transform of real input: rfft over the last of `axes`, fft over the others."""
    x = tensor(a)
    lengths, axes = _lengths_and_axes("rfftn", x, s, axes)
    if not axes:
        raise ParameterError("rfftn: needs at least one axis")
    x = transform("rfft", x, lengths[-1], axes[-1], norm)
    for n, axis in reversed(list(zip(lengths[:-1], axes[:-1]))):
        x = transform("fft", x, n, axis, norm)
    return x


def irfftn(a: Any, s: Lengths = None, axes: Axes = None, norm: str | None = None) -> TracedTensor:
    """Inverse of rfftn: real output; the last axis gets length s[-1] (default 2·(m − 1))."""
    x = tensor(a)
    lengths, axes = _lengths_and_axes("irfftn", x, s, axes, inverse_real=True)
    if not axes:
        raise ParameterError("irfftn: needs at least one axis")
    for n, axis in zip(lengths[:-1], axes[:-1]):
        x = transform("ifft", x, n, axis, norm)
    return transform("irfft", x, lengths[-1], axes[-1], norm)


def fft2(a: Any, s: Lengths = None, axes: Axes = (-2, -1), norm: str | None = None) -> TracedTensor:
    """2-D discrete Fourier transform (fftn over the last two axes by default)."""
    return fftn(a, s, axes, norm)


def ifft2(
    a: Any, s: Lengths = None, axes: Axes = (-2, -1), norm: str | None = None
) -> TracedTensor:
    """2-D inverse discrete Fourier transform."""
    return ifftn(a, s, axes, norm)


def rfft2(
    a: Any, s: Lengths = None, axes: Axes = (-2, -1), norm: str | None = None
) -> TracedTensor:
    """2-D transform of real input."""
    return rfftn(a, s, axes, norm)


def irfft2(
    a: Any, s: Lengths = None, axes: Axes = (-2, -1), norm: str | None = None
) -> TracedTensor:
    """Inverse of rfft2."""
    return irfftn(a, s, axes, norm)


def _lengths_and_axes(
    name: str, x: TracedTensor, s: Lengths, axes: Axes, inverse_real: bool = False
) -> tuple[list[Any], list[int]]:
    """numpy's `_cook_nd_args`: the transform length per axis, and the axes."""
    if axes is None:
        axes = list(range(x.ndim)) if s is None else list(range(-len(s), 0))
    axes = [int(ax) for ax in axes]
    for ax in axes:
        if not -x.ndim <= ax < x.ndim:
            raise ParameterError(f"{name}: axis {ax} out of range for {x.ndim} axes")
    if s is None:
        lengths: list[Any] = [x.shape[ax] for ax in axes]
        if inverse_real and axes:
            lengths[-1] = 2 * (lengths[-1] - 1)
    else:
        lengths = list(s)
        if len(lengths) != len(axes):
            raise ParameterError(f"{name}: s {tuple(s)} and axes {tuple(axes)} differ in length")
        lengths = [x.shape[ax] if n == -1 else n for n, ax in zip(lengths, axes)]
    return lengths, axes


def _complex(x: TracedTensor) -> TracedTensor:
    """No axes transformed: numpy still returns a complex array."""
    return convert(x, dt.complex_dtype(dt.float_dtype(x.dtype)))


# --- helpers: frequencies and shifts -------------------------------------------------------


def fftfreq(n: int, d: Any = 1.0, *, dtype: Any = None) -> TracedTensor:
    """The sample frequencies of an n-point fft with sample spacing `d` (numpy's values, float64
    unless `dtype`, as JAX's with x64). `d` may be traced: the result is differentiable in it."""
    return _frequencies(np.fft.fftfreq, n, d, dtype)


def rfftfreq(n: int, d: Any = 1.0, *, dtype: Any = None) -> TracedTensor:
    """The n//2 + 1 non-negative sample frequencies of an n-point rfft."""
    return _frequencies(np.fft.rfftfreq, n, d, dtype)


def _frequencies(numpy_fn: Any, n: int, d: Any, dtype: Any) -> TracedTensor:
    """numpy_fn(n, d) as a constant when `d` is a number, else k / (d n) with k constant."""
    n = int(n)
    if not isinstance(d, TracedTensor):
        return constant(numpy_fn(n, d), dtype)
    out = dt.float64 if dtype is None else dt.as_dtype(dtype)
    inexact = dt.float_dtype(out)
    k = constant(numpy_fn(n, 1.0 / n), inexact)  # the integer frequencies, exactly
    if d.ndim:
        raise ParameterError(f"fftfreq: d must be a scalar, got shape {d.shape}")
    spacing = broadcast(convert(mul(d, n), inexact), k.shape, ())
    return convert(div(k, spacing), out)


def fftshift(x: Any, axes: int | Sequence[int] | None = None) -> TracedTensor:
    """Move the zero frequency to the centre: roll each of `axes` (default all) by n // 2."""
    return _shift(x, axes, lambda n: n // 2)


def ifftshift(x: Any, axes: int | Sequence[int] | None = None) -> TracedTensor:
    """Undo fftshift: roll each of `axes` (default all) by -(n // 2)."""
    return _shift(x, axes, lambda n: -(n // 2))


def _shift(x: Any, axes: int | Sequence[int] | None, amount: Any) -> TracedTensor:
    t = tensor(x)
    if axes is None:
        axes = tuple(range(t.ndim))
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes),)
    if not axes:
        return t
    for ax in axes:
        if not -t.ndim <= ax < t.ndim:
            raise AxisError(f"fftshift: axis {ax} is out of range for an array of {t.ndim} axes")
    return roll(t, [amount(t.shape[ax]) for ax in axes], tuple(axes))
