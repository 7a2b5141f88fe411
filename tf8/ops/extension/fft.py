"""The fft family ("tf8.fft.v1"): fft, ifft, rfft, irfft along one axis.

Kernels (scipy.fft) are in `fft_kernels`; the ops are linear, and their JVP and transpose rules
are in `tf8.ad.families.fft`.
"""

from __future__ import annotations

from collections.abc import Sequence

from tf8.errors import DTypeError, ParameterError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.shapes import shape_str

from .base import ExtensionOp

NORMS = ("backward", "ortho", "forward")
KINDS = ("fft", "ifft", "rfft", "irfft")


class FFT(ExtensionOp):
    """One transform: payload `(kind, n, axis, norm)`; `n` is the transform length."""

    family = "tf8.fft.v1"

    def __init__(self, kind: str, n: int, axis: int, norm: str) -> None:
        super().__init__((kind, n, axis, norm), 1, 1)

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.payload[0]

    @property
    def axis(self) -> int:
        """The axis it transforms (the Dask engine keeps it one chunk)."""
        return self.payload[2]

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        kind, n, axis, _ = self.payload
        (a,) = avals
        wants_real = kind == "rfft"
        if (dt.is_complex(a.dtype) == wants_real) or a.dtype not in dt.INEXACT:
            need = "a real float" if wants_real else "a complex"
            raise DTypeError(f"{kind}: needs {need} operand, got {a.dtype}")
        if axis >= a.ndim:
            raise ParameterError(f"{kind}: axis {axis} out of range for {shape_str(a.shape)}")
        size = {"rfft": n // 2 + 1, "irfft": n}.get(kind, n)
        dtype = {"rfft": dt.complex_dtype, "irfft": dt.real_dtype}.get(kind, lambda d: d)(a.dtype)
        return (Aval((*a.shape[:axis], size, *a.shape[axis + 1 :]), dtype),)


__all__ = ["FFT", "KINDS", "NORMS"]
