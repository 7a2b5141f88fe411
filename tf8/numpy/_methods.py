"""Operators and methods of TracedTensor (`+`, `@`, `.T`, `.sum()`, ...), forwarded to tf8.numpy.

They are attached here rather than written in tf8/traced.py so that the tracing core does not
depend on the numpy layer.
"""

from __future__ import annotations

from typing import Any

from tf8.traced import TracedTensor

from . import _contract as c
from . import _reductions as r
from . import _shape as s
from . import _ufuncs as u
from ._core import astype
from ._indexing import getitem


def _swap(fn):
    return lambda self, other: fn(other, self)


_OPERATORS = {
    "__add__": u.add,
    "__radd__": _swap(u.add),
    "__sub__": u.subtract,
    "__rsub__": _swap(u.subtract),
    "__mul__": u.multiply,
    "__rmul__": _swap(u.multiply),
    "__truediv__": u.true_divide,
    "__rtruediv__": _swap(u.true_divide),
    "__floordiv__": u.floor_divide,
    "__rfloordiv__": _swap(u.floor_divide),
    "__mod__": u.remainder,
    "__rmod__": _swap(u.remainder),
    "__pow__": u.power,
    "__rpow__": _swap(u.power),
    "__matmul__": c.matmul,
    "__rmatmul__": _swap(c.matmul),
    "__and__": u.bitwise_and,
    "__rand__": _swap(u.bitwise_and),
    "__or__": u.bitwise_or,
    "__ror__": _swap(u.bitwise_or),
    "__xor__": u.logical_xor,
    "__lt__": u.less,
    "__le__": u.less_equal,
    "__gt__": u.greater,
    "__ge__": u.greater_equal,
    "__eq__": u.equal,
    "__ne__": u.not_equal,
    "__neg__": u.negative,
    "__pos__": u.positive,
    "__abs__": u.absolute,
    "__invert__": u.invert,
    "__getitem__": getitem,
}


def _sum(
    self: TracedTensor, axis: Any = None, dtype: Any = None, keepdims: bool = False
) -> TracedTensor:
    return r.sum(self, axis, dtype, keepdims)


def _reshape(self: TracedTensor, *shape: Any, order: str = "C") -> TracedTensor:
    return s.reshape(self, *shape, order=order)


def _transpose(self: TracedTensor, *axes: Any) -> TracedTensor:
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return s.transpose(self, axes or None)


_METHODS = {
    "sum": _sum,
    "prod": lambda self, axis=None, dtype=None, keepdims=False: r.prod(self, axis, dtype, keepdims),
    "max": lambda self, axis=None, keepdims=False: r.max(self, axis, keepdims),
    "min": lambda self, axis=None, keepdims=False: r.min(self, axis, keepdims),
    "mean": lambda self, axis=None, dtype=None, keepdims=False: r.mean(self, axis, dtype, keepdims),
    "var": lambda self, axis=None, dtype=None, ddof=0, keepdims=False: r.var(
        self, axis, dtype, ddof, keepdims
    ),
    "std": lambda self, axis=None, dtype=None, ddof=0, keepdims=False: r.std(
        self, axis, dtype, ddof, keepdims
    ),
    "argmax": lambda self, axis=None, keepdims=False: r.argmax(self, axis, keepdims),
    "argmin": lambda self, axis=None, keepdims=False: r.argmin(self, axis, keepdims),
    "all": lambda self, axis=None, keepdims=False: r.all(self, axis, keepdims),
    "any": lambda self, axis=None, keepdims=False: r.any(self, axis, keepdims),
    "cumsum": lambda self, axis=None, dtype=None: r.cumsum(self, axis, dtype),
    "reshape": _reshape,
    "transpose": _transpose,
    "ravel": lambda self: s.ravel(self),
    "flatten": lambda self: s.ravel(self),
    "squeeze": lambda self, axis=None: s.squeeze(self, axis),
    "swapaxes": lambda self, a, b: s.swapaxes(self, a, b),
    "astype": lambda self, dtype: astype(self, dtype),
    "conj": lambda self: u.conjugate(self),
    "conjugate": lambda self: u.conjugate(self),
    "dot": lambda self, other: c.dot(self, other),
    "clip": lambda self, a_min=None, a_max=None, **kw: u.clip(self, a_min, a_max, **kw),
    "round": lambda self, decimals=0: u.round(self, decimals),
    "__round__": lambda self, ndigits=None: u.round(self, ndigits or 0),
}

_PROPERTIES = {
    "T": lambda self: s.transpose(self),
    "mT": lambda self: s.swapaxes(self, -1, -2),
    "real": lambda self: u.real(self),
    "imag": lambda self: u.imag(self),
}


def install() -> None:
    for name, fn in {**_OPERATORS, **_METHODS}.items():
        setattr(TracedTensor, name, fn)
    for name, fn in _PROPERTIES.items():
        setattr(TracedTensor, name, property(fn))
    # __eq__ returns an array, so TracedTensor stays unhashable as numpy arrays are.
    TracedTensor.__hash__ = None  # type: ignore[assignment]
