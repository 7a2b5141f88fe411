"""Calling host Python from traced code: `pure_callback`, `io_callback` and the debug
callback behind tf8.debug (the ops are in tf8.lax.callback_ops, the effect bookkeeping in
tf8.lax.effects).

Outside transforms a callback runs at once; under jit (and in the bodies of scan, while_loop
and cond) it is recorded and runs each time the program runs; under vmap it is batched (see
`pure_callback`'s `vmap_method`); under grad/jvp a pure or IO callback refuses, a debug
callback sees the primal values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import ParameterError
from tf8.ops import switches
from tf8.ops.avals import Aval
from tf8.traced import TracedTensor, in_transform

from . import effects
from .callback_ops import VMAP_METHODS, DebugCallback, IOCallback, PureCallback, Spec, make
from .control.checks import as_operand
from .core import apply

__all__ = ["debug_callback", "io_callback", "pure_callback"]

_ARRAYS = (TracedTensor, np.ndarray, np.generic)
_WIDE = {np.dtype(t) for t in ("int64", "uint64", "float64", "complex128")}


def _check(callback: Any, what: str) -> None:
    if not callable(callback):
        raise ParameterError(f"{what} expects a callable, got {type(callback).__name__}")


def _inputs(args: tuple, kwargs: dict, statics: bool) -> tuple[list, Any, tuple]:
    """The flat array inputs of a call, its treedef and (with `statics`) the non-array
    leaves kept aside by position."""
    leaves, in_tree = tree.tree_flatten((args, kwargs))
    dynamic, kept = [], []
    for i, leaf in enumerate(leaves):
        if statics and not isinstance(leaf, _ARRAYS):
            kept.append((i, leaf))
        else:
            dynamic.append(as_operand(leaf))
    return dynamic, in_tree, tuple(kept)


def _results(result_shape_dtypes: Any, what: str) -> tuple[tuple[Aval, ...], Any]:
    leaves, out_tree = tree.tree_flatten(result_shape_dtypes)
    avals = []
    for leaf in leaves:
        try:
            avals.append(Aval(tuple(leaf.shape), np.dtype(leaf.dtype)))
        except (AttributeError, TypeError) as exc:
            raise ParameterError(
                f"{what}: result_shape_dtypes must be a pytree of objects with .shape and .dtype "
                f"(tf8.ShapeDtypeStruct, arrays), got {type(leaf).__name__} {leaf!r:.60} ({exc})"
            ) from None
        if not switches.enable_x64 and avals[-1].dtype in _WIDE:
            raise ParameterError(  # JAX's ValueError
                f"{what}: result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` "
                "is disabled"
            )
    return tuple(avals), out_tree


def _strong(outs: list[TracedTensor]) -> list[TracedTensor]:
    """Results have the declared dtypes, never weak ones (as JAX's)."""
    for t in outs:
        t._weak = False
    return outs


def pure_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: Any,
    *args: Any,
    sharding: Any = None,
    vmap_method: str | None = None,
    **kwargs: Any,
) -> Any:
    """Call the pure Python function `callback(*args, **kwargs)` with numpy arrays when the
    program runs, returning arrays shaped like `result_shape_dtypes`.

    Parameters: `callback` (a function of numpy arrays, without side effects);
    `result_shape_dtypes` (a pytree of objects with `.shape` and `.dtype`, e.g.
    `tf8.ShapeDtypeStruct`: what it returns); `*args, **kwargs` (pytrees of arrays passed
    to it); `sharding` (accepted, ignored: tf8 runs on one host); `vmap_method` (how vmap
    calls it: 'sequential' or 'sequential_unrolled' once per example, 'expand_dims' once
    with the batch axis in front and a size-1 axis on unbatched arguments, 'broadcast_all'
    with every argument broadcast to the batch, 'legacy_vectorized' with unbatched
    arguments as they are; None: vmap raises).

    Being pure, an unused call is dropped and equal calls on equal values run once. Its
    result must have the declared shapes and dtypes exactly (else ShapeError/DTypeError
    naming the callback); grad/jvp raise DifferentiationError: wrap it in `tf8.custom_jvp`
    or `tf8.custom_vjp`. Differences from JAX: the callback receives read-only numpy arrays
    (JAX 0.10 passes jax Arrays); a call with no results runs only outside transforms.

    >>> import numpy as np, tf8
    >>> f = tf8.jit(lambda x: tf8.pure_callback(np.sin, tf8.ShapeDtypeStruct((2,), x.dtype), x))
    >>> f(np.array([0.0, np.pi / 2]))
    Array([0., 1.], dtype=float64)
    """
    _check(callback, "pure_callback")
    if vmap_method is not None and vmap_method not in VMAP_METHODS:
        raise ParameterError(
            f"pure_callback: vmap_method must be one of {VMAP_METHODS} or None, got {vmap_method!r}"
        )
    ins, in_tree, _ = _inputs(args, kwargs, False)
    avals, out_tree = _results(result_shape_dtypes, "pure_callback")
    spec = Spec(callback, "pure", in_tree, (), out_tree, avals, (("vmap_method", vmap_method),))
    if not avals:  # nothing to return: a pure call is dropped (it runs only eagerly)
        if not in_transform():
            spec.call([np.asarray(t) for t in ins])
        return tree.tree_unflatten(out_tree, [])
    outs = _strong(apply(make(PureCallback, spec, 0, len(ins)), ins))
    return tree.tree_unflatten(out_tree, outs)


