"""tf8.numpy's dtype objects: `tnp.float32` is a dtype *and* a constructor, as in JAX.

`tnp.float32(1.5)` is a 0-d float32 array (JAX's scalars are 0-d arrays too);
`np.dtype(tnp.float32)`, `x.dtype == tnp.float32`, `tnp.zeros(3, tnp.float32)` and dict lookups
keyed by numpy dtypes all see the numpy dtype. numpy's type queries (finfo, iinfo, issubdtype,
the abstract scalar classes) are numpy's own, since tf8's dtypes are numpy dtypes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._core import asarray


class ScalarType(type):
    """The metaclass of tf8.numpy's scalar types: call to build an array, compare as a dtype."""

    dtype: np.dtype

    @property
    def __numpy_dtype__(cls) -> np.dtype:  # numpy ≥ 2.4's protocol; older numpy reads `.dtype`
        return cls.dtype

    def __hash__(cls) -> int:
        return hash(cls.dtype)

    def __eq__(cls, other: Any) -> bool:
        return cls is other or cls.dtype == other

    def __ne__(cls, other: Any) -> bool:
        return not cls == other

    def __call__(cls, x: Any) -> TracedTensor:
        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.dtype.type) or (
            isinstance(instance, TracedTensor)
            and instance.ndim == 0
            and instance.dtype == cls.dtype
        )


def _scalar_type(dtype: np.dtype) -> ScalarType:
    name = "bool_" if dtype == dt.bool_ else dtype.name
    doc = f"tf8's {dtype.name} scalar type: a dtype, and a constructor of 0-d {dtype.name} arrays."
    made = ScalarType(name, (), {"dtype": dtype, "__doc__": doc})
    made.__module__ = "tf8.numpy"
    return made


bool_ = _scalar_type(dt.bool_)
uint8 = _scalar_type(dt.uint8)
uint32 = _scalar_type(dt.uint32)
int32 = _scalar_type(dt.int32)
int64 = _scalar_type(dt.int64)
float16 = _scalar_type(dt.float16)
float32 = _scalar_type(dt.float32)
float64 = _scalar_type(dt.float64)
complex64 = _scalar_type(dt.complex64)
complex128 = _scalar_type(dt.complex128)

# numpy's default-precision aliases (tf8 computes in 64 bits by default, as JAX with x64).
int_ = int64
float_ = float64
complex_ = complex128
double = float64
single = float32
half = float16
cdouble = complex128
csingle = complex64

dtype = np.dtype
finfo = np.finfo
iinfo = np.iinfo
issubdtype = np.issubdtype
can_cast = np.can_cast
generic = np.generic
number = np.number
integer = np.integer
signedinteger = np.signedinteger
unsignedinteger = np.unsignedinteger
inexact = np.inexact
floating = np.floating
complexfloating = np.complexfloating
ndarray = TracedTensor


def promote_types(type1: Any, type2: Any) -> np.dtype:
    """The dtype two dtypes promote to, in tf8's set (numpy ≥ 2 rules)."""
    return dt.result_type(dt.as_dtype(type1), dt.as_dtype(type2))
