"""Operators and methods of TracedTensor (`+`, `@`, `.T`, `.sum()`, `.at[]`, ...).

They are attached here rather than written in tf8/traced.py so that the tracing core does not
depend on the numpy layer; the API layer (tf8/__init__.py) calls `install()`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import InPlaceAssignmentError
from tf8.ops import dtypes as dt
from tf8.ops import switches
from tf8.traced import TracedTensor

from . import _contract as c
from . import _extremes as ex
from . import _indexing as ix
from . import _matrix as mx
from . import _rearrange as ra
from . import _reductions as r
from . import _shape as s
from . import sorting
from ._arithmetic import (
    absolute,
    add,
    clip,
    conjugate,
    floor_divide,
    imag,
    multiply,
    negative,
    positive,
    power,
    real,
    remainder,
    subtract,
    true_divide,
)
from ._at import AtIndexer
from ._core import astype
from ._float_ufuncs import round
from ._logic import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    equal,
    greater,
    greater_equal,
    invert,
    left_shift,
    less,
    less_equal,
    not_equal,
    right_shift,
)
from ._unsupported import UNSUPPORTED


def _swap(fn: Callable[[Any, Any], TracedTensor]) -> Callable[[Any, Any], TracedTensor]:
    return lambda self, other: fn(other, self)


def _deferring(fn: Callable[[Any, Any], TracedTensor]) -> Callable[[Any, Any], Any]:
    """`==`/`!=` that hand over to an operand which opts out of numpy's protocols (its type
    sets `__array_ufunc__ = None`, as `pytest.approx` does), as numpy's and JAX's arrays do."""

    def compare(self: TracedTensor, other: Any) -> Any:
        if getattr(type(other), "__array_ufunc__", True) is None:
            return NotImplemented
        return fn(self, other)

    return compare


_OPERATORS = {
    "__add__": add,
    "__radd__": _swap(add),
    "__sub__": subtract,
    "__rsub__": _swap(subtract),
    "__mul__": multiply,
    "__rmul__": _swap(multiply),
    "__truediv__": true_divide,
    "__rtruediv__": _swap(true_divide),
    "__floordiv__": floor_divide,
    "__rfloordiv__": _swap(floor_divide),
    "__mod__": remainder,
    "__rmod__": _swap(remainder),
    "__divmod__": lambda self, other: (floor_divide(self, other), remainder(self, other)),
    "__rdivmod__": lambda self, other: (floor_divide(other, self), remainder(other, self)),
    "__pow__": power,
    "__rpow__": _swap(power),
    "__matmul__": c.matmul,
    "__rmatmul__": _swap(c.matmul),
    "__and__": bitwise_and,
    "__rand__": _swap(bitwise_and),
    "__or__": bitwise_or,
    "__ror__": _swap(bitwise_or),
    "__xor__": bitwise_xor,
    "__rxor__": _swap(bitwise_xor),
    "__lt__": less,
    "__le__": less_equal,
    "__gt__": greater,
    "__ge__": greater_equal,
    "__eq__": _deferring(equal),
    "__ne__": _deferring(not_equal),
    "__neg__": negative,
    "__pos__": positive,
    "__abs__": absolute,
    "__invert__": invert,
    "__lshift__": left_shift,
    "__rlshift__": _swap(left_shift),
    "__rshift__": right_shift,
    "__rrshift__": _swap(right_shift),
    "__getitem__": ix.getitem,
}


def _reshape(self: TracedTensor, *shape: Any, order: str = "C") -> TracedTensor:
    if len(shape) == 1:
        return s.reshape(self, shape[0], order=order)
    return s.reshape(self, shape, order=order)


def _transpose(self: TracedTensor, *axes: Any) -> TracedTensor:
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return s.transpose(self, axes or None)


def _in_place(name: str) -> Callable[..., Any]:
    def method(self: TracedTensor, *args: Any, **kwargs: Any) -> Any:
        raise InPlaceAssignmentError(
            f"TracedTensor.{name} would modify the array in place, and traced values are "
            "immutable; use the functional form (e.g. x.at[i].set(v), tf8.numpy.fill)"
        )

    return method


def _item(self: TracedTensor, *args: Any) -> Any:
    return np.asarray(self).item(*args)


def _tolist(self: TracedTensor) -> Any:
    return np.asarray(self).tolist()


_METHODS = {
    "sum": lambda self, axis=None, dtype=None, out=None, keepdims=False: r.sum(
        self, axis, dtype, keepdims
    ),
    "prod": lambda self, axis=None, dtype=None, out=None, keepdims=False: r.prod(
        self, axis, dtype, keepdims
    ),
    "max": lambda self, axis=None, out=None, keepdims=False: ex.max(self, axis, keepdims),
    "min": lambda self, axis=None, out=None, keepdims=False: ex.min(self, axis, keepdims),
    "mean": lambda self, axis=None, dtype=None, out=None, keepdims=False: r.mean(
        self, axis, dtype, keepdims
    ),
    "var": lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False: r.var(
        self, axis, dtype, ddof, keepdims
    ),
    "std": lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False: r.std(
        self, axis, dtype, ddof, keepdims
    ),
    "ptp": lambda self, axis=None, keepdims=False: ex.ptp(self, axis, keepdims),
    "argmax": lambda self, axis=None, out=None, keepdims=False: ex.argmax(self, axis, keepdims),
    "argmin": lambda self, axis=None, out=None, keepdims=False: ex.argmin(self, axis, keepdims),
    "all": lambda self, axis=None, out=None, keepdims=False: r.all(self, axis, keepdims),
    "any": lambda self, axis=None, out=None, keepdims=False: r.any(self, axis, keepdims),
    "cumsum": lambda self, axis=None, dtype=None: r.cumsum(self, axis, dtype),
    "cumprod": lambda self, axis=None, dtype=None: r.cumprod(self, axis, dtype),
    "reshape": _reshape,
    "transpose": _transpose,
    "ravel": lambda self, order="C": s.ravel(self, order),
    "flatten": lambda self, order="C": s.ravel(self, order),
    "squeeze": lambda self, axis=None: s.squeeze(self, axis),
    "swapaxes": lambda self, a, b: s.swapaxes(self, a, b),
    "repeat": lambda self, repeats, axis=None, **k: ra.repeat(self, repeats, axis, **k),
    "take": lambda self, indices, axis=None, out=None, mode=None, **k: ix.take(
        self, indices, axis, out, mode, **k
    ),
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: mx.diagonal(self, offset, axis1, axis2),
    "trace": lambda self, offset=0, axis1=0, axis2=1, dtype=None: mx.trace(
        self, offset, axis1, axis2, dtype
    ),
    "astype": lambda self, dtype, copy=True: astype(
        self, dtype if switches.enable_x64 else dt.requested_dtype(dtype, "astype")
    ),
    "copy": lambda self: self,
    "item": _item,
    "tolist": _tolist,
    "conj": lambda self: conjugate(self),
    "conjugate": lambda self: conjugate(self),
    "dot": lambda self, other: c.dot(self, other),
    "clip": lambda self, a_min=None, a_max=None, **kw: clip(self, a_min, a_max, **kw),
    "round": lambda self, decimals=0: round(self, decimals),
    "__round__": lambda self, ndigits=None: round(self, ndigits or 0),
    "nonzero": lambda self: UNSUPPORTED["nonzero"](self),
    "argsort": lambda self, axis=-1, kind=None, order=None, **k: sorting.argsort(
        self, axis, kind, order, **k
    ),
    "searchsorted": lambda self, v, side="left", sorter=None: sorting.searchsorted(
        self, v, side, sorter
    ),
    "sort": _in_place("sort"),
    "fill": _in_place("fill"),
    "put": _in_place("put"),
    "resize": _in_place("resize"),
    "itemset": _in_place("itemset"),
}

_PROPERTIES = {
    "T": lambda self: s.transpose(self),
    "mT": lambda self: s.swapaxes(self, -1, -2),
    "real": lambda self: real(self),
    "imag": lambda self: imag(self),
    "at": lambda self: AtIndexer(self),
    "flat": lambda self: s.ravel(self),
}


def install() -> None:
    """Attach the operators, methods and properties to TracedTensor."""
    for name, fn in {**_OPERATORS, **_METHODS}.items():
        setattr(TracedTensor, name, fn)
    for name, fn in _PROPERTIES.items():
        setattr(TracedTensor, name, property(fn))
    # __eq__ returns an array, so TracedTensor stays unhashable as numpy arrays are.
    TracedTensor.__hash__ = None  # type: ignore[assignment]
