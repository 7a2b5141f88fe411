"""Type queries and copies: iscomplexobj, isrealobj, iscomplex, isreal, copy."""

from __future__ import annotations

from typing import Any

from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._core import ArrayLike, asarray, full_of


def iscomplexobj(x: ArrayLike) -> bool:
    """Whether x has a complex dtype (a Python bool: dtypes are known at trace time)."""
    return dt.is_complex(asarray(x).dtype)


def isrealobj(x: ArrayLike) -> bool:
    """Whether x does not have a complex dtype."""
    return not iscomplexobj(x)


def iscomplex(x: ArrayLike) -> TracedTensor:
    """Elementwise: imaginary part != 0."""
    from ._ufuncs import imag, not_equal

    a = asarray(x)
    if not dt.is_complex(a.dtype):
        return full_of(False, a.shape, dt.bool_)
    return not_equal(imag(a), 0)


def isreal(x: ArrayLike) -> TracedTensor:
    """Elementwise: imaginary part == 0."""
    from ._ufuncs import logical_not

    return logical_not(iscomplex(x))


def copy(a: ArrayLike, order: str = "K", subok: bool = False) -> Any:
    """Traced values are immutable, so a copy is the value itself."""
    return asarray(a)
