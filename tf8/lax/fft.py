"""Tracing-level fft: record one transform after checking its arguments (as scipy.fft), the
pad/truncate to a transform length that the fft AD rules also use, and JAX's `lax.fft`
(bound as `tf8.lax.fft`, over this module's name: `from tf8.lax.fft import ...` still
imports the module)."""

from __future__ import annotations

from typing import Any

from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.lax.builders import convert, zeros
from tf8.lax.core import apply, apply1
from tf8.ops import dtypes as dt
from tf8.ops.extension.fft import FFT, NORMS
from tf8.ops.primitive import Aval
from tf8.ops.shapes import shape_str
from tf8.traced import TracedTensor, tensor

_FFT_TYPES = {"FFT": "fft", "IFFT": "ifft", "RFFT": "rfft", "IRFFT": "irfft"}


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


def fft(x: Any, fft_type: Any, fft_lengths: Any) -> TracedTensor:
    """JAX's `lax.fft`: the transform `fft_type` ('FFT', 'IFFT', 'RFFT', 'IRFFT', in any case,
    or an enum member of that name) over the trailing len(fft_lengths) axes (1 to 3), whose
    sizes must be `fft_lengths` (for IRFFT the last one n // 2 + 1). A real operand of
    FFT/IFFT is made complex; an integer one takes its float dtype, as in JAX."""
    name = getattr(fft_type, "name", fft_type)
    kind = _FFT_TYPES.get(name.upper()) if isinstance(name, str) else None
    if kind is None:
        raise ParameterError(f"fft: fft_type must be one of {tuple(_FFT_TYPES)}, got {fft_type!r}")
    x = tensor(x)
    lengths = tuple(int(n) for n in fft_lengths)
    if not 1 <= len(lengths) <= min(3, x.ndim):
        raise ShapeError(f"fft: fft_lengths {lengths} must name 1 to 3 axes of {x.aval}")
    expected = (*lengths[:-1], lengths[-1] // 2 + 1) if kind == "irfft" else lengths
    if tuple(x.shape[-len(lengths) :]) != expected:
        raise ShapeError(f"fft: {kind.upper()} of {x.aval} needs trailing axes {expected}")
    axes = list(zip(range(x.ndim - len(lengths), x.ndim), lengths))
    if kind == "rfft":  # the real transform first, then full ones over the leading axes
        kind, (axis, n) = "fft", axes.pop()
        x = transform("rfft", x, n, axis, None)
    last = axes.pop() if kind == "irfft" else None  # the inverse real transform comes last
    for axis, n in axes:
        x = transform("ifft" if kind == "irfft" else kind, x, n, axis, None)
    return x if last is None else transform("irfft", x, last[1], last[0], None)


__all__ = ["fft", "resize", "transform"]
