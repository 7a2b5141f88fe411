"""JAX's `lax.reduce` (a reduction by any monoid, over pytrees of operands) and the bitwise
reductions `reduce_and`, `reduce_or`, `reduce_xor`.

`reduce(x, 0, lax.add, axes)` and the other monoids JAX recognises (`lax.add`, `lax.mul`,
`lax.max`, `lax.min`, `lax.bitwise_and/or/xor` by identity, each with its identity as a
concrete initial value) are the reduction primitives. Any other computation is folded as
JAX's differentiation rule folds it: the reduced axes flattened into one, then halved again
and again (the second half padded with the initial value), `computation` applied to the two
halves; the initial value is combined last, as XLA's reduce starts from it. So the fold is
differentiable in both modes through its parts (JAX's generic reduce is forward-mode only).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import AxisError, DTypeError, ShapeError, TreeStructureError
from tf8.lax.builders import broadcast
from tf8.lax.ops import (
    _array,
    add,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    concatenate,
    mul,
    reshape,
    transpose,
)
from tf8.lax.ops import max as max_
from tf8.lax.ops import min as min_
from tf8.lax.ops import slice as slice_
from tf8.lax.structure import reduce_max, reduce_min, reduce_prod, reduce_sum
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor, differentiated_argument


def _and_identity(dtype: np.dtype) -> Any:
    return True if dtype == dt.bool_ else np.array(-1).astype(dtype)


def _max_identity(dtype: np.dtype) -> Any:
    if dt.is_inexact(dtype):
        return -np.inf
    return False if dtype == dt.bool_ else np.iinfo(dtype).min


def _min_identity(dtype: np.dtype) -> Any:
    if dt.is_inexact(dtype):
        return np.inf
    return True if dtype == dt.bool_ else np.iinfo(dtype).max


def _intlike(dtype: np.dtype) -> bool:
    return dtype == dt.bool_ or dt.is_integer(dtype)


# computation -> (the identity for a dtype, the reduction, which dtypes): JAX's monoids
_MONOIDS: dict[Any, tuple[Callable, Callable, Callable]] = {
    add: (lambda dtype: 0, reduce_sum, lambda dtype: True),
    mul: (lambda dtype: 1, reduce_prod, lambda dtype: True),
    max_: (_max_identity, reduce_max, lambda dtype: True),
    min_: (_min_identity, reduce_min, lambda dtype: True),
    bitwise_and: (_and_identity, lambda x, axes: reduce_and(x, axes), _intlike),
    bitwise_or: (lambda dtype: 0, lambda x, axes: reduce_or(x, axes), _intlike),
    bitwise_xor: (lambda dtype: 0, lambda x, axes: reduce_xor(x, axes), _intlike),
}


def _axes(name: str, dimensions: Sequence[int], x: TracedTensor) -> tuple[int, ...]:
    axes = tuple(dimensions)
    if any(not isinstance(a, (int, np.integer)) or not 0 <= a < x.ndim for a in axes):
        raise AxisError(f"{name}: dimensions {axes} out of range for {x.aval} (0 to ndim - 1)")
    if len(set(axes)) != len(axes):
        raise AxisError(f"{name}: dimensions {axes} repeat an axis")
    return tuple(int(a) for a in axes)


def _fold(
    computation: Callable,
    xs: list[TracedTensor],
    inits: list[TracedTensor],
    structure: Any,
    axes: tuple[int, ...],
) -> list[TracedTensor]:
    """JAX's tree fold: the reduced axes moved to the front and flattened, then halved until
    one entry is left (the middle one of an odd count waits for the next round); the initial
    values combined last, once, as XLA's reduce starts from them (all of it for an empty
    axis; none for no axis)."""
    if not axes:
        return xs
    kept = tuple(i for i in range(xs[0].ndim) if i not in axes)
    out_shape = tuple(xs[0].shape[i] for i in kept)
    size = math.prod(xs[0].shape[a] for a in axes)
    fulls = [broadcast(i, out_shape, ()) for i in inits]
    if size == 0:
        return fulls
    xs = [reshape(transpose(x, axes + kept), (size, *out_shape)) for x in xs]

    def call(a: list[TracedTensor], b: list[TracedTensor]) -> list[TracedTensor]:
        out = computation(tree.tree_unflatten(structure, a), tree.tree_unflatten(structure, b))
        flat, out_def = tree.tree_flatten(out)
        if out_def != structure:
            raise TreeStructureError(
                f"reduce: the computation returned the structure {out_def}, the operands "
                f"have {structure}"
            )
        flat = [_array(v) for v in flat]
        for v, x in zip(flat, a):
            if v.shape != x.shape or v.dtype != x.dtype:
                raise ShapeError(
                    f"reduce: the computation must keep its operands' shape and dtype (work "
                    f"elementwise), got {v.aval} from {x.aval}"
                )
        return flat

    zeros = (0,) * len(out_shape)
    while size > 1:
        half, first = size // 2, (size + 1) // 2
        head = [slice_(x, (0, *zeros), (half, *out_shape)) for x in xs]
        tail = [slice_(x, (first, *zeros), x.shape) for x in xs]
        combined = call(head, tail)
        if first != half:  # the middle entry, as it is
            middle = [slice_(x, (half, *zeros), (first, *out_shape)) for x in xs]
            combined = [concatenate([c, m], 0) for c, m in zip(combined, middle)]
        xs, size = combined, first
    folded = [reshape(x, out_shape) for x in xs]
    return call(fulls, folded)


def _concrete(value: TracedTensor) -> np.ndarray | None:
    """The value of an initial value known now (not traced under jit, not differentiated)."""
    if not value.is_concrete or differentiated_argument(value) is not None:
        return None
    return np.asarray(value)


def reduce(
    operands: Any, init_values: Any, computation: Callable[[Any, Any], Any], dimensions: Any
) -> Any:
    """`operands` (an array or a pytree of arrays of one shape) reduced over `dimensions` by
    `computation`, starting from `init_values` (scalars, a pytree like `operands`).
    `computation` must be associative with `init_values` its identity (a monoid), and work
    elementwise: it is applied to whole slices of the operands, never vmapped.

    Args:
      operands: the arrays to reduce.
      init_values: one scalar per array.
      computation: (a, b) -> a combined with b, pytrees like `operands`.
      dimensions: the axes to reduce (non-negative, distinct).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.reduce(np.arange(6.0).reshape(2, 3), 0.0, lax.add, (1,))
    Array([ 3., 12.], dtype=float64)
    >>> x = np.array([3.0, 1.0, 2.0])
    >>> pair = lambda a, b: (lax.min(a[0], b[0]), a[1] + b[1])
    >>> lax.reduce((x, x * 10), (np.inf, 0.0), pair, (0,))
    (Array(1., dtype=float64), Array(60., dtype=float64))

    Unlike JAX's, the fold of a general computation differentiates in reverse mode too, and
    with respect to the initial values.
    """
    leaves, structure = tree.tree_flatten(operands)
    init_leaves, init_structure = tree.tree_flatten(init_values)
    if structure != init_structure:
        raise TreeStructureError(
            f"reduce: operands have the structure {structure}, init_values {init_structure}"
        )
    xs, inits = [_array(x) for x in leaves], [_array(i) for i in init_leaves]
    if not xs:
        raise TreeStructureError("reduce: operands hold no arrays")
    if len({x.shape for x in xs}) != 1:
        raise ShapeError(
            "reduce: operands must share one shape, got " + ", ".join(str(x.aval) for x in xs)
        )
    for i in inits:
        if i.ndim:
            raise ShapeError(f"reduce: init_values must be scalars, got {i.aval}")
    axes = _axes("reduce", dimensions, xs[0])
    monoid = _MONOIDS.get(computation) if len(xs) == 1 else None
    if monoid is not None:  # JAX's test: the identity in the initial value's own dtype
        identity, reduction, accepts = monoid
        value, init = _concrete(inits[0]), inits[0]
        if value is not None and accepts(init.dtype) and value == identity(init.dtype):
            out = reduction(xs[0], axes)
            out._weak = xs[0]._weak and init._weak
            return tree.tree_unflatten(structure, [out])
    for x, i in zip(xs, inits):  # a Python scalar is its default dtype here, as in JAX
        if i.dtype != x.dtype:
            raise DTypeError(
                f"reduce: the initial value {i.aval} must have its operand's dtype {x.dtype} "
                f"(a computation JAX does not recognise as a monoid takes no other)"
            )
    outs = _fold(computation, xs, inits, structure, axes)
    for out, x, i in zip(outs, xs, inits):
        if out is not x:  # (no axis reduced: the operand itself, left as it is)
            out._weak = x._weak and i._weak
    return tree.tree_unflatten(structure, outs)


def _bitwise(name: str, combine: Callable, identity: Callable, doc: str) -> Callable:
    def fn(operand: Any, axes: Sequence[int]) -> TracedTensor:
        x = _array(operand)
        if not _intlike(x.dtype):
            raise DTypeError(f"{name}: needs a bool or integer operand, got {x.aval}")
        axes = _axes(name, axes, x)
        if x.dtype == dt.bool_ and name != "reduce_xor":  # and is min, or is max
            return (reduce_min if name == "reduce_and" else reduce_max)(x, axes)
        init = _array(np.asarray(identity(x.dtype), x.dtype))
        return _fold(lambda a, b: combine(a, b), [x], [init], tree.tree_structure(0), axes)[0]

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


reduce_and = _bitwise(
    "reduce_and",
    bitwise_and,
    _and_identity,
    """The bitwise (logical, of bools) and of `operand` over `axes`.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.reduce_and(np.array([[True, False], [True, True]]), (1,))
    Array([False,  True], dtype=bool)""",
)
reduce_or = _bitwise(
    "reduce_or",
    bitwise_or,
    lambda dtype: 0,
    """The bitwise (logical, of bools) or of `operand` over `axes`.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.reduce_or(np.array([1, 2, 8], np.int32), (0,))
    Array(11, dtype=int32)""",
)
reduce_xor = _bitwise(
    "reduce_xor",
    bitwise_xor,
    lambda dtype: 0,
    """The bitwise (logical, of bools) exclusive or of `operand` over `axes`.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.reduce_xor(np.array([True, True, True]), (0,))
    Array(True, dtype=bool)""",
)


__all__ = ["reduce", "reduce_and", "reduce_or", "reduce_xor"]
