"""`tf8.dtypes`: JAX's `jax.dtypes` names on tf8's dtypes (JAX's promotion lattice, 64 bits
on by default, as `jax_enable_x64`; with `tf8.config.update("jax_enable_x64", False)` JAX's
32-bit default).

tf8 has no typed PRNG keys (`tf8.random.key` returns raw uint32 key data), so it has no
`prng_key` or `extended` dtype; and no `bfloat16`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import DTypeError
from tf8.ops import dtypes as dt
from tf8.ops.dtypes import Weak
from tf8.traced import TracedTensor

__all__ = [
    "TypePromotionError",
    "canonicalize_dtype",
    "finfo",
    "float0",
    "iinfo",
    "issubdtype",
    "itemsize_bits",
    "result_type",
    "scalar_type_of",
]

TypePromotionError = DTypeError  # what tf8 raises where JAX raises TypePromotionError

float0 = np.dtype([("float0", np.void, 0)])
"""JAX's dtype of the (empty) cotangent of an integer argument: `np.dtype([('float0', 'V')])`.

>>> import tf8
>>> tf8.dtypes.float0.itemsize
0
"""

finfo = np.finfo
iinfo = np.iinfo


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> np.dtype:
    """The dtype tf8 computes `dtype` in (float64 stays float64 with `jax_enable_x64` on, tf8's
    default; with it off it is float32, int64 int32 and complex128 complex64, as JAX's).

    Args:
      dtype: anything `numpy.dtype` takes.
      allow_extended_dtype: accepted for JAX's signature (tf8 has no extended dtypes).

    >>> import tf8, numpy as np
    >>> tf8.dtypes.canonicalize_dtype(np.float64)
    dtype('float64')

    Raises `DTypeError` for a dtype tf8 does not have (JAX returns int8, int16, ...).
    """
    return dt.as_dtype(dtype)


def issubdtype(a: Any, b: Any) -> bool:
    """numpy's `issubdtype`, with `float0` a dtype of its own.

    >>> import tf8, numpy as np
    >>> tf8.dtypes.issubdtype(np.float32, np.floating), tf8.dtypes.issubdtype(np.int32, float)
    (True, False)
    """
    if float0 in (a, b):
        return a == b
    return bool(np.issubdtype(a, b))


def itemsize_bits(dtype: Any) -> int:
    """The number of bits one element of `dtype` takes (`bool`: 8).

    >>> import tf8, numpy as np
    >>> tf8.dtypes.itemsize_bits(np.float32)
    32
    """
    return np.dtype(dtype).itemsize * 8


def scalar_type_of(x: Any) -> type:
    """The Python scalar type of an array or scalar's dtype (`bool`, `int`, `float`, `complex`).

    >>> import tf8, numpy as np
    >>> tf8.dtypes.scalar_type_of(np.ones(2, np.float32)), tf8.dtypes.scalar_type_of(3)
    (<class 'float'>, <class 'int'>)
    """
    dtype = np.asarray(x).dtype if not hasattr(x, "dtype") else np.dtype(x.dtype)
    for kind, scalar in (("b", bool), ("iu", int), ("f", float), ("c", complex)):
        if dtype.kind in kind:
            return scalar
    raise DTypeError(f"scalar_type_of: no Python scalar type for dtype {dtype}")


def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
    """JAX's promotion of arrays, dtypes and Python scalars (weakly typed): the result's dtype,
    and with `return_weak_type_flag` whether it is weak.

    >>> import tf8, numpy as np
    >>> tf8.dtypes.result_type(np.float32, 2.0), tf8.dtypes.result_type(np.int32, np.float32)
    (dtype('float32'), dtype('float32'))
    >>> tf8.dtypes.result_type(2.0, return_weak_type_flag=True)
    (dtype('float64'), True)

    As JAX's with x64 on.
    """
    operands = []
    for a in args:
        if isinstance(a, TracedTensor):
            operands.append(Weak(a.dtype) if a._weak else a.dtype)
        elif type(a) in (bool, int, float, complex):
            operands.append(a)
        elif hasattr(a, "dtype") and not isinstance(a, type):
            operands.append(dt.as_dtype(a.dtype))
        else:
            operands.append(dt.as_dtype(a))
    dtype, weak = dt.promote_types(*operands)
    return (dtype, weak) if return_weak_type_flag else dtype
