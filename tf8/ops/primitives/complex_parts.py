"""Complex parts and dtype conversion: conj, real, imag, complex and convert.

conj, real, imag and complex are linear, and convert is between inexact dtypes: each row sits
with its numpy kernel and its transpose rule (convert has its own JVP rule), written with the
builders the transforms hand in as `lax`. Complex numbers follow JAX: the transpose is taken
w.r.t. the bilinear pairing sum(a*b), so `conj` transposes to `conj`. Batching comes from the
category.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.ops import dtypes as dt
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define
from tf8.ops.fusion import Fusion, direct

from .common import transpose_each, unary_kernel

_E, _P = Category.ELEMENTWISE, DTypePolicy


def _complex(op: Any, re: np.ndarray, im: np.ndarray) -> np.ndarray:
    # Not re + 1j * im: 1j * inf is nan + inf j, so complex(1, inf) would get a nan real part.
    out = np.empty(re.shape, dt.complex_dtype(re.dtype))
    out.real, out.imag = re, im
    return out


def _convert(op: Any, x: Any) -> Any:
    """Also runs on dask arrays as they are (array methods and NEP-18 `np.where` only:
    `Fusion.whole_array`). A float saturates into an integer dtype and NaN gives 0, as XLA's
    convert (numpy's cast would wrap around)."""
    target = np.dtype(op["dtype"])
    if x.dtype.kind == "c" and target.kind != "c":
        x = x.real
    if x.dtype.kind != "f" or target.kind not in "iu":
        return x.astype(target)
    info = np.iinfo(target)
    high, low = x >= info.max, x <= info.min
    inside = np.where((x != x) | high | low, 0, x).astype(target)
    return np.where(high, target.type(info.max), np.where(low, target.type(info.min), inside))


def _real_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list[Any]:
    return [lax.convert(ct, operands[0].dtype)]


def _imag_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list[Any]:
    # imag(t) = Im(t): its transpose maps ct to complex(0, -ct); on a real operand it is 0.
    if not dt.is_complex(operands[0].dtype):
        return [None]
    return [lax.mul(lax.convert(ct, operands[0].dtype), -1j)]


def _complex_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list[Any]:
    re = lax.apply1("real", [ct]) if linear[0] else None
    im = lax.neg(lax.apply1("imag", [ct])) if linear[1] else None
    return [re, im]


def _convert_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list[Any]:
    (t,) = tangents
    if t is None or not dt.is_inexact(outputs[0].dtype):
        return [None]
    return [lax.apply(op, [t])[0]]


def _convert_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list[Any]:
    (x,) = operands
    if dt.is_complex(ct.dtype) and not dt.is_complex(x.dtype):
        ct = lax.apply1("real", [ct])
    return [lax.convert(ct, x.dtype)]


DEFINITIONS: tuple[OpDefinition, ...] = (
    define(
        Row("conj", _E, _P.SAME_NUMERIC, 1, 1, linear=True, doc="complex conjugate"),
        kernel=unary_kernel(np.conj),
        transpose=transpose_each(lambda lax, ct, x: lax.apply1("conj", [ct])),
        fusion=Fusion(ufunc=direct(np.conjugate)),
    ),
    define(
        Row("real", _E, _P.COMPLEX_TO_REAL, 1, 1, linear=True, doc="real part"),
        kernel=unary_kernel(lambda x: np.real(x).copy()),
        transpose=_real_transpose,
    ),
    define(
        Row("imag", _E, _P.COMPLEX_TO_REAL, 1, 1, linear=True, doc="imaginary part"),
        kernel=unary_kernel(lambda x: np.imag(x).copy()),
        transpose=_imag_transpose,
    ),
    define(
        Row("complex", _E, _P.REAL_TO_COMPLEX, 2, 2, linear=True, doc="re + 1j*im"),
        kernel=_complex,
        transpose=_complex_transpose,
    ),
    define(
        Row(
            "convert", _E, _P.CONVERT, 1, 1, ("dtype",), doc="cast (complex → real keeps real part)"
        ),
        kernel=_convert,
        jvp=_convert_jvp,
        transpose=_convert_transpose,
        fusion=Fusion(
            scalar=lambda op, a: f"np.{np.dtype(op['dtype']).name}({a[0]})", whole_array=True
        ),
    ),
)
