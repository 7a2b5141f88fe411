"""Type queries and copies: iscomplexobj, isrealobj, iscomplex, isreal, copy."""

from __future__ import annotations

from typing import Any

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
