"""dtype rules: how each catalog row's output dtype follows from its operands' dtypes.

A row names a `DTypePolicy`; `infer_dtype` applies it (to the operands the policy reads,
`Row.dtype_operands`) and raises DTypeError naming the op and the dtypes when the operands
do not fit. A row whose dtype no policy gives carries its own rule (`OpDefinition.dtype`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import DTypeError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.catalog import DTypePolicy
from tf8.ops.shape_checks import describe

# --- dtype policies -------------------------------------------------------------------------

_POLICY_DTYPES = {
    DTypePolicy.SAME_ANY: dt.DTYPES,
    DTypePolicy.SAME_NUMERIC: dt.NUMERIC,
    DTypePolicy.SAME_FLOAT: dt.FLOATS,
    DTypePolicy.SAME_FLOAT_OR_COMPLEX: dt.INEXACT,
    DTypePolicy.SAME_INT_OR_BOOL: (dt.bool_,) + dt.INTEGERS,
    DTypePolicy.SAME_INT: dt.INTEGERS,
    DTypePolicy.COMPARE_TO_BOOL: dt.DTYPES,
    DTypePolicy.COMPLEX_TO_REAL: dt.NUMERIC,
    DTypePolicy.REAL_TO_COMPLEX: dt.FLOATS,
}


def _uniform_dtype(op: Any, avals: Sequence[Aval], allowed: tuple) -> np.dtype:
    first = avals[0].dtype
    if any(a.dtype != first for a in avals):
        raise DTypeError(f"{op.name}: operands must share one dtype, got {describe(avals)}")
    if first not in allowed:
        names = ", ".join(str(d) for d in allowed)
        raise DTypeError(f"{op.name}: dtype {first} not accepted (accepts {names})")
    return first


def infer_dtype(op: Any, avals: Sequence[Aval]) -> np.dtype:
    policy = op.row.dtype_policy
    if policy is DTypePolicy.CONVERT:
        return dt.as_dtype(op["dtype"])
    if policy is DTypePolicy.BITCAST:
        return _bitcast_dtype(op, avals[0].dtype)
    if policy is DTypePolicy.SHAPE:
        return dt.int64
    if policy is DTypePolicy.INDEX:
        if avals[0].dtype not in dt.INTEGERS + dt.FLOATS:
            raise DTypeError(f"{op.name}: dtype {avals[0].dtype} not accepted (real numbers)")
        return dt.index_dtype()
    if policy is DTypePolicy.CONSTANT:
        dtype = dt.as_dtype(op["dtype"])
        if dtype not in dt.NUMERIC:  # iota: a ramp 0, 1, 2, ... has no bool form
            raise DTypeError(f"{op.name}: dtype {dtype} not accepted (accepts numeric dtypes)")
        return dtype
    if policy is DTypePolicy.BOOL_SELECT:
        if avals[0].dtype != dt.bool_:
            raise DTypeError(f"{op.name}: predicate must be bool, got {avals[0].dtype}")
        return _uniform_dtype(op, avals[1:], dt.DTYPES)
    read = op.row.dtype_operands
    operands = avals if read is None else [avals[i] for i in read]
    result = _uniform_dtype(op, operands, _POLICY_DTYPES[policy])
    if policy is DTypePolicy.COMPARE_TO_BOOL:
        return dt.bool_
    if policy is DTypePolicy.COMPLEX_TO_REAL:
        return dt.real_dtype(result)
    if policy is DTypePolicy.REAL_TO_COMPLEX:
        return dt.complex_dtype(result)
    return result


def _bitcast_dtype(op: Any, source: np.dtype) -> np.dtype:
    """The target of a same-width bitcast between integer and float dtypes."""
    target = dt.as_dtype(op["dtype"])
    bit_types = dt.INTEGERS + dt.FLOATS
    if source not in bit_types or target not in bit_types:
        names = ", ".join(str(d) for d in bit_types)
        raise DTypeError(f"{op.name}: {source} to {target} not accepted (accepts {names})")
    if source.itemsize != target.itemsize:
        raise DTypeError(f"{op.name}: {source} to {target} changes the width (same width only)")
    return target