def io_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: Any,
    *args: Any,
    sharding: Any = None,
    ordered: bool = False,
    **kwargs: Any,
) -> Any:
    """Call the Python function `callback(*args, **kwargs)`, which may have side effects,
    with numpy arrays when the program runs, returning arrays shaped like
    `result_shape_dtypes` (a pytree of `.shape`/`.dtype` objects; None for no result).

    Parameters: `callback`, `result_shape_dtypes`, `*args, **kwargs` and `sharding` as in
    `pure_callback`; `ordered` (run in program order relative to the other ordered effects;
    tf8 runs the effects of one function or body in the order traced, ordered or not).

    The call is never dropped nor merged and runs once per execution (each iteration in a
    loop body). Under vmap it runs once per example (ordered=True: NoBatchingRule, as JAX);
    grad/jvp raise DifferentiationError ("IO callbacks do not support JVP.").
    Differences from JAX: the callback receives read-only numpy arrays.

    >>> import numpy as np, tf8
    >>> from tf8.experimental import io_callback
    >>> seen = []
    >>> def log(x):
    ...     seen.append(float(x))
    ...     return np.asarray(x) * 2
    >>> f = tf8.jit(lambda x: io_callback(log, tf8.ShapeDtypeStruct((), x.dtype), x))
    >>> f(1.0), f(2.0), seen
    (Array(2., dtype=float64), Array(4., dtype=float64), [1.0, 2.0])
    """
    _check(callback, "io_callback")
    ins, in_tree, _ = _inputs(args, kwargs, False)
    avals, out_tree = _results(result_shape_dtypes, "io_callback")
    spec = Spec(callback, "io", in_tree, (), out_tree, avals, (("ordered", bool(ordered)),))
    deps = effects.dependency()
    op = make(IOCallback, spec, len(deps), len(ins))
    outs = _strong(effects.apply_effect(op, [*deps, *ins]))
    effects.note(outs[-1])
    return tree.tree_unflatten(out_tree, outs[:-1])


def debug_callback(callback: Callable[..., Any], args: tuple, kwargs: dict, ordered: bool) -> None:
    """Call `callback(*args, **kwargs)` for its effect when the program runs (array leaves as
    numpy arrays, other leaves as they are); see tf8.debug.callback."""
    _check(callback, "tf8.debug.callback")
    ins, in_tree, statics = _inputs(args, kwargs, True)
    spec = Spec(callback, "debug", in_tree, statics, None, (), (("ordered", bool(ordered)),))
    deps = effects.dependency()
    outs = effects.apply_effect(make(DebugCallback, spec, len(deps), len(ins)), [*deps, *ins])
    effects.note(outs[-1])
