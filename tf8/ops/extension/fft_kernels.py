"""The fft family's kernel, keyed by op class: `kernel(op, a)`, from scipy.fft."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from .fft import FFT


def fft_kernel(op: FFT, a: np.ndarray) -> np.ndarray:
    kind, n, axis, norm = op.payload
    return getattr(importlib.import_module("scipy.fft"), kind)(a, n=n, axis=axis, norm=norm)


KERNELS: dict[type, Callable[..., Any]] = {FFT: fft_kernel}
