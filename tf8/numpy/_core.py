"""The core of tf8.numpy: lifting Python values, promotion, broadcasting, elementwise ops,
and `stack` (lifting a list of traced values stacks them).

Every function here validates its inputs and emits catalog primitives through
`tf8.lax.core.apply1`; broadcasting is explicit in the graph (broadcast_in_dim), dtype
promotion is JAX's lattice (`tf8.ops.dtypes.promote_types`: Python scalars and weakly typed
values are weak and enter as `constant`s; numpy scalars such as `np.float32(2)` are strong).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import AxisError, DTypeError, ShapeError, UnsupportedOperationError
from tf8.lax.core import apply1, concrete, eager_now
from tf8.ops import dtypes as dt
from tf8.ops import switches
from tf8.ops.leaves import concrete_array
from tf8.ops.primitive import ConstantValue, aval_of
from tf8.ops.shapes import Dim, DimExpr, as_dim, dims_equal, shape_str
from tf8.traced import TracedTensor

ArrayLike = Any
_SCALARS = (bool, int, float, complex)


def is_weak_scalar(value: Any) -> bool:
    """A Python scalar (weakly typed under NEP 50); numpy scalars are strong."""
    return isinstance(value, _SCALARS) and not isinstance(value, np.generic)


def constant(value: ArrayLike, dtype: Any = None) -> TracedTensor:
    """A literal array as a structural `constant` node (part of the program's identity)."""
    if isinstance(value, DimExpr) or (
        isinstance(value, (list, tuple)) and any(isinstance(v, DimExpr) for v in value)
    ):
        raise UnsupportedOperationError(
            f"the symbolic dimension {value} has no value at trace time; read a size at run "
            "time with tf8.numpy.shape_of(x, axis)"
        )
    try:
        array = concrete_array(value)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, DTypeError):
            raise
        raise DTypeError(f"cannot convert {type(value).__name__} to a tf8 array: {exc}") from None
    if dtype is not None:
        array = array.astype(dt.as_dtype(dtype))
    if eager_now():  # op by op a constant is its value (a copy, as JAX and ConstantValue make)
        array = np.array(array, copy=True)
        array.flags.writeable = False
        return concrete(array, aval_of(array.shape, array.dtype))
    return apply1("constant", [], value=ConstantValue(array))


def asarray(value: ArrayLike, dtype: Any = None, *, copy: Any = None) -> TracedTensor:
    """`value` as a TracedTensor: traced values pass through, lists of them are stacked; a
    Python int, float or complex stays weakly typed, as `jnp.asarray(1.5)` does."""
    if dtype is not None and not switches.enable_x64:  # JAX's warning for a 64-bit request
        dtype = dt.requested_dtype(dtype, "asarray")
    if isinstance(value, TracedTensor):
        return value if dtype is None else astype(value, dtype)
    if isinstance(value, (list, tuple)) and _contains_traced(value):
        result = stack([asarray(v) for v in value])
        return result if dtype is None else astype(result, dtype)
    if dtype is None and is_weak_scalar(value) and not isinstance(value, bool):
        return _weak(constant(value))
    return constant(value, dtype)


def array(value: ArrayLike, dtype: Any = None, *, copy: Any = True, ndmin: int = 0) -> TracedTensor:
    """numpy.array: like `asarray` (traced values are immutable, so never copied), `ndmin`."""
    out = asarray(value, dtype)
    if out.ndim < ndmin:
        out = apply1("reshape", [out], shape=(1,) * (ndmin - out.ndim) + out.shape)
    return out


def _contains_traced(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, TracedTensor):
            return True
        if isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def stack(arrays: Sequence[ArrayLike], axis: int = 0, *, dtype: Any = None) -> TracedTensor:
    """Join arrays along a new axis."""
    if isinstance(arrays, TracedTensor):
        arrays = list(arrays)
    if not arrays:
        raise ShapeError("need at least one array to stack")
    xs = promote(*[asarray(a) for a in arrays])
    if dtype is not None:
        xs = [astype(x, dtype) for x in xs]
    shapes = {x.shape for x in xs}
    if len(shapes) > 1:
        raise ShapeError(
            "all input arrays must have the same shape, got "
            + ", ".join(shape_str(s) for s in shapes)
        )
    ax = normalize_axis(axis, xs[0].ndim + 1)
    xs = [apply1("reshape", [x], shape=(*x.shape[:ax], 1, *x.shape[ax:])) for x in xs]
    return xs[0] if len(xs) == 1 else apply1("concatenate", xs, axis=ax)


def astype(x: ArrayLike, dtype: Any) -> TracedTensor:
    """`x` converted to `dtype` (a no-op when it already has it)."""
    x = asarray(x)
    target = dt.as_dtype(dtype)
    if x.dtype == target:
        return x
    out = apply1("convert", [x], dtype=target)
    out._weak = False  # an explicit dtype is strong, as JAX's astype
    return out


