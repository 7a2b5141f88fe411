"""Convolution and correlation: `convolve`, `correlate` (n-D), their 2-D forms, `fftconvolve`.

The direct method is one `lax.conv_general_dilated` (as JAX lowers it); the fft method
multiplies spectra from `tf8.numpy.fft`. Both are bilinear compositions of primitives with
rules, so they differentiate to any order and batch under `vmap`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import AxisError, ParameterError, ShapeError
from tf8.numpy._core import inexact, promote
from tf8.traced import TracedTensor

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "fftconvolve"]

_MODES = ("full", "same", "valid")
_METHODS = ("auto", "direct", "fft")


def _operands(name: str, in1: Any, in2: Any, mode: str) -> tuple[TracedTensor, TracedTensor]:
    """in1 and in2 in one inexact dtype (JAX's promote_dtypes_inexact), checked."""
    if mode not in _MODES:
        raise ParameterError(f"{name}: mode must be one of {_MODES}, got {mode!r}")
    a, b = (inexact(x) for x in promote(in1, in2))
    if a.ndim != b.ndim:
        raise ShapeError(
            f"{name}: in1 and in2 must have the same number of dimensions, got in1 {a.aval} "
            f"and in2 {b.aval}"
        )
    return a, b


def _direct(name: str, in1: Any, in2: Any, mode: str) -> TracedTensor:
    """Convolution by `conv_general_dilated`: the larger operand slides under the smaller,
    flipped one; 'same' keeps in1's size, centred as scipy centres it."""
    a, b = _operands(name, in1, in2, mode)
    if a.size == 0 or b.size == 0:
        raise ShapeError(f"{name}: zero-size operands are not supported, got {a.aval}, {b.aval}")
    if a.ndim == 0:
        return a * b
    no_swap = all(s1 >= s2 for s1, s2 in zip(a.shape, b.shape))
    swap = all(s1 <= s2 for s1, s2 in zip(a.shape, b.shape))
    if not (no_swap or swap):
        raise ShapeError(
            f"{name}: one input must be at least as large as the other in every dimension, "
            f"got in1 {a.aval} and in2 {b.aval}"
        )
    kept = b.shape
    if swap:
        a, b = b, a
    if mode == "valid":
        padding = [(0, 0)] * a.ndim
    elif mode == "same":
        padding = [(s - 1 - (k - 1) // 2, s - k + (k - 1) // 2) for s, k in zip(b.shape, kept)]
    else:
        padding = [(s - 1, s - 1) for s in b.shape]
    flipped = tnp.flip(b)
    out = lax.conv_general_dilated(a[None, None], flipped[None, None], (1,) * a.ndim, padding)
    return out[0, 0]


def convolve(
    in1: Any, in2: Any, mode: str = "full", method: str = "auto", precision: Any = None
) -> TracedTensor:
    """n-D convolution of `in1` and `in2` (the same number of axes), as `scipy.signal.convolve`.

    Parameters: `in1`, `in2` (arrays; promoted to one inexact dtype), `mode` ("full": every
    overlap; "same": in1's size, centred; "valid": only full overlaps), `method` ("auto" and
    "direct": `lax.conv_general_dilated`; "fft": `fftconvolve`), `precision` (ignored).

    >>> import tf8.scipy.signal as tsig
    >>> tsig.convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float64)

    As JAX's: "auto" always means "direct" (scipy picks the faster one), and the direct method
    needs one operand at least as large as the other in every dimension.
    """
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method not in _METHODS:
        raise ParameterError(f"convolve: method must be one of {_METHODS}, got {method!r}")
    return _direct("convolve", in1, in2, mode)


def correlate(
    in1: Any, in2: Any, mode: str = "full", method: str = "auto", precision: Any = None
) -> TracedTensor:
    """n-D cross-correlation, as `scipy.signal.correlate`: z[k] = Σ in1[n + k] conj(in2[n]).

    Parameters: as `convolve` (it is the convolution with in2 flipped and conjugated).

    >>> import tf8.scipy.signal as tsig
    >>> tsig.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])
    Array([0.5, 2. , 3.5, 3. , 0. ], dtype=float64)
    """
    b = tnp.asarray(in2)
    return convolve(in1, tnp.flip(tnp.conj(b)), mode=mode, method=method, precision=precision)


def _check_2d(name: str, in1: Any, in2: Any, boundary: str, fillvalue: Any) -> tuple:
    if boundary != "fill" or fillvalue != 0:
        raise ParameterError(
            f"{name}: only boundary='fill' with fillvalue=0 is implemented (as in JAX), got "
            f"boundary={boundary!r}, fillvalue={fillvalue!r}"
        )
    a, b = tnp.asarray(in1), tnp.asarray(in2)
    if a.ndim != 2 or b.ndim != 2:
        raise ShapeError(f"{name}: needs 2-D inputs, got in1 {a.aval} and in2 {b.aval}")
    return a, b


def convolve2d(
    in1: Any,
    in2: Any,
    mode: str = "full",
    boundary: str = "fill",
    fillvalue: Any = 0,
    precision: Any = None,
) -> TracedTensor:
    """2-D convolution, as `scipy.signal.convolve2d`.

    Parameters: `in1`, `in2` (2-D arrays), `mode` (as `convolve`), `boundary` and `fillvalue`
    ("fill" with 0 only, as in JAX: other values raise ParameterError), `precision` (ignored).

    >>> import tf8.scipy.signal as tsig
    >>> tsig.convolve2d([[1.0, 2.0], [3.0, 4.0]], [[1.0, 1.0]], mode="same")
    Array([[1., 3.],
           [3., 7.]], dtype=float64)
    """
    a, b = _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _direct("convolve2d", a, b, mode)


def correlate2d(
    in1: Any,
    in2: Any,
    mode: str = "full",
    boundary: str = "fill",
    fillvalue: Any = 0,
    precision: Any = None,
) -> TracedTensor:
    """2-D cross-correlation, as `scipy.signal.correlate2d`.

    Parameters: as `convolve2d`. 'same' and 'valid' are placed as scipy places them when in2
    is the larger operand (which differs from `correlate`'s placement).

    >>> import tf8.scipy.signal as tsig
    >>> tsig.correlate2d([[1.0, 2.0], [3.0, 4.0]], [[1.0, 1.0]], mode="same")
    Array([[3., 2.],
           [7., 4.]], dtype=float64)
    """
    a, b = _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    swap = all(s1 <= s2 for s1, s2 in zip(a.shape, b.shape))
    same_shape = a.shape == b.shape
    if mode == "same" or not swap or (mode == "valid" and same_shape):
        return tnp.flip(_direct("correlate2d", tnp.flip(a), tnp.conj(b), mode))
    out = _direct("correlate2d", tnp.flip(b), tnp.conj(a), mode)
    return out if mode == "valid" else tnp.conj(out)


def fftconvolve(
    in1: Any, in2: Any, mode: str = "full", axes: int | Sequence[int] | None = None
) -> TracedTensor:
    """n-D convolution through the fft, as `scipy.signal.fftconvolve`.

    Parameters: `in1`, `in2` (the same number of axes; promoted to one inexact dtype), `mode`
    (as `convolve`), `axes` (the axes to convolve over, default all; along the others the
    operands must have equal sizes, and are matched element by element).

    >>> import tf8.scipy.signal as tsig
    >>> tsig.fftconvolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5]).round(6) + 0.0
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float64)

    As JAX's: the transform length is the full size (no `next_fast_len` padding), and the
    other axes must have equal sizes (scipy also broadcasts 1 against n).
    """
    a, b = _operands("fftconvolve", in1, in2, mode)
    if axes is None:
        axes_list = list(range(a.ndim))
    else:
        raw = (axes,) if isinstance(axes, int) else tuple(axes)
        for ax in raw:
            if not isinstance(ax, int) or not -a.ndim <= ax < a.ndim:
                raise AxisError(f"fftconvolve: axis {ax!r} out of range for in1 {a.aval}")
        axes_list = sorted({ax % a.ndim for ax in raw})
        for ax in set(range(a.ndim)) - set(axes_list):
            if a.shape[ax] != b.shape[ax]:
                raise ShapeError(
                    f"fftconvolve: axes other than {tuple(axes_list)} must have equal sizes, "
                    f"got in1 {a.aval} and in2 {b.aval}"
                )
    pairs = [(a.shape[ax], b.shape[ax]) for ax in axes_list]
    if mode == "valid":
        if all(s1 <= s2 for s1, s2 in pairs) and not all(s1 >= s2 for s1, s2 in pairs):
            a, b = b, a
            pairs = [(s2, s1) for s1, s2 in pairs]
        elif not all(s1 >= s2 for s1, s2 in pairs):
            raise ShapeError(
                "fftconvolve: for 'valid' mode one input must be at least as large as the "
                f"other along every convolved axis, got in1 {a.aval} and in2 {b.aval}"
            )
    full = [s1 + s2 - 1 for s1, s2 in pairs]
    if all(s1 == 1 or s2 == 1 for s1, s2 in pairs):
        conv = a * b
    else:
        complex_ = a.dtype.kind == "c"
        forward = tnp.fft.fftn if complex_ else tnp.fft.rfftn
        inverse = tnp.fft.ifftn if complex_ else tnp.fft.irfftn
        spectrum = forward(a, full, axes_list) * forward(b, full, axes_list)
        conv = inverse(spectrum, full, axes_list)
    sizes = {"full": full, "same": [s1 for s1, _ in pairs]}
    out = sizes.get(mode, [s1 - s2 + 1 for s1, s2 in pairs])
    index = [slice(None)] * conv.ndim
    for ax, whole, size in zip(axes_list, full, out):
        start = (whole - size) // 2
        index[ax] = slice(start, start + size)
    return conv[tuple(index)]
