"""Comparison, selection and bits: compare, select, and, or, not, xor, the shifts and
bitcast_convert_type.

Their outputs are bools or bits, so every row but select declares a zero derivative
(`zero_jvp`); select is linear in its two branches. Each row sits with its numpy kernel, the
ufunc steps the numpy engine fuses it as and, for compare and select, the scalar code the
numba engine compiles. Batching comes from the category.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define, zero_jvp
from tf8.ops.fusion import Fusion, Step, Steps, by_dtype, direct

from .common import Kernel

_E, _P = Category.ELEMENTWISE, DTypePolicy

COMPARISONS = {  # compare's `direction` parameter → its ufunc
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}
_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _compare(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return COMPARISONS[op["direction"]](x, y)


def _compare_steps(op: Any, dtypes: Sequence[np.dtype]) -> Steps:
    return (Step(COMPARISONS[op["direction"]], (0, 1)),)


def _select_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list[Any]:
    pred, a, b = primals
    _, ta, tb = tangents
    if ta is None and tb is None:
        return [None]
    return [lax.apply1("select", [pred, lax.materialize(ta, a.aval), lax.materialize(tb, b.aval)])]


def _select_transpose(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list[Any]:
    pred = operands[0]
    if linear[0]:
        raise TypeError("select on a linear predicate is not linear")
    zero = lax.zeros(ct.aval)
    on_true = lax.apply1("select", [pred, ct, zero]) if linear[1] else None
    on_false = lax.apply1("select", [pred, zero, ct]) if linear[2] else None
    return [None, on_true, on_false]


def _logical(
    name: str, arity: int, doc: str, for_bool: np.ufunc, for_int: np.ufunc
) -> OpDefinition:
    """A logical row on bools, bitwise on integers."""
    return define(
        Row(name, _E, _P.SAME_INT_OR_BOOL, arity, arity, doc=doc),
        kernel=lambda op, *xs: (for_bool if xs[0].dtype == np.bool_ else for_int)(*xs),
        jvp=zero_jvp,
        fusion=Fusion(ufunc=by_dtype(for_bool, for_int)),
    )


def _as_kind(x: np.ndarray, kind: str) -> np.ndarray:
    """`x`'s bits viewed as the signed ("i") or unsigned ("u") integers of its width."""
    return np.asarray(x).view(np.dtype(f"{kind}{x.dtype.itemsize}"))


# numpy defines shifts by amounts outside [0, bits) as XLA does: left and logical right
# shifts give 0, arithmetic right shifts fill with the sign bit (an amount that is negative
# as a signed integer is huge as an unsigned one). So each shift is one ufunc on views of
# the operands' bits, with no masks or copies.


def _shift_left(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.left_shift(x, y)


def _shift_right_logical(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.right_shift(_as_kind(x, "u"), _as_kind(y, "u")).view(x.dtype)


def _shift_right_arithmetic(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.right_shift(_as_kind(x, "i"), _as_kind(y, "i")).view(x.dtype)


def _shift(name: str, doc: str, kernel: Kernel, ufunc: np.ufunc, kinds: str) -> OpDefinition:
    """A shift: on operands of `kinds` its kernel is `ufunc` itself (the engines fuse it)."""
    return define(
        Row(name, _E, _P.SAME_INT, 2, 2, doc=doc),
        kernel=kernel,
        jvp=zero_jvp,
        fusion=Fusion(ufunc=direct(ufunc, kinds)),
    )


def _bitcast_convert_type(op: Any, x: np.ndarray) -> np.ndarray:
    contiguous = x if x.flags.c_contiguous else x.copy()  # a view needs contiguous bits
    return contiguous.view(np.dtype(op["dtype"]))


DEFINITIONS: tuple[OpDefinition, ...] = (
    define(
        Row("compare", _E, _P.COMPARE_TO_BOOL, 2, 2, ("direction",), doc="eq ne lt le gt ge"),
        kernel=_compare,
        jvp=zero_jvp,
        fusion=Fusion(
            ufunc=_compare_steps,
            scalar=lambda op, a: f"({a[0]} {_SYMBOLS[op['direction']]} {a[1]})",
            bool_result=True,
        ),
    ),
    define(
        Row("select", _E, _P.BOOL_SELECT, 3, 3, doc="select(pred, on_true, on_false)"),
        kernel=lambda op, p, a, b: np.where(p, a, b),
        jvp=_select_jvp,
        transpose=_select_transpose,
        fusion=Fusion(scalar=lambda op, a: f"({a[1]} if {a[0]} else {a[2]})", bool_operands=(0,)),
    ),
    _logical("and", 2, "logical/bitwise and", np.logical_and, np.bitwise_and),
    _logical("or", 2, "logical/bitwise or", np.logical_or, np.bitwise_or),
    _logical("not", 1, "logical/bitwise not", np.logical_not, np.invert),
    _logical("xor", 2, "logical/bitwise exclusive or", np.logical_xor, np.bitwise_xor),
    _shift(
        "shift_left", "x << y (0 when y is outside [0, bits))", _shift_left, np.left_shift, "iu"
    ),
    # Signed operands of a logical right shift are a view first: no ufunc fuses that.
    _shift(
        "shift_right_logical",
        "x >> y filling with zeros (0 when y is outside [0, bits))",
        _shift_right_logical,
        np.right_shift,
        "u",
    ),
    _shift(
        "shift_right_arithmetic",
        "x >> y filling with the sign bit (y outside [0, bits) shifts by bits - 1)",
        _shift_right_arithmetic,
        np.right_shift,
        "i",
    ),
    define(
        Row(
            "bitcast_convert_type",
            _E,
            _P.BITCAST,
            1,
            1,
            ("dtype",),
            doc="reinterpret the bits as `dtype` (same width)",
        ),
        kernel=_bitcast_convert_type,
        jvp=zero_jvp,
    ),
)
