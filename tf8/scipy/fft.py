"""tf8.scipy.fft: the discrete cosine transforms of `jax.scipy.fft` (type 2, as JAX offers).

`dct` is Makhoul's algorithm (1980): one complex fft of the samples reordered as evens then
reversed odds, times a quarter-sample phase. `idct` runs it backwards with an inverse fft. Both
are compositions of `tf8.numpy.fft` and structural ops, so they are linear, differentiable to
any order, and batch under `vmap` with no rules of their own. Complex input is transformed as
its real and imaginary parts, as in JAX.

Differences from scipy (the same as JAX's): only `type=2`, and `norm` is None, "backward" or
"ortho" ("forward" and `orthogonalize`, `overwrite_x`, `workers` are not there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import AxisError, ParameterError
from tf8.lax.fft import resize
from tf8.numpy._core import constant
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor, tensor

__all__ = ["dct", "dctn", "idct", "idctn"]

_NORMS = (None, "backward", "ortho")


def dct(
    x: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None
) -> TracedTensor:
    """Discrete cosine transform (type 2) of `x` along `axis`, as `scipy.fft.dct`.

    Parameters: `x` (any numeric array), `type` (2 only, as in JAX), `n` (transform length:
    `x` is cut or zero-padded to it along `axis`; default its size), `axis` (default -1),
    `norm` (None or "backward": y_k = 2 Σ x_j cos(π k (2j + 1) / 2n); "ortho": scaled to an
    orthonormal transform). Output dtype: the real inexact dtype of `x` (float64 for integers);
    complex input gives complex output (real and imaginary parts transformed apart).

    >>> import tf8.scipy.fft as tfft
    >>> tfft.dct([1.0, 2.0, 3.0, 4.0])
    Array([20.        , -6.30864406,  0.        , -0.44834153], dtype=float64)
    """
    t = _checked("dct", x, type, norm)
    if dt.is_complex(t.dtype):
        return _by_parts(dct, t, type=type, n=n, axis=axis, norm=norm)
    axis = _axis("dct", t, axis)
    t = _resized("dct", t, axis, n)
    size = t.shape[axis]
    spectrum = tnp.fft.fft(_interleave(t, axis), axis=axis)
    k = np.arange(size)
    phase = np.exp(-0.5j * np.pi * k / size)
    scale = 2.0 * (_ortho_factor(size) if norm == "ortho" else np.ones(size))
    out = lax.real(spectrum * _along(phase * scale, spectrum, axis))
    return out


def idct(
    x: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None
) -> TracedTensor:
    """Inverse of `dct` (type 2) along `axis`, as `scipy.fft.idct`: idct(dct(x)) == x.

    Parameters: as `dct`; `n` cuts or zero-pads the *coefficients* before inverting. With
    norm None/"backward" the result is scaled by 1/(2n) (scipy's type-3 DCT over 2n).

    >>> import tf8.scipy.fft as tfft
    >>> tfft.idct(tfft.dct([1.0, 2.0, 3.0]))
    Array([1., 2., 3.], dtype=float64)
    """
    t = _checked("idct", x, type, norm)
    if dt.is_complex(t.dtype):
        return _by_parts(idct, t, type=type, n=n, axis=axis, norm=norm)
    axis = _axis("idct", t, axis)
    t = tnp.asarray(_resized("idct", t, axis, n))
    t = t.astype(dt.float_dtype(t.dtype))
    size = t.shape[axis]
    factor = _ortho_factor(size)
    weights = factor if norm == "ortho" else factor * factor
    k = np.arange(size)
    phase = np.exp(0.5j * np.pi * k / size)
    complex_t = t.astype(dt.complex_dtype(t.dtype))
    signal = tnp.fft.ifft(
        complex_t * _along(phase * weights * 2 * size, complex_t, axis), axis=axis
    )
    return _deinterleave(lax.real(signal), axis)


def dctn(
    x: Any,
    type: int = 2,
    s: int | Sequence[int] | None = None,
    axes: int | Sequence[int] | None = None,
    norm: str | None = None,
) -> TracedTensor:
    """n-D discrete cosine transform (type 2): `dct` along each of `axes`, as `scipy.fft.dctn`.

    Parameters: `x`, `type` (2 only), `s` (transform lengths, one per axis; `x` is cut or
    zero-padded to them), `axes` (default: the last len(s) axes, or all), `norm` (as `dct`).

    >>> import tf8.scipy.fft as tfft
    >>> tfft.dctn([[1.0, 1.0], [1.0, 1.0]], norm="ortho")
    Array([[2., 0.],
           [0., 0.]], dtype=float64)
    """
    return _nd("dctn", dct, x, type, s, axes, norm)


def idctn(
    x: Any,
    type: int = 2,
    s: int | Sequence[int] | None = None,
    axes: int | Sequence[int] | None = None,
    norm: str | None = None,
) -> TracedTensor:
    """Inverse of `dctn`: `idct` along each of `axes`, as `scipy.fft.idctn`.

    Parameters: as `dctn`.

    >>> import tf8.scipy.fft as tfft
    >>> tfft.idctn(tfft.dctn([[1.0, 2.0], [3.0, 4.0]]))
    Array([[1., 2.],
           [3., 4.]], dtype=float64)
    """
    return _nd("idctn", idct, x, type, s, axes, norm)


# --- helpers ---------------------------------------------------------------------------------


def _checked(name: str, x: Any, type: int, norm: str | None) -> TracedTensor:
    if type != 2:
        raise ParameterError(f"{name}: only type=2 is implemented (as in JAX), got type={type!r}")
    if norm not in _NORMS:
        raise ParameterError(f"{name}: norm must be None, 'backward' or 'ortho', got {norm!r}")
    return tensor(x)


def _axis(name: str, t: TracedTensor, axis: int) -> int:
    if not isinstance(axis, (int, np.integer)) or not -t.ndim <= axis < t.ndim:
        raise AxisError(f"{name}: axis {axis!r} is out of range for an array of shape {t.shape}")
    return int(axis) % t.ndim


def _resized(name: str, t: TracedTensor, axis: int, n: int | None) -> TracedTensor:
    if n is None:
        if t.shape[axis] == 0:
            raise ParameterError(f"{name}: cannot transform an empty axis {axis} of {t.aval}")
        return t
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"{name}: n must be a positive int, got {n!r}")
    return resize(t, axis, int(n))


def _by_parts(fn: Any, t: TracedTensor, **kwargs: Any) -> TracedTensor:
    return lax.complex(fn(lax.real(t), **kwargs), fn(lax.imag(t), **kwargs))


def _ortho_factor(size: int) -> np.ndarray:
    """The orthonormal scaling of coefficient k: 1/sqrt(4n) for k = 0, 1/sqrt(2n) after."""
    factor = np.full(size, 1.0 / np.sqrt(2.0 * size))
    factor[0] = 1.0 / np.sqrt(4.0 * size)
    return factor


def _along(values: np.ndarray, like: TracedTensor, axis: int) -> TracedTensor:
    """`values` as a constant of `like`'s dtype, shaped to broadcast along `axis`."""
    shape = [1] * like.ndim
    shape[axis] = values.size
    return constant(values.reshape(shape).astype(like.dtype))


def _take(t: TracedTensor, axis: int, start: int | None, stop: int | None, step: int = 1) -> Any:
    return t[(slice(None),) * axis + (slice(start, stop, step),)]


def _interleave(t: TracedTensor, axis: int) -> TracedTensor:
    """Evens, then the odds reversed: the reordering whose fft gives the DCT."""
    evens = _take(t, axis, None, None, 2)
    odds = tnp.flip(_take(t, axis, 1, None, 2), axis)
    return tnp.concatenate([evens, odds], axis)


def _deinterleave(t: TracedTensor, axis: int) -> TracedTensor:
    """Inverse of `_interleave`: the first half to even places, the rest reversed to odd ones."""
    size = t.shape[axis]
    half = (size + 1) // 2
    evens = _take(t, axis, None, half)
    odds = tnp.flip(_take(t, axis, half, None), axis)
    if size % 2:
        odds = resize(odds, axis, half)  # a zero, dropped below
    pairs = tnp.stack([evens, odds], axis + 1)
    shape = (*t.shape[:axis], 2 * half, *t.shape[axis + 1 :])
    return _take(tnp.reshape(pairs, shape), axis, None, size)


def _nd(
    name: str,
    fn: Any,
    x: Any,
    type: int,
    s: int | Sequence[int] | None,
    axes: int | Sequence[int] | None,
    norm: str | None,
) -> TracedTensor:
    t = _checked(name, x, type, norm)
    lengths = None if s is None else _ints(name, "s", s)
    if lengths is not None and len(lengths) > t.ndim:
        raise ParameterError(f"{name}: s {lengths} has more entries than {t.aval} has axes")
    if axes is None:
        count = t.ndim if lengths is None else len(lengths)
        axes_list = list(range(t.ndim - count, t.ndim))
    else:
        axes_list = [_axis(name, t, a) for a in _ints(name, "axes", axes)]
        if len(set(axes_list)) != len(axes_list):
            raise ParameterError(f"{name}: axes {axes} repeat an axis")
    if lengths is not None and len(lengths) != len(axes_list):
        raise ParameterError(f"{name}: s {lengths} and axes {tuple(axes_list)} differ in length")
    for i, axis in enumerate(axes_list):
        t = fn(t, type, None if lengths is None else lengths[i], axis, norm)
    return t


def _ints(name: str, what: str, value: Any) -> tuple[int, ...]:
    values = (value,) if isinstance(value, (int, np.integer)) else value
    try:
        return tuple(int(v) for v in values)
    except (TypeError, ValueError):
        raise ParameterError(f"{name}: {what} must be an int or ints, got {value!r}") from None
