"""Eager fast paths: the hottest ops on concrete float values, outside every transform.

`apply` (tf8/lax/core.py) is the one general entry point, and it is cheap, but a user's
no-jit loop (`acc = acc * x + x`, `tnp.sin(t)`, `tnp.sum(t)`, `float(t)`) pays for its
generality on every op: a sequence of inputs, a list of values, a plan lookup keyed by a
tuple. The wrappers here put a narrow test in front of a public function: two (or one)
TracedTensors of one shared aval, of a float or complex dtype, strongly typed, concrete, no
transform and no symbolic trace active. Then the op's cached plan (the one `apply` made the
first time it met these avals) runs at once, with floating-point warnings off, and the result
is a read-only concrete leaf: exactly what `apply` returns, minus its overhead.

Anything else — a first call on new avals, mixed avals, a Python scalar, an integer, a
transform, a tape — goes to the wrapped general function unchanged.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.ops import dtypes as dt
from tf8.ops.definition import PLANS
from tf8.ops.kernels import FP_IGNORE, FP_STATE
from tf8.ops.primitive import Aval, make_primitive
from tf8.traced import TracedTensor, _symbolic, _transform_depth

__all__ = ["fast_binary", "fast_full_reduction", "fast_unary", "leaf"]

_plan_of = PLANS.get  # bound once: the table is emptied and refilled in place, never replaced
_set_fp_state, _reset_fp_state = FP_STATE.set, FP_STATE.reset
_depth, _symbolic_now = _transform_depth.get, _symbolic.get
_setflags = np.ndarray.setflags
_ndarray = np.ndarray

_places = itertools.count()  # each fast function's place in `Aval.fast_plans`

# The dtypes whose arithmetic ops map same-aval inputs to the same aval, with no promotion,
# no bool special case and no integer division: the fast paths' domain.
FAST_DTYPES = frozenset([*dt.FLOATS, *dt.COMPLEXES])


def leaf(aval: Aval, value: Any) -> TracedTensor:
    """A kernel's result as a concrete leaf of `aval`, read-only as JAX arrays are (a 0-d
    ufunc result is a numpy scalar: it becomes a 0-d array)."""
    if type(value) is not _ndarray:
        value = np.asarray(value)
    _setflags(value, write=False)
    out = TracedTensor(None, aval, None)
    out._value = value
    return out


def _plan(aval: Aval, place: int, key: tuple) -> Any:
    """The plan `apply` cached under `key`, kept at `place` in the aval's fast plans (they
    never change: a plan depends on the op and the avals alone). None if there is none yet."""
    plan = _plan_of(key)
    if plan:
        plans = aval.fast_plans
        if len(plans) <= place:
            plans.extend([None] * (place + 1 - len(plans)))
        plans[place] = plan
        return plan
    return None


def _cached(aval: Aval, place: int, key: tuple) -> Any:
    """The plan at `place` in the aval's fast plans, fetched from `apply`'s table if new."""
    try:
        plan = aval.fast_plans[place]
    except IndexError:
        plan = None
    return plan if plan is not None else _plan(aval, place, key)


def _run(plan: tuple, op: Any, *values: np.ndarray) -> TracedTensor:
    """The plan's kernel on `values`, floating-point warnings off, as a concrete leaf."""
    token = _set_fp_state(FP_IGNORE)
    try:
        value = plan[0](op, *values)
    finally:
        _reset_fp_state(token)
    return leaf(plan[1][0], value)


def fast_binary(op: Any, general: Callable[[Any, Any], TracedTensor]) -> Callable:
    """`general(x, y)` with the fast path for two concrete float tensors of one aval."""
    place = next(_places)

    def fn(x: Any, y: Any) -> TracedTensor:
        if type(x) is TracedTensor and type(y) is TracedTensor:
            aval = x.aval
            if (
                aval is y.aval
                and aval.dtype in FAST_DTYPES
                and not (x._weak or y._weak or _depth() or _symbolic_now())
            ):
                a, b = x._value, y._value
                if a is not None and b is not None:  # `_cached` and `_run`, inlined
                    try:
                        plan = aval.fast_plans[place]
                    except IndexError:
                        plan = None
                    if plan is None:
                        plan = _plan(aval, place, (op, aval, aval))
                    if plan is not None:
                        token = _set_fp_state(FP_IGNORE)
                        try:
                            value = plan[0](op, a, b)
                        finally:
                            _reset_fp_state(token)
                        if type(value) is not _ndarray:  # `leaf`, inlined: the hottest path
                            value = np.asarray(value)
                        _setflags(value, write=False)
                        out = TracedTensor(None, plan[1][0], None)
                        out._value = value
                        return out
        return general(x, y)

    _name(fn, general)
    return fn


def fast_unary(op: Any, general: Callable[[Any], TracedTensor]) -> Callable:
    """`general(x)` with the fast path for one concrete float tensor."""
    place = next(_places)

    def fn(x: Any) -> TracedTensor:
        if type(x) is TracedTensor:
            aval = x.aval
            if aval.dtype in FAST_DTYPES and not (x._weak or _depth() or _symbolic_now()):
                a = x._value
                if a is not None:
                    plan = _cached(aval, place, (op, aval))
                    if plan is not None:
                        return _run(plan, op, a)
        return general(x)

    _name(fn, general)
    return fn


def fast_full_reduction(name: str, general: Callable[..., TracedTensor]) -> Callable:
    """`general(a, axis=None, dtype=None, keepdims=False)` (numpy's reduction signature) with
    the fast path for the reduction over every axis of one concrete float tensor."""
    ops: dict[int, Any] = {}  # the reduction primitive over all axes of an ndim-d value
    place = next(_places)

    def fn(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> TracedTensor:
        if axis is None and dtype is None and not keepdims and type(a) is TracedTensor:
            aval = a.aval
            if aval.dtype in FAST_DTYPES and not (a._weak or _depth() or _symbolic_now()):
                value = a._value
                ndim = len(aval.shape)
                if value is not None and ndim:
                    op = ops.get(ndim)
                    if op is None:
                        every = {"axes": tuple(range(ndim))}
                        op = ops.setdefault(ndim, make_primitive(name, 1, every))
                    plan = _cached(aval, place, (op, aval))
                    if plan is not None:
                        return _run(plan, op, value)
        return general(a, axis, dtype, keepdims)

    _name(fn, general)
    return fn


def _name(fn: Callable, general: Callable) -> None:
    fn.__name__ = fn.__qualname__ = general.__name__
    fn.__doc__ = general.__doc__
    fn.__wrapped__ = general  # type: ignore[attr-defined]
