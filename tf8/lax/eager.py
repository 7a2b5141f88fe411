"""Eager fast paths: the hottest ops on concrete float values, outside transforms or on tapes.

`apply` (tf8/lax/core.py) is the one general entry point, and it is cheap, but a user's
no-jit loop (`acc = acc * x + x`, `tnp.sin(t)`, `tnp.sum(t)`, `h @ m`, `float(t)`) pays for
the generality of the tf8.numpy layer above it on every op: promotion, broadcasting, a list
of values, a plan lookup keyed by a tuple. The wrappers here put a narrow test in front of a
public function: concrete, strongly typed float or complex operands, no symbolic trace, no
transform other than tapes. Then the op runs at once, without floating-point warnings
(`fpstate.quiet_numpy`), and its result is a concrete leaf: exactly what the general path
returns (read-only when it leaves tf8, see `TracedTensor.__array__`).

- Operands of one aval, and one-operand ops, use the op's cached plan — the one `apply` made
  the first time it met these avals — kept at a place on the aval.
- Outside every transform: operands of one dtype that broadcast, Python floats and ints
  (weakly typed, as in JAX), numpy arrays of the tensor's dtype, sums over some or all axes
  with or without keepdims, and matrix products (the last two in eager_reduce.py) go
  straight to numpy, whose broadcasting gives what the general path's broadcast-then-op
  gives.
- On tapes (top-level grad/jvp/vjp, tf8.ad.tape) the fast paths apply the ops the general
  path would — a Python number becomes a constant of the tensor's aval, operands are
  broadcast by broadcast_in_dim, a sum is its reduction and keepdims' reshape, a matrix
  product its dot_general — and each tape following an operand writes them down, as
  `apply`'s tape branch does.

Anything else — a first call on new avals, an integer, a graph transform — goes to the
wrapped general function unchanged.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.ops import dtypes as dt
from tf8.ops.definition import PLANS
from tf8.ops.fpstate import QUIET_RUN, quiet_numpy, quietly
from tf8.ops.frames import frame_var
from tf8.ops.primitive import Aval, aval_of, make_primitive
from tf8.traced import TracedTensor

from .core import apply, leaf, write_down

__all__ = [
    "FAST_DTYPES",
    "eager_array",
    "eager_value",
    "fast_binary",
    "fast_unary",
    "name_like",
    "on_tapes",
    "taped_value",
    "ufunc_leaf",
]

_plan_of = PLANS.get  # bound once: the table is emptied and refilled in place, never replaced
_quiet_run = QUIET_RUN
_frame = frame_var.get  # the transform state (tf8.ops.frames): None outside transforms
_ndarray = np.ndarray

_places = itertools.count()  # each fast function's place in `Aval.fast_plans`

# The dtypes whose arithmetic ops map same-aval inputs to the same aval, with no promotion,
# no bool special case and no integer division: the fast paths' domain.
# (with jax_enable_x64 off, float64 and complex128 leave it: numpy arrays of them take the
# general path, which narrows them; the set is tf8.ops.dtypes', swapped in place)
FAST_DTYPES = dt.NATIVE_INEXACT


def _plan(aval: Aval, place: int, key: tuple) -> Any:
    """The plan `apply` cached under `key`, kept at `place` in the aval's fast plans (they
    never change: a plan depends on the op and the avals alone); False, kept too, for an
    aval whose dtype is not one of FAST_DTYPES; None if there is no plan yet."""
    if aval.dtype in FAST_DTYPES:
        plan = _plan_of(key)
        if not plan:
            return None
        # (kernel, output avals, the numpy function a `_unary`/`_binary` kernel wraps)
        plan = (plan[0], plan[1], getattr(plan[0], "direct", None))
    else:
        plan = False
    plans = aval.fast_plans
    if len(plans) <= place:
        plans.extend([None] * (place + 1 - len(plans)))
    plans[place] = plan
    return plan


def _cached(aval: Aval, place: int, key: tuple) -> Any:
    """The plan at `place` in the aval's fast plans, fetched from `apply`'s table if new
    (False or None: none)."""
    try:
        plan = aval.fast_plans[place]
    except IndexError:
        plan = None
    return plan if plan is not None else _plan(aval, place, key)


def run_plan(plan: tuple, op: Any, *values: np.ndarray) -> TracedTensor:
    """The plan's kernel on `values` (the numpy function it wraps, when it has one),
    floating-point warnings off, as a concrete leaf."""
    direct = plan[2]
    if direct is not None:
        return leaf(plan[1][0], quiet_numpy(direct, *values))
    return leaf(plan[1][0], quietly(plan[0], op, *values))


def fast_binary(op: Any, ufunc: np.ufunc | None, general: Callable) -> Callable:
    """`general(x, y)` with the fast paths for concrete float tensors: two of one aval (the
    cached plan), two of one dtype that broadcast, or one and a Python float or int (weakly
    typed, as in JAX: the tensor's dtype wins). `ufunc` is the op's numpy ufunc: on floats,
    broadcasting and weak scalars give what the general path's broadcast-then-op gives; None
    for ops that do not broadcast (tf8.lax's): then operands must share an aval."""
    place = next(_places)
    shapes: dict[tuple[Aval, Aval], Aval | None] = {}  # broadcast results, by operand avals

    def fn(x: Any, y: Any) -> TracedTensor:
        if type(x) is TracedTensor and type(y) is TracedTensor:
            aval = x.aval
            if aval is y.aval:
                try:  # `_cached` and `run_plan`, inlined: the hottest path
                    plan = aval.fast_plans[place]
                except IndexError:
                    plan = None
                if plan is None:
                    plan = _plan(aval, place, (op, aval, aval))
                a, b = x._value, y._value
                if plan and a is not None and b is not None and not (x._weak or y._weak):
                    frame = _frame()
                    tapes = () if frame is None else frame.tapes
                    if frame is None or (frame.op_by_op and tapes and not frame.symbolic):
                        direct = plan[2]
                        if direct is not None:
                            try:  # `quiet_numpy`, inlined
                                value = _quiet_run(direct, a, b)
                            except RuntimeError:
                                value = quietly(direct, a, b)
                        else:
                            value = quietly(plan[0], op, a, b)
                        if type(value) is not _ndarray:  # `leaf`, inlined
                            value = np.array(value)
                        out = TracedTensor(None, plan[1][0], None)
                        out._value = value
                        if tapes:  # each tape following x or y writes the op down
                            write_down(tapes, op, (x, y), [out])
                        return out
        if _frame() is not None:
            # on tapes: the constant or broadcast the general path makes, then the op
            if _weak_number(y) and type(x) is TracedTensor and taped_value(x):
                return fn(x, _filled(x.aval, y))
            if _weak_number(x) and type(y) is TracedTensor and taped_value(y):
                return fn(_filled(y.aval, x), y)
            if ufunc is not None and _taped_pair(x, y) and x.aval.shape != y.aval.shape:
                out_aval = _broadcast_aval(shapes, x.aval, y.aval)
                if out_aval is not None:
                    return fn(_broadcast(x, out_aval), _broadcast(y, out_aval))
        elif ufunc is not None:
            # outside transforms: numpy's broadcasting and weak scalars give the same values
            ax, ay = _eager_operand(x), _eager_operand(y)
            if ax is not None and ay is not None and (ax is not _NUMBER or ay is not _NUMBER):
                if ax is _NUMBER:  # (the other operand: a tensor or a numpy array)
                    return ufunc_leaf(ufunc, ay, x, _value(y))
                if ay is _NUMBER:
                    return ufunc_leaf(ufunc, ax, _value(x), y)
                # two tensors of one aval: the general path makes the plan the one-aval path
                # above then uses; a numpy array and a tensor: numpy's broadcasting, always
                if ax.dtype == ay.dtype and (ax is not ay or type(x) is not type(y)):
                    out_aval = _broadcast_aval(shapes, ax, ay)
                    if out_aval is not None:
                        return ufunc_leaf(ufunc, out_aval, _value(x), _value(y))
        return general(x, y)

    name_like(fn, general)
    return fn


_EXACT = 2**53  # Python ints below this convert to float64 exactly
_NUMBER = object()  # `_eager_operand`'s answer for a Python number


def _weak_number(v: Any) -> bool:
    """A Python float, or an int that converts to float exactly (weakly typed, as in JAX)."""
    return type(v) is float or (type(v) is int and -_EXACT < v < _EXACT)


def _strong(x: TracedTensor) -> bool:
    """A concrete, strongly typed float or complex tensor."""
    return x._value is not None and x.aval.dtype in FAST_DTYPES and not x._weak


def on_tapes() -> bool:
    """Tapes are active and nothing records: ops are computed and written down."""
    frame = _frame()
    return frame is not None and bool(frame.tapes) and not frame.symbolic


def taped_value(x: TracedTensor) -> bool:
    """`_strong`, `on_tapes` (the fast paths that write ops down)."""
    return _strong(x) and on_tapes()


def _taped_pair(x: Any, y: Any) -> bool:
    """Two `taped_value` tensors of one dtype."""
    return (
        type(x) is TracedTensor
        and type(y) is TracedTensor
        and x.aval.dtype == y.aval.dtype
        and taped_value(x)
        and taped_value(y)
    )


def _eager_operand(v: Any) -> Any:
    """Outside transforms: an `eager_value` tensor's aval, a numpy float array's aval (read,
    never kept), `_NUMBER` for a weak Python number, or None (the general path decides)."""
    if type(v) is TracedTensor:
        return v.aval if eager_value(v) else None
    if type(v) is _ndarray:
        return aval_of(v.shape, v.dtype) if v.dtype in FAST_DTYPES else None
    return _NUMBER if _weak_number(v) else None


def _value(v: Any) -> np.ndarray:
    return v._value if type(v) is TracedTensor else v


def _broadcast(x: TracedTensor, aval: Aval) -> TracedTensor:
    """`x` broadcast to `aval` by the broadcast_in_dim tf8.numpy's broadcast_to records
    (applied, so the tapes write it down); `x` itself when it has that shape."""
    shape = aval.shape
    if x.aval.shape == shape:
        return x
    dims = tuple(range(len(shape) - len(x.aval.shape), len(shape)))
    params = {"shape": shape, "broadcast_dimensions": dims}
    return apply(make_primitive("broadcast_in_dim", 1, params), [x])[0]


def _filled(aval: Aval, scalar: float) -> TracedTensor:
    """A concrete constant of `aval` holding `scalar` (what tf8.lax's `full` computes)."""
    if math.prod(aval.shape) <= 4096:  # small: a filled array (numpy reads it faster)
        return leaf(aval, np.full(aval.shape, scalar, aval.dtype))
    return leaf(aval, np.broadcast_to(np.asarray(scalar, aval.dtype), aval.shape))  # a view


def eager_value(x: TracedTensor) -> bool:
    """`_strong`, outside every transform."""
    return _strong(x) and _frame() is None


def eager_array(x: Any) -> tuple[Aval, np.ndarray] | None:
    """(aval, value) of an `eager_value` tensor or of a numpy array of a float dtype (read,
    never kept), outside every transform; None for anything else."""
    if type(x) is TracedTensor:
        return (x.aval, x._value) if eager_value(x) else None
    if type(x) is _ndarray and x.dtype in FAST_DTYPES and _frame() is None:
        return aval_of(x.shape, x.dtype), x
    return None


def _broadcast_aval(shapes: dict, ax: Aval, ay: Aval) -> Aval | None:
    """The aval two operand avals broadcast to (None when they do not: the general path
    then names the mismatch). Kept per pair, in a table cleared when it grows large."""
    key = (ax, ay)
    if key in shapes:
        return shapes[key]
    try:
        out: Aval | None = aval_of(np.broadcast_shapes(ax.shape, ay.shape), ax.dtype)
    except (ValueError, TypeError):
        out = None
    if len(shapes) >= 512:
        shapes.clear()
    shapes[key] = out
    return out


def ufunc_leaf(ufunc: np.ufunc, aval: Aval, a: Any, b: Any) -> TracedTensor:
    """`ufunc(a, b)`, floating-point warnings off, as a concrete leaf of `aval`."""
    return leaf(aval, quiet_numpy(ufunc, a, b))


def fast_unary(op: Any, general: Callable[[Any], TracedTensor]) -> Callable:
    """`general(x)` with the fast path for one concrete float tensor or numpy array."""
    place = next(_places)

    def fn(x: Any) -> TracedTensor:
        if type(x) is TracedTensor:
            a = x._value
            if a is not None and not x._weak:
                aval = x.aval
                plan = _cached(aval, place, (op, aval))  # (only FAST_DTYPES have one)
                if plan:
                    frame = _frame()
                    tapes = () if frame is None else frame.tapes
                    if frame is None or (frame.op_by_op and tapes and not frame.symbolic):
                        out = run_plan(plan, op, a)
                        if tapes:
                            write_down(tapes, op, (x,), [out])
                        return out
        elif type(x) is _ndarray and (found := eager_array(x)) is not None:
            aval = found[0]  # a numpy array in: read, never kept
            plan = _cached(aval, place, (op, aval))
            if plan:
                return run_plan(plan, op, x)
        return general(x)

    name_like(fn, general)
    return fn


def name_like(fn: Callable, general: Callable) -> None:
    fn.__name__ = fn.__qualname__ = general.__name__
    fn.__doc__ = general.__doc__
    fn.__wrapped__ = general  # type: ignore[attr-defined]
