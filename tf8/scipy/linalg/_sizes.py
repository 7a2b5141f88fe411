"""scipy.linalg's special matrices of a given size (hilbert, invhilbert, pascal, invpascal,
helmert, hadamard, dft), with JAX's dtypes: constants, built in numpy (exactly, where JAX's
go through lgamma) and handed over as tf8 arrays."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from tf8 import numpy as tnp
from tf8.errors import DTypeError, ParameterError
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor


def _default_float() -> np.dtype:
    """float64, or float32 with x64 off (JAX's default float)."""
    return dt.canonical_dtype(np.dtype(np.float64))


def hilbert(n: int) -> TracedTensor:
    """The n × n Hilbert matrix 1 / (i + j + 1), float64 (the default float).

    >>> from tf8.scipy.linalg import hilbert
    >>> hilbert(2).tolist()
    [[1.0, 0.5], [0.5, 0.3333333333333333]]
    """
    i = np.arange(operator.index(n), dtype=float)[:, None]
    return tnp.asarray(1 / (i + i.T + 1), _default_float())


def invhilbert(n: int) -> TracedTensor:
    """The inverse of the n × n Hilbert matrix, float64, from exact integer binomials.

    >>> from tf8.scipy.linalg import invhilbert
    >>> invhilbert(2).tolist()
    [[4.0, -6.0], [-6.0, 12.0]]

    Differs from JAX: exact (JAX's binomials come from lgamma and lose the last digits)."""
    n = operator.index(n)
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            s = i + j
            exact = (-1) ** s * (s + 1) * math.comb(n + i, n - j - 1) * math.comb(n + j, n - i - 1)
            out[i, j] = exact * math.comb(s, i) ** 2
    return tnp.asarray(out, _default_float())


def _pascal_lower(n: int, inverse: bool) -> np.ndarray:
    """L[i, j] = C(i, j) (Pascal's lower triangle), or its inverse (−1)^(i−j) C(i, j) (with
    JAX's −0.0 above the diagonal where i − j is odd)."""
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            sign = (-1.0) ** (i - j) if inverse else 1.0
            out[i, j] = sign * (math.comb(i, j) if j <= i else 0.0)
    return out


def _pascal_kind(name: str, kind: str | None) -> str:
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ParameterError(f"{name}: kind must be 'symmetric', 'lower' or 'upper', got {kind!r}")
    return kind


def pascal(n: int, kind: str | None = None) -> TracedTensor:
    """The n × n Pascal matrix: 'symmetric' (the default) C(i + j, i), or its Cholesky
    factors 'lower' C(i, j) and 'upper' C(j, i). float32, as JAX's.

    >>> from tf8.scipy.linalg import pascal
    >>> pascal(3).tolist()
    [[1.0, 1.0, 1.0], [1.0, 2.0, 3.0], [1.0, 3.0, 6.0]]

    Differs from JAX: exact integers (JAX's come from float32 lgamma: 0.99999905 for 1)."""
    kind = _pascal_kind("pascal", kind)
    lower = _pascal_lower(operator.index(n), inverse=False)
    out = {"lower": lower, "upper": lower.T, "symmetric": lower @ lower.T}[kind]
    return tnp.asarray(out, np.float32)


def invpascal(n: int, kind: str | None = None) -> TracedTensor:
    """The inverse of `pascal(n, kind)`, float64 (exact integers).

    >>> from tf8.scipy.linalg import invpascal
    >>> invpascal(3).tolist()
    [[3.0, -3.0, 1.0], [-3.0, 5.0, -2.0], [1.0, -2.0, 1.0]]
    """
    kind = _pascal_kind("invpascal", kind)
    lower = _pascal_lower(operator.index(n), inverse=True)
    out = {"lower": lower, "upper": lower.T, "symmetric": lower.T @ lower}[kind]
    return tnp.asarray(out, _default_float())


def helmert(n: int, full: bool = False) -> TracedTensor:
    """The Helmert matrix: (n − 1) × n, orthonormal rows orthogonal to the ones vector, and
    with `full` the row 1/√n first (n × n, orthogonal). float64.

    >>> from tf8.scipy.linalg import helmert
    >>> import numpy as np
    >>> np.round(np.asarray(helmert(2)), 6).tolist()
    [[0.707107, -0.707107]]
    """
    n = operator.index(n)
    if n < 1:
        raise ParameterError(f"helmert: n must be a positive integer, got {n}")
    k = np.arange(1, n, dtype=float)[:, None]
    j = np.arange(n)[None, :]
    scale = np.sqrt(k * (k + 1))
    h = np.where(j <= k - 1, 1.0 / scale, np.where(j == k, -k / scale, 0.0))
    if full:
        h = np.concatenate([np.full((1, n), 1.0 / np.sqrt(n)), h])
    return tnp.asarray(h, _default_float())


def hadamard(n: int, dtype: Any = int) -> TracedTensor:
    """The n × n Hadamard matrix (Sylvester's construction), n a power of 2; `dtype` int
    (int64) by default.

    >>> from tf8.scipy.linalg import hadamard
    >>> hadamard(2).tolist()
    [[1, 1], [1, -1]]
    """
    n = operator.index(n)
    if n < 1 or not math.log2(n).is_integer():
        raise ParameterError(f"hadamard: n must be a positive power of 2, got {n}")
    h = np.ones((1, 1), np.int64)
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return tnp.asarray(h, dt.requested_dtype(dtype, "hadamard"))


def dft(n: int, scale: str | None = None, *, dtype: Any = None) -> TracedTensor:
    """The n × n discrete Fourier transform matrix exp(−2πi jk/n), divided by √n for
    scale='sqrtn' or by n for 'n'; complex128 by default (`dtype` must be complex).

    >>> from tf8.scipy.linalg import dft
    >>> import numpy as np
    >>> np.round(np.asarray(dft(2)), 12).real.tolist()
    [[1.0, 1.0], [1.0, -1.0]]
    """
    n = operator.index(n)
    if scale not in (None, "sqrtn", "n"):
        raise ParameterError(f"dft: scale must be None, 'sqrtn' or 'n', got {scale!r}")
    dtype = (
        dt.complex_dtype(_default_float()) if dtype is None else dt.requested_dtype(dtype, "dft")
    )
    if not dt.is_complex(dtype):
        raise DTypeError(f"dft: dtype must be complex, got {dtype}")
    a = np.arange(n, dtype=dtype)
    omegas = np.exp(-2j * np.pi * a[:, None] * a[None, :] / n).astype(dtype)
    if scale == "sqrtn":
        omegas = omegas / np.sqrt(n)
    elif scale == "n":
        omegas = omegas / n
    return tnp.asarray(omegas, dtype)


__all__ = ["dft", "hadamard", "helmert", "hilbert", "invhilbert", "invpascal", "pascal"]