def _dtype_of(value: Any) -> Any:
    """What promotion sees: a dtype, a Python scalar, or (for weakly typed traced values, e.g.
    a Python float passed to jit) the dtype marked weak."""
    if isinstance(value, TracedTensor):
        return dt.Weak(value.dtype) if value._weak else value.dtype
    return value


def ready_pair(x: Any, y: Any) -> tuple[TracedTensor, TracedTensor] | None:
    """`(x, y)` when nothing needs promoting or broadcasting — two strongly typed traced values
    of one aval, or an inexact one and a Python float/int (its value in x's dtype and shape) —
    else None: the fast path of binary elementwise functions."""
    if type(x) is TracedTensor and not x._weak:
        if type(y) is TracedTensor:
            if not y._weak and (x.aval is y.aval or x.aval == y.aval):
                return x, y
        elif (type(y) is float or type(y) is int) and x.dtype.kind in "fc":
            return x, _fill(x, y)
    elif type(y) is TracedTensor and not y._weak and (type(x) is float or type(x) is int):
        if y.dtype.kind in "fc":
            return _fill(y, x), y
    return None


def _fill(like: TracedTensor, value: float | int) -> TracedTensor:
    """`value` in `like`'s dtype and shape: a concrete array when computing op by op (no
    transform), else a structural constant broadcast (what promotion would record)."""
    with np.errstate(over="ignore"):  # 1e300 into float32 is inf, as in JAX
        if like._value is not None and eager_now():
            return concrete(np.full(like.shape, value, like.dtype), like.aval)
        scalar = np.asarray(value, like.dtype)
    return broadcast_to(constant(scalar), like.shape)


def promote(*values: ArrayLike) -> list[TracedTensor]:
    """Lift `values` to TracedTensors of one dtype under JAX's promotion (Python scalars and
    weakly typed values are weak); the results are weakly typed when the promotion is."""
    operands = [
        v if isinstance(v, TracedTensor) or is_weak_scalar(v) else asarray(v) for v in values
    ]
    dtype, weak = dt.promote_types(*[_dtype_of(v) for v in operands])
    dt.check_ints_fit(dtype, operands)
    lifted = []
    for v in operands:
        if isinstance(v, TracedTensor):
            t = astype(v, dtype)
            if weak and t is not v:
                t._weak = True
            lifted.append(t)
        else:
            scalar = constant(np.asarray(v, dtype=dtype))
            lifted.append(_weak(scalar) if weak else scalar)
    return lifted


def _weak(t: TracedTensor) -> TracedTensor:
    """Mark a constant lifted from a Python scalar as weakly typed (results of ops whose
    inputs are all weak stay weak, as in JAX)."""
    t._weak = True
    return t


def result_type(*values: ArrayLike) -> np.dtype:
    """JAX's result_type over traced values, arrays, dtypes and weak Python scalars."""
    operands = []
    for v in values:
        if isinstance(v, TracedTensor) or is_weak_scalar(v):
            operands.append(_dtype_of(v))
        elif isinstance(v, (np.dtype, type, str)):
            operands.append(dt.as_dtype(v))
        else:
            operands.append(asarray(v).dtype)
    return dt.result_type(*operands)


def broadcast_shapes(*shapes: Sequence[Dim]) -> tuple[Dim, ...]:
    """numpy's broadcasting on (possibly symbolic) shapes; ShapeError naming all of them."""
    ndim = max((len(s) for s in shapes), default=0)
    result: list[Dim] = []
    for axis in range(ndim):
        dim: Dim = 1
        for s in shapes:
            d = s[axis - ndim + len(s)] if axis - ndim + len(s) >= 0 else 1
            if dims_equal(d, 1) is True:
                continue
            if dims_equal(dim, 1) is True or dims_equal(dim, d) is True:
                dim = d
            elif dims_equal(dim, d) is None:
                dim = dim  # symbolic: the elementwise rule adds a run-time guard
            else:
                raise ShapeError(
                    "operands could not be broadcast together with shapes "
                    + " ".join(shape_str(s) for s in shapes)
                )
        result.append(dim)
    return tuple(result)


def as_shape_arg(shape: Any) -> tuple[Dim, ...]:
    """A numpy `shape` argument (an int, a name, a DimExpr or a sequence of them)."""
    if isinstance(shape, (int, np.integer, str, DimExpr)):
        shape = (shape,)
    try:
        return tuple(as_dim(d) for d in shape)
    except TypeError:
        raise ShapeError(f"a shape must be an int or a sequence of ints, got {shape!r}") from None


