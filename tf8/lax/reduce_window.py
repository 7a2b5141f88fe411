"""JAX's `lax.reduce_window` and `lax.reduce_window_shape_tuple`: reductions over padded,
strided, dilated windows (pooling).

`reduce_window(x, 0., lax.add, ...)`, `(x, -inf, lax.max, ...)` and `(x, inf, lax.min, ...)`
(an identity as the initial value, as JAX checks it) are the primitives
`reduce_window_sum`, `reduce_window_max` and `reduce_window_min`
(`tf8/ops/primitives/windows.py`). Any other computation (`lax.mul`, a lambda, a function on
tuples of arrays) is folded over the window's positions, each a strided slice of the operand
padded with the initial value: slower, but differentiable in both modes through its parts.

>>> import numpy as np
>>> from tf8 import lax
>>> x = np.arange(10.0)
>>> print(lax.reduce_window(x, 1.0, lax.mul, window_dimensions=(2,)))
[ 0.  2.  6. 12. 20. 30. 42. 56. 72.]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import DTypeError, ParameterError, ShapeError, TreeStructureError
from tf8.lax.builders import broadcast
from tf8.lax.core import apply1
from tf8.lax.ops import _array, add, convert_element_type
from tf8.lax.ops import max as max_
from tf8.lax.ops import min as min_
from tf8.lax.windows import padtype_to_pads
from tf8.ops import dtypes as dt
from tf8.ops import window_kernels as wk
from tf8.traced import TracedTensor, differentiated_argument

__all__ = ["reduce_window", "reduce_window_shape_tuple"]

# computation -> (primitive, the identity's kind): JAX's monoids
_MONOIDS: dict[Any, tuple[str, str]] = {
    add: ("reduce_window_sum", "sum"),
    max_: ("reduce_window_max", "max"),
    min_: ("reduce_window_min", "min"),
}


def _ints(name: str, value: Any, rank: int, default: int | None = None) -> tuple[int, ...]:
    """`value` as a tuple of `rank` integers (`default` each when None)."""
    if value is None and default is not None:
        return (default,) * rank
    try:
        values = tuple(value)
    except TypeError:
        raise ParameterError(f"reduce_window: {name} must be a sequence, got {value!r}") from None
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in values):
        raise ParameterError(f"reduce_window: {name} must be integers, got {values}")
    if len(values) != rank:
        raise ShapeError(
            f"reduce_window: {name} {values} must have one entry per axis of the operand "
            f"(rank {rank})"
        )
    return tuple(int(v) for v in values)


def _pairs(padding: Any, rank: int) -> tuple[tuple[int, int], ...]:
    try:
        pairs = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise ParameterError(
            "reduce_window: padding must be 'VALID', 'SAME', 'SAME_LOWER' or (low, high) "
            f"integer pairs, got {padding!r}"
        ) from None
    if len(pairs) != rank:
        raise ShapeError(
            f"reduce_window: padding {pairs} has {len(pairs)} pairs for an operand of rank {rank}"
        )
    return pairs


def _window_params(
    shape: tuple[Any, ...],
    window_dimensions: Any,
    window_strides: Any,
    padding: Any,
    base_dilation: Any,
    window_dilation: Any,
) -> dict[str, Any]:
    """The primitives' window parameters, checked, with JAX's defaults and padding names."""
    rank = len(shape)
    window = _ints("window_dimensions", window_dimensions, rank)
    strides = _ints("window_strides", window_strides, rank, 1)
    base = _ints("base_dilation", base_dilation, rank, 1)
    rates = _ints("window_dilation", window_dilation, rank, 1)
    for name, values in (
        ("window_dimensions", window),
        ("window_strides", strides),
        ("base_dilation", base),
        ("window_dilation", rates),
    ):
        if any(v < 1 for v in values):
            raise ParameterError(f"reduce_window: {name} must be positive, got {values}")
    if isinstance(padding, str):
        spans = [wk.dilated(w, r) for w, r in zip(window, rates)]
        pairs = tuple(padtype_to_pads(shape, spans, strides, padding))
    else:
        pairs = _pairs(padding, rank)
    return {
        "window_dimensions": window,
        "window_strides": strides,
        "padding": pairs,
        "base_dilation": base,
        "window_dilation": rates,
    }


def reduce_window_shape_tuple(
    operand_shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """The shape `reduce_window` gives an operand of `operand_shape`, as JAX's.

    Args:
      operand_shape: the operand's shape.
      window_dimensions, window_strides: the window's size and stride per axis.
      padding: explicit `(low, high)` pairs (use `lax.padtype_to_pads` for a name).
      base_dilation, window_dilation: dilations per axis (None: 1).

    >>> reduce_window_shape_tuple((5, 6), (2, 2), (1, 2), ((0, 0), (1, 1)))
    (4, 4)
    """
    shape = tuple(int(n) for n in operand_shape)
    params = _window_params(
        shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
    )
    return wk.output_shape(params, shape)  # the kernels read parameters as op[name]


def _concrete_scalar(value: Any) -> np.ndarray | None:
    """The value of an initial value known now (not traced under jit, not differentiated)."""
    if isinstance(value, TracedTensor):
        if not value.is_concrete or differentiated_argument(value) is not None:
            return None
    return np.asarray(value)


def _monoid(computation: Callable, inits: list[Any]) -> tuple[str, str] | None:
    """The primitive and identity kind when `computation` is lax.add, lax.max or lax.min
    with its identity as the one initial value (JAX's test, on the initial value's dtype)."""
    found = _MONOIDS.get(computation) if len(inits) == 1 else None
    if found is None:
        return None
    value = _concrete_scalar(inits[0])
    if value is None or value.shape != ():
        return None
    dtype = _array(inits[0]).dtype
    return found if value == wk.identity(dtype, found[1]) else None


def _primitive(name: str, x: TracedTensor, params: dict[str, Any]) -> TracedTensor:
    if x.dtype == dt.bool_ and name != "reduce_window_sum":  # max is or, min is and
        out = apply1(name, [convert_element_type(x, dt.uint8)], **params)
        return convert_element_type(out, dt.bool_)
    return apply1(name, [x], **params)


def _fold(
    computation: Callable,
    xs: list[TracedTensor],
    inits: list[TracedTensor],
    structure: Any,
    params: dict[str, Any],
) -> list[TracedTensor]:
    """`computation` folded over the window's positions, from the initial values: each
    position is a strided slice of the operands padded (and dilated) with the initial
    values, as XLA's reduce_window reads them."""
    config = tuple(
        (lo, hi, b - 1) for (lo, hi), b in zip(params["padding"], params["base_dilation"])
    )
    out_shape = wk.output_shape(params, xs[0].shape)
    accs = [broadcast(init, out_shape, ()) for init in inits]
    if 0 in out_shape:
        return accs
    grown = [apply1("pad", [x, init], config=config) for x, init in zip(xs, inits)]
    strides, rates = params["window_strides"], params["window_dilation"]
    for offset in np.ndindex(*params["window_dimensions"]):
        start = tuple(k * r for k, r in zip(offset, rates))
        limit = tuple(a + (o - 1) * s + 1 for a, o, s in zip(start, out_shape, strides))
        views = [apply1("slice", [g], start=start, limit=limit, strides=strides) for g in grown]
        result = computation(
            tree.tree_unflatten(structure, accs), tree.tree_unflatten(structure, views)
        )
        leaves, shape_of_result = tree.tree_flatten(result)
        if shape_of_result != structure:
            raise TreeStructureError(
                f"reduce_window: the computation must return the operands' structure "
                f"{structure}, got {shape_of_result}"
            )
        accs = [_array(v) for v in leaves]
        for acc, x in zip(accs, xs):
            if acc.shape != tuple(out_shape) or acc.dtype != x.dtype:
                raise ShapeError(
                    f"reduce_window: the computation must keep each operand's shape and dtype, "
                    f"got {acc.aval} for an operand {x.aval}"
                )
    return accs


