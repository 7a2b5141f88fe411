"""numpy's comparisons, logical and bitwise ufuncs, and the three-argument `where`, on traced
values (tf8.numpy.where, in _nonzero, adds the one-argument form)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tf8.errors import DTypeError, UnsupportedOperationError
from tf8.lax.core import apply1
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._core import ArrayLike, asarray, astype, broadcast_arrays, elementwise, promote


def _compare(direction: str) -> Callable[[ArrayLike, ArrayLike], TracedTensor]:
    def fn(x: ArrayLike, y: ArrayLike) -> TracedTensor:
        return elementwise("compare", x, y, direction=direction)

    fn.__name__ = fn.__qualname__ = _COMPARE_NAMES[direction]
    return fn


_COMPARE_NAMES = {
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "gt": "greater",
    "ge": "greater_equal",
}


equal, not_equal = _compare("eq"), _compare("ne")
less, less_equal = _compare("lt"), _compare("le")
greater, greater_equal = _compare("gt"), _compare("ge")


def _to_bool(x: ArrayLike) -> TracedTensor:
    x = asarray(x)
    return x if x.dtype == dt.bool_ else not_equal(x, 0)


def _logical(row: str, x: ArrayLike, y: ArrayLike) -> TracedTensor:
    """`row` on x != 0 and y != 0; of two Python scalars weakly typed when their promotion
    is (JAX's logical functions promote first: `logical_and(True, 2.0)` is a weak bool)."""
    out = apply1(row, broadcast_arrays(_to_bool(x), _to_bool(y)))
    if type(x) in _SCALARS and type(y) in _SCALARS:
        out._weak = promote(x, y)[0]._weak
    return out


_SCALARS = (bool, int, float, complex)


def logical_and(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    return _logical("and", x, y)


def logical_or(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    return _logical("or", x, y)


def logical_not(x: ArrayLike) -> TracedTensor:
    return apply1("not", [_to_bool(x)])


def logical_xor(x: ArrayLike, y: ArrayLike) -> TracedTensor:
    return _logical("xor", x, y)


def _bitwise(name: str) -> Callable[[ArrayLike, ArrayLike], TracedTensor]:
    def fn(x: ArrayLike, y: ArrayLike) -> TracedTensor:
        a, b = promote(x, y)
        if a.dtype not in (dt.bool_, *dt.INTEGERS):
            raise DTypeError(f"bitwise operations need int or bool operands, got {a.dtype}")
        return apply1(name, broadcast_arrays(a, b))

    return fn


bitwise_and, bitwise_or, bitwise_xor = _bitwise("and"), _bitwise("or"), _bitwise("xor")


def _shift(name: str, right_of: Callable[[Any], str] | None = None) -> Callable:
    def fn(x: ArrayLike, y: ArrayLike) -> TracedTensor:
        a, b = promote(x, y)
        if a.dtype == dt.bool_:  # JAX shifts bools as int32 (`promote_args_numeric`)
            a, b = astype(a, dt.int32), astype(b, dt.int32)
        if a.dtype not in dt.INTEGERS:
            raise DTypeError(f"{fn.__name__} needs integer operands, got {a.dtype}")
        row = right_of(a.dtype) if right_of else name
        return apply1(row, broadcast_arrays(a, b))

    fn.__name__ = fn.__qualname__ = name
    return fn


left_shift = _shift("left_shift", lambda dtype: "shift_left")
# numpy's >> fills with the sign bit for signed integers, with zeros for unsigned ones.
right_shift = _shift(
    "right_shift",
    lambda dtype: "shift_right_logical" if dtype.kind == "u" else "shift_right_arithmetic",
)


def invert(x: ArrayLike) -> TracedTensor:
    x = asarray(x)
    if x.dtype not in (dt.bool_, *dt.INTEGERS):
        raise DTypeError(f"invert needs int or bool operands, got {x.dtype}")
    return apply1("not", [x])


def where(condition: ArrayLike, x: ArrayLike, y: ArrayLike) -> TracedTensor:
    """numpy.where(condition, x, y): x where condition holds, else y (promoted and broadcast
    together)."""
    if x is None or y is None:
        raise UnsupportedOperationError("where: pass both x and y, or neither")
    a, b = promote(x, y)
    pred, a, b = broadcast_arrays(_to_bool(condition), a, b)
    out = apply1("select", [pred, a, b])
    out._weak = a._weak and b._weak  # as JAX's select: the branches' weak type, not pred's
    return out
