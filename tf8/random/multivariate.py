"""Matrix-valued samplers: multivariate_normal (Cholesky, eigh or SVD factor of the
covariance) and orthogonal (Haar-distributed orthogonal matrices by QR, Mezzadri's sign fix).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.random.basic import (
    _complex_normal,
    _float_dtype,
    _inexact_dtype,
    _normal,
    _param_shape,
)
from tf8.random.keys import Shape, _check_key, _shape
from tf8.traced import TracedTensor

_METHODS = ("cholesky", "eigh", "svd")


def multivariate_normal(
    key: Any,
    mean: Any,
    cov: Any,
    shape: Shape | None = None,
    dtype: Any = None,
    method: str = "cholesky",
) -> TracedTensor:
    """Draws of N(mean, cov), shape (*shape, n): mean + factor @ z for standard normals z and
    a factor with factor @ factor.T = cov (use "eigh" or "svd" for a singular cov)."""
    key = _check_key("multivariate_normal", key)
    if method not in _METHODS:
        raise ParameterError(
            f"multivariate_normal: method must be one of {_METHODS}, got {method!r}"
        )
    mean, cov = tnp.asarray(mean), tnp.asarray(cov)
    inexact = dt.result_type(mean.dtype, cov.dtype)
    inexact = inexact if dt.is_float(inexact) else dt.float64  # JAX's promote_dtypes_inexact
    dtype = _float_dtype("multivariate_normal", inexact if dtype is None else dtype)
    mean, cov = (lax.convert_element_type(v, inexact) for v in (mean, cov))
    if mean.ndim < 1 or cov.ndim < 2:
        raise ShapeError(
            f"multivariate_normal: mean needs shape (..., n) and cov (..., n, n), got mean "
            f"{tuple(mean.shape)} and cov {tuple(cov.shape)}"
        )
    n = mean.shape[-1]
    if tuple(cov.shape[-2:]) != (n, n):
        raise ShapeError(
            f"multivariate_normal: cov must have shape (..., {n}, {n}) for a mean of shape "
            f"{tuple(mean.shape)}, got {tuple(cov.shape)}"
        )
    batch = _param_shape(
        "multivariate_normal",
        shape,
        **{"mean's batch axes": np.empty(mean.shape[:-1], np.bool_)},
        **{"cov's batch axes": np.empty(cov.shape[:-2], np.bool_)},
    )
    if method == "svd":
        u, s, _ = tnp.linalg.svd(cov)
        factor = tnp.multiply(u, tnp.sqrt(tnp.expand_dims(s, -2)))
    elif method == "eigh":
        w, v = tnp.linalg.eigh(cov)
        factor = tnp.multiply(v, tnp.sqrt(tnp.expand_dims(w, -2)))
    else:
        factor = tnp.linalg.cholesky(cov)
    z = _normal(key, (*batch, n), dtype)
    return tnp.add(mean, tnp.einsum("...ij,...j->...i", factor, z))


def orthogonal(
    key: Any, n: int, shape: Shape = (), dtype: Any = None, m: int | None = None
) -> TracedTensor:
    """Uniform draws from O(n), shape (*shape, n, m) (semi-orthogonal when m != n): the Q of
    a Gaussian matrix's QR, its columns' signs fixed by R's diagonal; for a complex dtype,
    from U(n), the phases fixed by R's diagonal (as JAX's)."""
    key = _check_key("orthogonal", key)
    dtype = _inexact_dtype("orthogonal", float if dtype is None else dtype)
    n, m = int(n), int(n if m is None else m)
    draw = _complex_normal if dtype.kind == "c" else _normal
    z = draw(key, (*_shape(shape), max(n, m), min(n, m)), dtype)
    q, r = tnp.linalg.qr(z)
    signs = tnp.sign(tnp.diagonal(r, axis1=-2, axis2=-1))
    x = tnp.multiply(q, tnp.expand_dims(signs, -2))
    return tnp.swapaxes(x, -1, -2) if n < m else x