def reduce_window(
    operand: Any,
    init_value: Any,
    computation: Callable,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Any:
    """Reduction over padded windows, as JAX's `lax.reduce_window` (XLA's ReduceWindow).

    Args:
      operand: an array, or a pytree of arrays of one shape.
      init_value: a scalar (or a pytree of scalars like `operand`), each of its operand's
        dtype (a Python scalar has the default dtype, as in JAX); it also fills the padding.
      computation: a function of two values like `operand`, returning one: `lax.add`,
        `lax.max` and `lax.min` with their identity (0, -inf, inf) use the primitives.
      window_dimensions: the window's size per axis.
      window_strides: the stride per axis (None: 1).
      padding: `'VALID'`, `'SAME'`, `'SAME_LOWER'` (see `lax.padtype_to_pads`), or one
        `(low, high)` pair per axis.
      base_dilation: holes between the operand's elements, per axis (None: 1, none).
      window_dilation: holes between a window's elements, per axis (None: 1, none).

    Returns: an array (a pytree like `operand`) of one value per window.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> x = np.arange(16.0).reshape(4, 4)
    >>> print(lax.reduce_window(x, -np.inf, lax.max, (2, 2), (2, 2), "VALID"))
    [[ 5.  7.]
     [13. 15.]]

    Differs from JAX: a general computation's fold also has a VJP (JAX's has only a JVP),
    a max-pool with window dilation has a VJP (JAX's raises), and `window_strides=None` with
    a padding name means strides of 1 (JAX's fails).
    """
    flat, structure = tree.tree_flatten(operand)
    flat_inits, init_structure = tree.tree_flatten(init_value)
    if structure != init_structure:
        raise TreeStructureError(
            f"reduce_window: operand and init_value must have one tree structure, got "
            f"{structure} and {init_structure}"
        )
    if not flat:
        raise ParameterError("reduce_window: needs at least one operand")
    xs = [_array(x) for x in flat]
    for x in xs[1:]:
        if x.shape != xs[0].shape:
            raise ShapeError(
                f"reduce_window: operands must have one shape, got {xs[0].aval} and {x.aval}"
            )
    params = _window_params(
        xs[0].shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
    )
    monoid = _monoid(computation, flat_inits)
    if monoid is not None:
        return tree.tree_unflatten(structure, [_primitive(monoid[0], xs[0], params)])
    inits = [_array(v) for v in flat_inits]
    for x, init in zip(xs, inits):
        if init.shape != ():
            raise ShapeError(f"reduce_window: init_value must be scalars, got {init.aval}")
        if init.dtype != x.dtype:
            raise DTypeError(
                f"reduce_window: each init_value must have its operand's dtype, got "
                f"{init.aval} for an operand {x.aval}"
            )
    return tree.tree_unflatten(structure, _fold(computation, xs, inits, structure, params))
