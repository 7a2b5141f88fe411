"""JAX's `lax` names on tf8's primitives: one catalog row per function, no promotion.

As in JAX, operands must already share a dtype (Python scalars are weak: they take the other
operand's dtype), and shapes must already agree (`broadcast_in_dim` first). Arrays that are not
traced become structural constants.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import DTypeError
from tf8.lax.builders import add as add_
from tf8.lax.builders import broadcast as _broadcast_in_dim
from tf8.lax.builders import compare, full
from tf8.lax.builders import select as select_
from tf8.lax.core import apply1
from tf8.ops import dtypes as dt
from tf8.ops.leaves import concrete_array
from tf8.ops.primitive import Aval, ConstantValue
from tf8.traced import TracedTensor

_SCALARS = (bool, int, float, complex)


def _array(x: Any, like: TracedTensor | None = None, shaped: bool = True) -> TracedTensor:
    """`x` as a TracedTensor; a Python scalar takes `like`'s dtype and shape (its dtype only,
    not `shaped`) (weak typing)."""
    if isinstance(x, TracedTensor):
        return x
    python_scalar = isinstance(x, _SCALARS) and not isinstance(x, np.generic)
    if like is not None and python_scalar:
        _check_fits(x, like)
        lifted = full(like.aval if shaped else Aval((), like.dtype), x)
        lifted._weak = like._weak  # weak beside a weak operand: the result stays weak
        return lifted
    lifted = apply1("constant", [], value=ConstantValue(concrete_array(x)))
    lifted._weak = python_scalar and not isinstance(x, bool)  # JAX: Python scalars are weak
    return lifted


_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _check_fits(value: Any, like: TracedTensor) -> None:
    """A Python scalar beside an array takes the array's dtype only where nothing is lost:
    not a float into an integer array, a complex into a real one, or an int out of range."""
    kind = type(value).__name__[0]  # bool, int, float, complex: b, i, f, c
    if _KIND_RANK[kind] > _KIND_RANK[like.dtype.kind]:
        raise DTypeError(
            f"a Python {type(value).__name__} ({value!r}) cannot take the dtype {like.dtype} "
            f"of the other operand ({like.aval}); lax ops do not promote (jnp's do)"
        )
    dt.check_ints_fit(like.dtype, [value])


def _weak_to(x: TracedTensor, like: TracedTensor | None) -> TracedTensor:
    """A weakly typed value beside a strong one takes its dtype, as a Python scalar does."""
    if like is None or not x._weak or like._weak or x.dtype == like.dtype:
        return x
    if _KIND_RANK[x.dtype.kind] > _KIND_RANK[like.dtype.kind]:
        raise DTypeError(f"a weakly typed {x.aval} cannot take the dtype of {like.aval}")
    return apply1("convert", [x], dtype=like.dtype)


def _operands(*xs: Any, broadcast: bool = True) -> list[TracedTensor]:
    """The operands of an elementwise lax op: a Python scalar takes the dtype and shape of a
    traced operand, and a rank-0 operand is broadcast to the others' shape, as JAX's lax
    does (so `jit(lambda x, s: lax.min(x, s))(x, 2.0)`, where `s` is traced, works as it
    does eagerly). Dtypes must still agree."""
    like = next((x for x in xs if isinstance(x, TracedTensor) and not x._weak), None)
    if like is None:
        like = next((x for x in xs if isinstance(x, TracedTensor) and x.ndim), None)
    if like is None:
        like = next((x for x in xs if not isinstance(x, _SCALARS)), None)
        like = None if like is None else _array(like)
    operands = [_weak_to(_array(x, like, broadcast), like) for x in xs]
    if not broadcast:  # (a product's operands keep their ranks: a Python scalar is 0-d)
        return operands
    shaped = next((t for t in operands if t.ndim), None)
    if shaped is not None:
        operands = [_broadcast_in_dim(t, shaped.shape, ()) if not t.ndim else t for t in operands]
    return operands


def _unary(name: str, doc: str | None = None):
    def fn(x: Any) -> TracedTensor:
        return apply1(name, [_array(x)])

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or f"lax.{name}: the `{name}` primitive, elementwise."
    return fn


def _binary(name: str, public: str | None = None):
    def fn(x: Any, y: Any) -> TracedTensor:
        return apply1(name, _operands(x, y))

    fn.__name__ = fn.__qualname__ = public or name
    fn.__doc__ = f"lax.{public or name}: the `{name}` primitive (equal shapes and dtypes)."
    return fn


def _comparison(direction: str):
    def fn(x: Any, y: Any) -> TracedTensor:
        operands = _operands(x, y)
        if direction not in ("eq", "ne") and dt.is_complex(operands[0].dtype):
            raise DTypeError(
                f"{direction}: complex numbers are not ordered (JAX's lax refuses them too), "
                f"got {operands[0].aval}"
            )
        return apply1("compare", operands, direction=direction)

    fn.__name__ = fn.__qualname__ = direction
    fn.__doc__ = f"lax.{direction}: elementwise comparison ({direction}), bool result."
    return fn


add, sub, mul, div = (_binary(n) for n in ("add", "sub", "mul", "div"))


def max(x: Any, y: Any) -> TracedTensor:  # noqa: A001 - JAX's name
    """lax.max: the `maximum` primitive (equal shapes and dtypes); on bools, or (JAX's)."""
    a, b = _operands(x, y)
    return apply1("or" if a.dtype == dt.bool_ else "maximum", [a, b])


def min(x: Any, y: Any) -> TracedTensor:  # noqa: A001 - JAX's name
    """lax.min: the `minimum` primitive (equal shapes and dtypes); on bools, and (JAX's)."""
    a, b = _operands(x, y)
    return apply1("and" if a.dtype == dt.bool_ else "minimum", [a, b])


atan2 = _binary("atan2")


complex = _binary("complex")  # noqa: A001


bitwise_and, bitwise_or = _binary("and", "bitwise_and"), _binary("or", "bitwise_or")
bitwise_xor = _binary("xor", "bitwise_xor")
shift_left, shift_right_logical, shift_right_arithmetic = (
    _binary(n) for n in ("shift_left", "shift_right_logical", "shift_right_arithmetic")
)
eq, ne, lt, le, gt, ge = (_comparison(d) for d in ("eq", "ne", "lt", "le", "gt", "ge"))
(neg, abs, sign, real, imag, exp, expm1, log, log1p, sin, cos, tan) = (  # noqa: A001
    _unary(n) for n in "neg abs sign real imag exp expm1 log log1p sin cos tan".split()
)


def conj(x: Any) -> TracedTensor:
    """lax.conj: the complex conjugate; a real operand becomes complex first, as in JAX."""
    operand = _array(x)
    if dt.is_inexact(operand.dtype) and not dt.is_complex(operand.dtype):
        operand = apply1("convert", [operand], dtype=dt.complex_dtype(operand.dtype))
    return apply1("conj", [operand])


(sinh, cosh, tanh, asin, acos, atan, sqrt, rsqrt, erf, logistic, floor, ceil) = (
    _unary(n) for n in "sinh cosh tanh asin acos atan sqrt rsqrt erf logistic floor ceil".split()
)


erf_inv = _unary("erf_inv")
bitwise_not = _unary("not")


def select(pred: Any, on_true: Any, on_false: Any) -> TracedTensor:
    """lax.select: `on_true` where `pred`, else `on_false` (operands of one shape). As JAX's:
    a 0-d predicate picks a whole operand, an integer one picks `on_true` where nonzero."""
    a, b = _operands(on_true, on_false)
    p = _array(pred)
    if p.dtype in dt.INTEGERS:
        p = compare(p, full(p.aval, 0), "ne")
    if p.ndim == 0 and a.ndim:
        p = _broadcast_in_dim(p, a.shape, ())
    return apply1("select", [p, a, b])


def clamp(min: Any, x: Any, max: Any) -> TracedTensor:  # noqa: A002
    """lax.clamp(min, x, max) = minimum(maximum(x, min), max); of bools, (x or min) and max."""
    lo, value, hi = _operands(min, x, max)
    if value.dtype == dt.bool_:
        return apply1("and", [apply1("or", [value, lo]), hi])  # (_operands broadcast them)
    return apply1("clamp", [lo, value, hi])


def convert_element_type(operand: Any, new_dtype: Any) -> TracedTensor:
    """Cast to `new_dtype` (complex → real keeps the real part, as numpy does); the result is
    strongly typed, as JAX's."""
    x = _array(operand)
    dtype = dt.as_dtype(new_dtype)
    if x.dtype == dtype and not x._weak:
        return x
    out = apply1("convert", [x], dtype=dtype)
    out._weak = False
    return out


def transpose(operand: Any, permutation: Sequence[int]) -> TracedTensor:
    return apply1("transpose", [_array(operand)], permutation=tuple(permutation))


def reshape(operand: Any, new_sizes: Sequence[Any], dimensions: Any = None) -> TracedTensor:
    """lax.reshape; `dimensions` (a permutation applied first) as in JAX."""
    x = _array(operand)
    if dimensions is not None:
        x = transpose(x, dimensions)
    return apply1("reshape", [x], shape=tuple(new_sizes))


def broadcast_in_dim(
    operand: Any, shape: Sequence[Any], broadcast_dimensions: Sequence[int]
) -> TracedTensor:
    return apply1(
        "broadcast_in_dim",
        [_array(operand)],
        shape=tuple(shape),
        broadcast_dimensions=tuple(broadcast_dimensions),
    )


def broadcast(operand: Any, sizes: Sequence[Any]) -> TracedTensor:
    """New leading axes of `sizes`."""
    x = _array(operand)
    lead = len(sizes)
    return broadcast_in_dim(x, (*sizes, *x.shape), tuple(range(lead, lead + x.ndim)))


def squeeze(array: Any, dimensions: Sequence[int]) -> TracedTensor:
    x = _array(array)
    drop = {d % x.ndim for d in dimensions}
    return reshape(x, [d for i, d in enumerate(x.shape) if i not in drop])


def slice(  # noqa: A001 - JAX's name
    operand: Any,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> TracedTensor:
    return apply1(
        "slice",
        [_array(operand)],
        start=tuple(start_indices),
        limit=tuple(limit_indices),
        strides=None if strides is None else tuple(strides),
    )


def _index_scalars(starts: Sequence[Any], shape: Sequence[Any]) -> list[TracedTensor]:
    """Start indices as traced integers; a negative start counts from the end of its axis, as
    JAX's `lax.dynamic_slice` reads it (then the primitive clamps the window to fit)."""
    out = []
    ts = [_array(s) for s in starts]  # a Python int is weak; an array keeps its dtype
    strong = sorted({str(t.dtype) for t in ts if not t._weak})
    for k, t in enumerate(ts):
        if t.dtype not in dt.INTEGERS:
            raise DTypeError(f"start indices must be integers, got {t.aval}")
        if len(strong) > 1:  # JAX: "integers of the same type"
            raise DTypeError(f"start indices must share one integer dtype, got {strong}")
        dim = shape[k] if k < len(shape) else None
        if isinstance(dim, int) and t.dtype.kind == "i":
            t = select_(compare(t, 0, "lt"), add_(t, dim), t)
        out.append(t)
    return out


def dynamic_slice(
    operand: Any, start_indices: Sequence[Any], slice_sizes: Sequence[int]
) -> TracedTensor:
    """The block of `slice_sizes` at traced `start_indices` (clamped so it fits, as JAX)."""
    x = _array(operand)
    starts = _index_scalars(start_indices, x.shape)
    return apply1("dynamic_slice", [x, *starts], slice_sizes=tuple(slice_sizes))


def dynamic_update_slice(operand: Any, update: Any, start_indices: Sequence[Any]) -> TracedTensor:
    """`operand` with the block `update` written at traced `start_indices` (clamped)."""
    x, u = _operands(operand, update)
    return apply1("dynamic_update_slice", [x, u, *_index_scalars(start_indices, x.shape)])


def dynamic_slice_in_dim(
    operand: Any, start_index: Any, slice_size: int, axis: int = 0
) -> TracedTensor:
    x = _array(operand)
    axis %= x.ndim
    starts = [start_index if i == axis else 0 for i in range(x.ndim)]
    sizes = [slice_size if i == axis else d for i, d in enumerate(x.shape)]
    return dynamic_slice(x, starts, sizes)


def dynamic_index_in_dim(
    operand: Any, index: Any, axis: int = 0, keepdims: bool = True
) -> TracedTensor:
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_slice_in_dim(operand: Any, update: Any, start_index: Any, axis: int):
    x = _array(operand)
    axis %= x.ndim
    return dynamic_update_slice(x, update, [start_index if i == axis else 0 for i in range(x.ndim)])


def pad(operand: Any, padding_value: Any, padding_config: Sequence[Any]) -> TracedTensor:
    """lax.pad: `padding_config` holds (low, high, interior) per axis."""
    x = _array(operand)
    value = _array(
        np.asarray(padding_value, dtype=x.dtype)
        if isinstance(padding_value, _SCALARS)
        else padding_value
    )
    config = tuple(tuple(int(v) for v in c) for c in padding_config)
    return apply1("pad", [x, value], config=config)


def concatenate(operands: Sequence[Any], dimension: int) -> TracedTensor:
    return apply1("concatenate", _operands(*operands), axis=dimension)


def rev(operand: Any, dimensions: Sequence[int]) -> TracedTensor:
    return apply1("reverse", [_array(operand)], axes=tuple(dimensions))


def iota(dtype: Any, size: int) -> TracedTensor:
    return apply1("iota", [], shape=(size,), dtype=dt.as_dtype(dtype), dimension=0)


def broadcasted_iota(dtype: Any, shape: Sequence[Any], dimension: int) -> TracedTensor:
    return apply1("iota", [], shape=tuple(shape), dtype=dt.as_dtype(dtype), dimension=dimension)


def integer_pow(x: Any, y: int) -> TracedTensor:
    """x ** y for a Python int y (as repeated products for small |y|)."""
    if isinstance(y, bool) or not isinstance(y, (int, np.integer)):
        raise DTypeError(
            f"integer_pow: the exponent y must be an int, got {type(y).__name__} {y!r}"
        )
    base = _array(x)
    if y < 0 and not dt.is_inexact(base.dtype):
        raise DTypeError(f"integer_pow: an integer {base.aval} to the negative power {y}")
    if y == 0:  # 1, NaN included, with the derivative 0 (JAX's)
        return full(base.aval, 1)
    if y == 1:
        return base
    return apply1("pow", [base, _array(y, base)])


def square(x: Any) -> TracedTensor:
    base = _array(x)
    return apply1("mul", [base, base])
