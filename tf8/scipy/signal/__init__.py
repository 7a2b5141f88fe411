"""tf8.scipy.signal: the signal processing functions of `jax.scipy.signal`, differentiable.

Convolution and correlation (`convolve`, `correlate`, their 2-D forms, `fftconvolve`),
spectral analysis (`stft`, `istft`, `welch`, `csd`) and `detrend`. Each is written on
tf8.numpy and tf8.lax, so it runs eagerly, under `jit` and `vmap`, and differentiates to any
order. Names, signatures, defaults and dtypes are JAX's; each docstring says where that
differs from scipy.
"""

from ._convolve import convolve, convolve2d, correlate, correlate2d, fftconvolve
from ._detrend import detrend
from ._istft import istft
from ._spectral import csd, stft, welch

__all__ = [
    "convolve",
    "convolve2d",
    "correlate",
    "correlate2d",
    "csd",
    "detrend",
    "fftconvolve",
    "istft",
    "stft",
    "welch",
]
