"""numpy's own functions on TracedTensors: `__array_function__` and `__array_ufunc__`.

`np.sin(t)`, `np.sum(t, axis=0)`, `np_array + t`, `np.add.reduce(t)` ... all land here and
call the tf8.numpy function of the same name, so existing numpy code traces unchanged;
scipy.special's ufuncs (`scipy.special.gammaln(t)`) call tf8.scipy.special's.
Anything tf8.numpy does not implement raises UnsupportedOperationError naming the numpy
function: a traced value is never silently turned into a constant. The table sits above every
library it serves; the API layer (tf8/__init__.py) calls `install()`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8 import fft, linalg, tree
from tf8 import numpy as tnp
from tf8.errors import UnsupportedOperationError
from tf8.scipy.special import for_scipy_ufunc
from tf8.traced import TracedTensor

from ._unsupported import REASONS

_FUNCTIONS: dict[Any, Callable[..., Any]] | None = None
_SIGNATURES: dict[Callable[..., Any], inspect.Signature | None] = {}

# ufunc.reduce / .accumulate as tf8.numpy reductions (keyed by the ufunc's name).
_REDUCE = {
    "add": "sum",
    "multiply": "prod",
    "maximum": "max",
    "minimum": "min",
    "logical_and": "all",
    "logical_or": "any",
}
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}
_ARRAY_INPUTS = (TracedTensor, np.ndarray, np.generic, bool, int, float, complex, list, tuple)


def function_table() -> dict[Any, Callable[..., Any]]:
    """numpy function object → tf8.numpy function of the same name (built once)."""
    global _FUNCTIONS
    if _FUNCTIONS is None:
        table: dict[Any, Callable[..., Any]] = {}
        pairs = ((np, tnp), (np.linalg, linalg), (np.fft, fft))
        for namespace, ours in pairs:
            for name in ours.__all__:
                theirs = getattr(namespace, name, None)
                mine = getattr(ours, name)
                if callable(theirs) and not isinstance(theirs, (np.ufunc, type)) and callable(mine):
                    table[theirs] = mine
        _FUNCTIONS = table
    return _FUNCTIONS


def _qualified(func: Any) -> str:
    module = getattr(func, "__module__", None) or "numpy"
    return f"{module}.{getattr(func, '__name__', repr(func))}"


def _check_out(name: str, kwargs: dict[str, Any]) -> None:
    out = kwargs.pop("out", None)
    outs = out if isinstance(out, tuple) else (out,)
    if any(o is not None for o in outs):
        raise UnsupportedOperationError(
            f"{name}(..., out=...) is not supported: traced values are immutable; use the result"
        )


def _call(name: str, fn: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> Any:
    """`fn(*args, **kwargs)`, refusing arguments tf8's version does not take by name."""
    if fn not in _SIGNATURES:
        try:
            _SIGNATURES[fn] = inspect.signature(fn)
        except (TypeError, ValueError):
            _SIGNATURES[fn] = None
    signature = _SIGNATURES[fn]
    if signature is not None:
        try:
            signature.bind(*args, **kwargs)
        except TypeError as exc:
            params = ", ".join(signature.parameters)
            raise UnsupportedOperationError(
                f"{name}: these arguments are not supported by tf8.numpy ({exc}); "
                f"tf8 takes {name.rsplit('.', 1)[-1]}({params})"
            ) from None
    return fn(*args, **kwargs)


def _all_computed(value: Any) -> bool:
    """True when every TracedTensor in the pytree `value` has a value nothing differentiates,
    so numpy may read it."""
    return all(
        not t._unbound and t._differentiated_by() is None
        for t in tree.tree_leaves(value)
        if isinstance(t, TracedTensor)
    )


def _as_numpy(value: Any) -> Any:
    """The pytree `value` with every TracedTensor in it as its numpy value."""
    return tree.tree_map(lambda t: np.asarray(t) if isinstance(t, TracedTensor) else t, value)


