"""tf8's ten dtypes and numpy ≥ 2 (NEP 50) promotion; a dtype *is* a `numpy.dtype`."""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import DTypeError

bool_ = np.dtype(np.bool_)
uint8 = np.dtype(np.uint8)
uint32 = np.dtype(np.uint32)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)

DTYPES: tuple[np.dtype, ...] = (
    bool_,
    uint8,
    uint32,
    int32,
    int64,
    float16,
    float32,
    float64,
    complex64,
    complex128,
)
FLOATS = (float16, float32, float64)
COMPLEXES = (complex64, complex128)
UNSIGNED = (uint8, uint32)  # the random bits of tf8.random, and bytes
SIGNED = (int32, int64)
INTEGERS = UNSIGNED + SIGNED
NUMERIC = INTEGERS + FLOATS + COMPLEXES
INEXACT = FLOATS + COMPLEXES

# dtypes numpy may hand us that tf8 widens to one of its own (as JAX canonicalises); uint16 and
# uint64 become int64, as before tf8 had unsigned dtypes.
_WIDEN = {"b": int64, "i": int64, "u": int64, "f": float32}


def as_dtype(value: Any) -> np.dtype:
    """The tf8 dtype named by `value` (a name, numpy type or dtype); DTypeError otherwise."""
    try:
        dtype = np.dtype(value)
    except TypeError as exc:
        raise DTypeError(f"{value!r} is not a dtype tf8 knows ({dtype_names()})") from exc
    if dtype in DTYPES:
        return dtype
    raise DTypeError(f"dtype {dtype} is not supported by tf8 (supported: {dtype_names()})")


def canonical_dtype(dtype: np.dtype) -> np.dtype:
    """Map an incoming numpy dtype onto tf8's set (int8 → int64, float16 → float32, ...)."""
    if dtype in DTYPES:
        return dtype
    widened = _WIDEN.get(dtype.kind)
    if widened is None or dtype.itemsize > 8:
        raise DTypeError(f"arrays of dtype {dtype} are not supported (supported: {dtype_names()})")
    return widened


def dtype_names() -> str:
    return ", ".join(str(d) for d in DTYPES)


def is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f"


def is_complex(dtype: np.dtype) -> bool:
    return dtype.kind == "c"


def is_inexact(dtype: np.dtype) -> bool:
    return dtype.kind in "fc"


def is_integer(dtype: np.dtype) -> bool:
    """Signed or unsigned integer."""
    return dtype.kind in "iu"


def real_dtype(dtype: np.dtype) -> np.dtype:
    """complex64 → float32, complex128 → float64, anything else unchanged."""
    return {complex64: float32, complex128: float64}.get(dtype, dtype)


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """float16 and float32 → complex64, every other real dtype → complex128 (numpy's)."""
    if dtype in COMPLEXES:
        return dtype
    return complex64 if dtype in (float16, float32) else complex128


def float_dtype(dtype: np.dtype) -> np.dtype:
    """The inexact dtype an integer or bool computation is done in (numpy: float64)."""
    return dtype if is_inexact(dtype) else float64


def ufunc_float_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype numpy's float ufuncs (sin, exp, ...) compute `dtype` in: as `float_dtype`,
    but uint8 goes to float16, as numpy's do."""
    return float16 if dtype == uint8 else float_dtype(dtype)


def result_type(*operands: Any) -> np.dtype:
    """numpy ≥ 2 promotion: arrays/dtypes are strong, Python scalars weak (float32 * 2.0 → f32)."""
    strong = [op for op in operands if not isinstance(op, (bool, int, float, complex))]
    weak = [op for op in operands if isinstance(op, (bool, int, float, complex))]
    if not strong:
        result = weak_scalar_dtype(weak[0]) if len(weak) == 1 else _promote_weak(weak)
    else:
        # numpy's own NEP 50 promotion handles weak Python scalars beside strong dtypes.
        result = canonical_dtype(np.result_type(*strong, *weak))
    if is_integer(result):
        # np.result_type(int32, 2**40) is int32: the overflow surfaces only when the scalar is
        # converted, as a bare OverflowError; say here which scalar and which dtype.
        info = np.iinfo(result)
        for value in weak:
            if isinstance(value, int) and not info.min <= value <= info.max:
                raise DTypeError(f"Python integer {value} is out of bounds for {result}")
    return result


def weak_scalar_dtype(value: bool | int | float | complex) -> np.dtype:
    """The dtype a lone Python scalar takes (JAX's default x64 types)."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return float64
    return complex128


def _promote_weak(values: list[Any]) -> np.dtype:
    return canonical_dtype(np.result_type(*[weak_scalar_dtype(v) for v in values]))
