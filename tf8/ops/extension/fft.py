"""The fft family ("tf8.fft.v1"): fft, ifft, rfft, irfft along one axis.

Kernels (scipy.fft) are in `fft_kernels`; the ops are linear, and their JVP and transpose rules
are in `tf8.ad.families.fft`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tf8.errors import DTypeError, ParameterError
from tf8.lax.builders import convert, zeros
from tf8.ops import dtypes as dt
from tf8.ops.primitive import Aval
from tf8.ops.shapes import shape_str
from tf8.traced import TracedTensor, apply, apply1

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


def resize(x: TracedTensor, axis: int, size: int) -> TracedTensor:
    """x truncated or zero-padded to `size` along `axis` (what scipy.fft does with `n`)."""
    m = x.shape[axis]
    if m == size:
        return x
    if m > size:
        limit = tuple(size if i == axis else d for i, d in enumerate(x.shape))
        return apply1("slice", [x], start=(0,) * x.ndim, limit=limit, strides=None)
    config = tuple((0, size - m if i == axis else 0, 0) for i in range(x.ndim))
    return apply1("pad", [x, zeros(Aval((), x.dtype))], config=config)


def transform(kind: str, a: TracedTensor, n: int | None, axis: int, norm: str | None) -> Any:
    """Record `kind` on `a` after checking and normalising its arguments (as scipy.fft)."""
    norm = "backward" if norm is None else norm
    if norm not in NORMS:
        raise ParameterError(f"{kind}: norm must be one of {NORMS}, got {norm!r}")
    if not -a.ndim <= axis < a.ndim:
        raise ParameterError(f"{kind}: axis {axis} out of range for {shape_str(a.shape)}")
    axis %= a.ndim
    if n is None:
        n = 2 * (a.shape[axis] - 1) if kind == "irfft" else a.shape[axis]
    if not isinstance(n, int) or n < 1:
        raise ParameterError(f"{kind}: n must be a positive int, got {n!r}")
    if kind == "rfft":
        if dt.is_complex(a.dtype):
            raise DTypeError(f"rfft: needs a real operand, got {a.dtype}")
        a = convert(a, dt.float_dtype(a.dtype))
    else:
        a = convert(a, dt.complex_dtype(dt.float_dtype(a.dtype)))
        if kind == "irfft":
            a = resize(a, axis, n // 2 + 1)
    return apply(FFT(kind, n, axis, norm), [a])[0]


__all__ = ["FFT", "KINDS", "NORMS", "resize", "transform"]
