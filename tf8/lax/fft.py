"""Tracing-level fft: record one transform after checking its arguments (as scipy.fft), and
the pad/truncate to a transform length that the fft AD rules also use."""

from __future__ import annotations

from typing import Any

from tf8.errors import DTypeError, ParameterError
from tf8.lax.builders import convert, zeros
from tf8.lax.core import apply, apply1
from tf8.ops import dtypes as dt
from tf8.ops.extension.fft import FFT, NORMS
from tf8.ops.primitive import Aval
from tf8.ops.shapes import shape_str
from tf8.traced import TracedTensor


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


__all__ = ["resize", "transform"]