def array_function(
    self: TracedTensor, func: Any, types: Any, args: tuple, kwargs: dict[str, Any]
) -> Any:
    """TracedTensor.__array_function__: numpy.f(traced, ...) → tf8.numpy.f(traced, ...)."""
    if not all(issubclass(t, (TracedTensor, np.ndarray)) for t in types):
        return NotImplemented
    name = _qualified(func)
    fn = function_table().get(func)
    if fn is None:
        reason = REASONS.get(getattr(func, "__name__", ""))
        if reason is None and _all_computed((args, kwargs)):
            # numpy code receiving computed Arrays keeps working, as with JAX's arrays: the
            # function runs on their (read-only) numpy values and returns numpy's answer
            return func(*_as_numpy(args), **_as_numpy(kwargs))
        why = f": {reason}" if reason else " (no tf8.numpy function of that name)"
        raise UnsupportedOperationError(f"{name} is not supported on traced values{why}")
    kwargs = dict(kwargs)
    _check_out(name, kwargs)
    return _call(name, fn, args, kwargs)


_CALLS: dict[np.ufunc, Callable[..., Any]] = {}  # `_ufunc_fn`'s answers, by ufunc


def _ufunc_fn(ufunc: np.ufunc) -> Callable[..., Any]:
    """The tf8 function for `ufunc`: numpy's by name, scipy.special's from tf8.scipy.special
    (a scipy ufunc reaches here only once scipy.special is imported: answers never change)."""
    fn = _CALLS.get(ufunc)
    if fn is None:
        fn = _CALLS[ufunc] = _find_ufunc_fn(ufunc)
    return fn


def _find_ufunc_fn(ufunc: np.ufunc) -> Callable[..., Any]:
    special = for_scipy_ufunc(ufunc)
    if special is not None:
        return special
    name = ufunc.__name__
    fn = getattr(tnp, name, None)
    if fn is None or name in REASONS or not callable(fn):
        raise UnsupportedOperationError(
            f"the numpy ufunc {name} is not supported on traced values "
            "(no tf8.numpy function of that name)"
        )
    return fn


def array_ufunc(
    self: TracedTensor, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any
) -> Any:
    """TracedTensor.__array_ufunc__: np.sin(t), np_array + t, np.add.reduce(t), ..."""
    for i in inputs:
        if not isinstance(i, _ARRAY_INPUTS):
            return NotImplemented
    if method == "__call__" and not kwargs and ufunc in _CALLS:  # the common case, at once
        return _CALLS[ufunc](*inputs)
    name = f"numpy.{ufunc.__name__}"
    _check_out(name if method == "__call__" else f"{name}.{method}", kwargs)
    if method == "__call__":
        fn = _ufunc_fn(ufunc)
        dtype = kwargs.pop("dtype", None)
        if kwargs.get("where", True) is True:
            kwargs.pop("where", None)
        if kwargs:
            raise UnsupportedOperationError(f"{name}: arguments {sorted(kwargs)} are not supported")
        if dtype is not None:
            inputs = tuple(tnp.astype(tnp.asarray(i), dtype) for i in inputs)
        return fn(*inputs)
    if method == "reduce" and ufunc.__name__ in _REDUCE:
        return _call(f"{name}.reduce", _reduce_fn(_REDUCE[ufunc.__name__]), inputs, kwargs)
    if method == "accumulate" and ufunc.__name__ in _ACCUMULATE:
        return _call(
            f"{name}.accumulate", _accumulate_fn(_ACCUMULATE[ufunc.__name__]), inputs, kwargs
        )
    if method == "outer" and len(inputs) == 2:
        fn = _ufunc_fn(ufunc)
        a, b = tnp.asarray(inputs[0]), tnp.asarray(inputs[1])
        return fn(tnp.reshape(a, a.shape + (1,) * b.ndim), b)
    hint = " (it writes in place; use x.at[i].add(v) and friends)" if method == "at" else ""
    raise UnsupportedOperationError(f"{name}.{method} is not supported on traced values{hint}")


@functools.cache
def _reduce_fn(target: str) -> Callable[..., Any]:
    fn = getattr(tnp, target)

    def reduce(array: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False) -> Any:
        if target in ("sum", "prod"):
            return fn(array, axis=axis, dtype=dtype, keepdims=keepdims)
        out = fn(array, axis=axis, keepdims=keepdims)
        return out if dtype is None else tnp.astype(out, dtype)

    return reduce


@functools.cache
def _accumulate_fn(target: str) -> Callable[..., Any]:
    fn = getattr(tnp, target)

    def accumulate(array: Any, axis: int = 0, dtype: Any = None) -> Any:
        return fn(array, axis=axis, dtype=dtype)

    return accumulate


def install() -> None:
    """Attach the two protocols to TracedTensor."""
    TracedTensor.__array_function__ = array_function  # type: ignore[attr-defined]
    TracedTensor.__array_ufunc__ = array_ufunc  # type: ignore[attr-defined]
