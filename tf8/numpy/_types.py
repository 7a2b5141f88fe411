"""Type queries and copies: iscomplexobj, isrealobj, iscomplex, isreal, copy."""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._arithmetic import imag
from ._core import ArrayLike, asarray, full_of
from ._logic import logical_not, not_equal


def iscomplexobj(x: ArrayLike) -> bool:
    """Whether x has a complex dtype (a Python bool: dtypes are known at trace time)."""
    return dt.is_complex(asarray(x).dtype)


def isrealobj(x: ArrayLike) -> bool:
    """Whether x does not have a complex dtype."""
    return not iscomplexobj(x)


def iscomplex(x: ArrayLike) -> TracedTensor:
    """Elementwise: imaginary part != 0 (of a Python int or float weakly typed, as JAX's)."""
    a = asarray(x)
    if not dt.is_complex(a.dtype):
        out = full_of(False, a.shape, dt.bool_)
        out._weak = type(x) in (int, float) or a._weak
        return out
    return not_equal(imag(a), 0)


def isreal(x: ArrayLike) -> TracedTensor:
    """Elementwise: imaginary part == 0."""
    out = logical_not(iscomplex(x))
    out._weak = type(x) in (int, float, complex)  # as JAX's, whose imag(x) == 0 keeps x's weak type
    return out


def copy(a: ArrayLike, order: str = "K", subok: bool = False) -> Any:
    """Traced values are immutable, so a copy is the value itself."""
    return asarray(a)


def isscalar(element: Any) -> bool:
    """True for a scalar: a Python or numpy scalar, or a 0-d array (numpy, or a `tf8.Array`,
    traced ones included).

    >>> import tf8.numpy as tnp, numpy as np
    >>> tnp.isscalar(2.0), tnp.isscalar(tnp.asarray(2.0)), tnp.isscalar(np.ones(2))
    (True, True, False)

    As JAX's `jnp.isscalar`, which (unlike numpy's) counts 0-d arrays as scalars; anything
    else is numpy's `isscalar` (so a string is a scalar, a list is not).
    """
    if isinstance(element, (TracedTensor, np.ndarray)):
        return element.ndim == 0
    return bool(np.isscalar(element))
