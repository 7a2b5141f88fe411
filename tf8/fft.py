"""tf8.fft: numpy.fft's one-axis transforms on traced values, differentiable; kernels scipy.fft.

`n` pads or truncates the input along `axis` (irfft: the output length, default
2·(m − 1)); `norm` is "backward" (default), "ortho" or "forward", as numpy. Real input to
fft/ifft is computed as complex; ops live in `tf8.ops.extension.fft` (family "tf8.fft.v1").
"""

from __future__ import annotations

from typing import Any

from tf8.ops.extension.fft import transform
from tf8.traced import TracedTensor, tensor

__all__ = ["fft", "ifft", "irfft", "rfft"]


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
