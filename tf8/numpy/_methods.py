"""Operators and methods of TracedTensor (`+`, `@`, `.T`, `.sum()`, `.at[]`, ...).

They are attached here rather than written in tf8/traced.py so that the tracing core does not
depend on the numpy layer; `install()` also attaches numpy's dispatch protocols.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tf8.errors import InPlaceAssignmentError
from tf8.traced import TracedTensor

from . import _contract as c
from . import _dispatch, sorting
from . import _indexing as ix
from . import _matrix as mx
from . import _rearrange as ra
from . import _reductions as r
from . import _shape as s
from . import _ufuncs as u
from ._at import AtIndexer
from ._core import astype
from ._unsupported import UNSUPPORTED


def _swap(fn: Callable[[Any, Any], TracedTensor]) -> Callable[[Any, Any], TracedTensor]:
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
    "__divmod__": lambda self, other: (u.floor_divide(self, other), u.remainder(self, other)),
    "__rdivmod__": lambda self, other: (u.floor_divide(other, self), u.remainder(other, self)),
    "__pow__": u.power,
    "__rpow__": _swap(u.power),
    "__matmul__": c.matmul,
    "__rmatmul__": _swap(c.matmul),
    "__and__": u.bitwise_and,
    "__rand__": _swap(u.bitwise_and),
    "__or__": u.bitwise_or,
    "__ror__": _swap(u.bitwise_or),
    "__xor__": u.bitwise_xor,
    "__rxor__": _swap(u.bitwise_xor),
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
    "__lshift__": u.left_shift,
    "__rlshift__": _swap(u.left_shift),
    "__rshift__": u.right_shift,
    "__rrshift__": _swap(u.right_shift),
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
    import numpy as np

    return np.asarray(self).item(*args)


def _tolist(self: TracedTensor) -> Any:
    import numpy as np

    return np.asarray(self).tolist()


_METHODS = {
    "sum": lambda self, axis=None, dtype=None, out=None, keepdims=False: r.sum(
        self, axis, dtype, keepdims
    ),
    "prod": lambda self, axis=None, dtype=None, out=None, keepdims=False: r.prod(
        self, axis, dtype, keepdims
    ),
    "max": lambda self, axis=None, out=None, keepdims=False: r.max(self, axis, keepdims),
    "min": lambda self, axis=None, out=None, keepdims=False: r.min(self, axis, keepdims),
    "mean": lambda self, axis=None, dtype=None, out=None, keepdims=False: r.mean(
        self, axis, dtype, keepdims
    ),
    "var": lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False: r.var(
        self, axis, dtype, ddof, keepdims
    ),
    "std": lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False: r.std(
        self, axis, dtype, ddof, keepdims
    ),
    "ptp": lambda self, axis=None, keepdims=False: r.ptp(self, axis, keepdims),
    "argmax": lambda self, axis=None, out=None, keepdims=False: r.argmax(self, axis, keepdims),
    "argmin": lambda self, axis=None, out=None, keepdims=False: r.argmin(self, axis, keepdims),
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
    "repeat": lambda self, repeats, axis=None: ra.repeat(self, repeats, axis),
    "take": lambda self, indices, axis=None, out=None, mode=None: ix.take(
        self, indices, axis, out, mode
    ),
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: mx.diagonal(self, offset, axis1, axis2),
    "trace": lambda self, offset=0, axis1=0, axis2=1, dtype=None: mx.trace(
        self, offset, axis1, axis2, dtype
    ),
    "astype": lambda self, dtype, copy=True: astype(self, dtype),
    "copy": lambda self: self,
    "item": _item,
    "tolist": _tolist,
    "conj": lambda self: u.conjugate(self),
    "conjugate": lambda self: u.conjugate(self),
    "dot": lambda self, other: c.dot(self, other),
    "clip": lambda self, a_min=None, a_max=None, **kw: u.clip(self, a_min, a_max, **kw),
    "round": lambda self, decimals=0: u.round(self, decimals),
    "__round__": lambda self, ndigits=None: u.round(self, ndigits or 0),
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
    "real": lambda self: u.real(self),
    "imag": lambda self: u.imag(self),
    "at": lambda self: AtIndexer(self),
    "flat": lambda self: s.ravel(self),
}


def install() -> None:
    """Attach the operators, methods, properties and numpy protocols to TracedTensor."""
    for name, fn in {**_OPERATORS, **_METHODS}.items():
        setattr(TracedTensor, name, fn)
    for name, fn in _PROPERTIES.items():
        setattr(TracedTensor, name, property(fn))
    # __eq__ returns an array, so TracedTensor stays unhashable as numpy arrays are.
    TracedTensor.__hash__ = None  # type: ignore[assignment]
    _dispatch.install()