def broadcast_to(x: ArrayLike, shape: Any) -> TracedTensor:
    """numpy.broadcast_to, as one broadcast_in_dim."""
    x = asarray(x)
    shape = as_shape_arg(shape)
    if x.shape == shape:
        return x
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ShapeError(f"cannot broadcast {shape_str(x.shape)} to {shape_str(shape)}")
    for d, target in zip(x.shape, shape[lead:]):
        if dims_equal(d, 1) is not True and dims_equal(d, target) is False:
            raise ShapeError(f"cannot broadcast {shape_str(x.shape)} to {shape_str(shape)}")
    dims = tuple(range(lead, len(shape)))
    return apply1("broadcast_in_dim", [x], shape=shape, broadcast_dimensions=dims)


def broadcast_arrays(*values: ArrayLike) -> list[TracedTensor]:
    """numpy.broadcast_arrays."""
    xs = [asarray(v) for v in values]
    shape = broadcast_shapes(*[v.shape for v in xs])
    return [broadcast_to(v, shape) for v in xs]


def elementwise(name: str, *values: ArrayLike, **params: Any) -> TracedTensor:
    """Promote, broadcast and apply the elementwise primitive `name`."""
    if len(values) == 2:
        pair = ready_pair(*values)
        if pair is not None:
            return apply1(name, pair, **params)
    return apply1(name, broadcast_arrays(*promote(*values)), **params)


def inexact(x: ArrayLike) -> TracedTensor:
    """`x` in JAX's inexact dtype for it (int64 → float64; bool, uint8, uint32 and int32 →
    float32). A weakly typed value stays weak, as in JAX (`exp(2.0) * a32` is float32)."""
    # a Python bool is strong in JAX (`cos(True)` is a strong float32)
    python_weak = is_weak_scalar(x) and not isinstance(x, bool)
    weak = python_weak or (isinstance(x, TracedTensor) and x._weak)
    x = asarray(x)
    converted = astype(x, dt.float_dtype(x.dtype))
    if weak:  # a fresh tensor (from a Python scalar, or converted), or one already weak
        converted._weak = True
    return converted


_NARROW_FLOATS = (np.dtype(np.float16), np.dtype(np.float32))


def in_float64(fn: Any, *xs: TracedTensor) -> TracedTensor:
    """`fn(*xs)` (operands of one inexact dtype) with float16/float32 operands widened to
    float64 and the result rounded back, as scipy's float32 kernels compute: a cancellation
    inside `fn`, or inside its derivatives (which follow the float64 ops), then costs float64's
    digits, not float32's. Other dtypes (and float32 with x64 off) are computed as they are."""
    narrow, wide = xs[0].dtype, dt.canonical_dtype(np.dtype(np.float64))
    if narrow not in _NARROW_FLOATS or wide == narrow:
        return fn(*xs)
    out = astype(fn(*[astype(x, wide) for x in xs]), narrow)
    out._weak = all(x._weak for x in xs)
    return out


def full_of(value: Any, shape: Sequence[Dim], dtype: Any) -> TracedTensor:
    """A tensor of `shape` filled with the Python scalar `value` (a broadcast constant)."""
    return broadcast_to(constant(np.asarray(value, dtype=dt.as_dtype(dtype))), shape)


def shape_of(x: ArrayLike, axis: int) -> TracedTensor:
    """The size of `axis` of `x` as an int64 scalar (a constant when it is static)."""
    x = asarray(x)
    axis = normalize_axis(axis, x.ndim)
    dim = x.shape[axis]
    if isinstance(dim, int):
        return constant(np.int64(dim))
    return apply1("shape_of", [x], axis=axis)


def shape(a: ArrayLike) -> tuple[Dim, ...]:
    """numpy.shape (symbolic dimensions are DimExprs)."""
    return asarray(a).shape


def ndim(a: ArrayLike) -> int:
    """numpy.ndim."""
    return asarray(a).ndim


def size(a: ArrayLike, axis: int | None = None) -> Dim:
    """numpy.size (a DimExpr when symbolic)."""
    x = asarray(a)
    return x.size if axis is None else x.shape[normalize_axis(axis, x.ndim)]


def normalize_axis(axis: int, ndim: int, what: str = "axis") -> int:
    """`axis` in [0, ndim); AxisError naming the rank otherwise."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise AxisError(f"{what} must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise AxisError(f"{what} {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % ndim


def normalize_axes(axis: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """numpy's `axis=` argument as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axes: tuple[Any, ...] = (axis,)
    elif isinstance(axis, (tuple, list)):
        axes = tuple(axis)
    else:
        raise AxisError(f"axis must be an int, a tuple of ints or None, got {axis!r}")
    norm = tuple(normalize_axis(a, ndim) for a in axes)
    if len(set(norm)) != len(norm):
        raise AxisError(f"repeated axis in {axis}")
    return tuple(sorted(norm))
