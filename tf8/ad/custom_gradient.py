"""JAX's `custom_gradient` (a function that returns its value and its vjp together) and
`closure_convert` (a function's closed-over values made explicit arguments), on tf8's
`custom_vjp` and its traced sub-programs."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from tf8 import tree
from tf8.errors import DifferentiationError
from tf8.lax.control import call, trace_flat
from tf8.traced import TracedTensor

from .arguments import as_traced
from .custom import custom_vjp

__all__ = ["closure_convert", "custom_gradient"]


def custom_gradient(fun: Callable[..., tuple[Any, Callable[..., Any]]]) -> Callable[..., Any]:
    """A function whose derivative its own code states: `fun(*args)` returns `(value, vjp)`,
    where `vjp(g)` gives one cotangent per positional argument (a tuple).

    Args:
      fun: the function returning `(value, vjp)`.

    >>> import tf8, tf8.numpy as tnp
    >>> @tf8.custom_gradient
    ... def clipped_log(x):
    ...     return tnp.log(x), lambda g: (g / tnp.maximum(x, 1.0),)
    >>> float(tf8.grad(clipped_log)(0.5))  # 1 / max(0.5, 1), not 1 / 0.5
    1.0

    As JAX's, reverse mode only (JAX's `custom_gradient` has no forward mode either). A
    `vjp` that returns a bare array for a one-argument function is taken as a 1-tuple.
    """

    def primal(*args: Any) -> Any:
        return fun(*args)[0]

    def fwd(*args: Any) -> tuple[Any, Any]:
        result = fun(*args)
        if not (isinstance(result, tuple) and len(result) == 2 and callable(result[1])):
            raise DifferentiationError(
                f"custom_gradient: {_name(fun)} must return (value, vjp function), got "
                f"{type(result).__name__}"
            )
        # As JAX's: the rule closure-converted, so the arrays it reads are residuals, which
        # a loop body stacks for its transposed body and a second derivative differentiates
        rule, consts = closure_convert(result[1], result[0])
        return result[0], (rule, consts, len(args))

    def bwd(residuals: tuple[Callable[..., Any], list, int], g: Any) -> tuple[Any, ...]:
        rule, consts, count = residuals
        cts = rule(g, *consts)
        if not isinstance(cts, (tuple, list)):
            if count != 1:
                raise DifferentiationError(
                    f"custom_gradient: the vjp of {_name(fun)} must return a tuple of {count} "
                    f"cotangents (one per positional argument), got {type(cts).__name__}"
                )
            cts = (cts,)
        return tuple(cts)

    wrapped = custom_vjp(primal)
    wrapped.defvjp(fwd, bwd)
    return functools.wraps(fun)(wrapped) if hasattr(fun, "__name__") else wrapped


def closure_convert(fun: Callable[..., Any], *example_args: Any) -> tuple[Callable[..., Any], list]:
    """`(converted, consts)`: `converted(*args, *consts)` computes `fun(*args)`, with the
    values `fun` closes over (arrays it reads from outside, traced values included) passed
    explicitly, as a `custom_vjp` rule needs when it differentiates them.

    Args:
      fun: the function.
      example_args: arguments of the shapes and dtypes it will be called with.

    >>> import tf8, tf8.numpy as tnp, numpy as np
    >>> w = np.array([1.0, 2.0])
    >>> converted, consts = tf8.closure_convert(lambda x: x * w, np.ones(2))
    >>> converted(np.ones(2), *consts)
    Array([1., 2.], dtype=float64)

    Differs from JAX: every array `fun` reads from outside is a const (JAX keeps concrete
    ones inside the function and hoists traced ones only).
    """
    flat_args, in_tree = tree.tree_flatten(example_args)
    example = [as_traced(a) for a in flat_args]
    out_trees: list[Any] = []

    def flat(xs: list[TracedTensor]) -> list[TracedTensor]:
        out = fun(*tree.tree_unflatten(in_tree, xs))
        leaves, out_tree = tree.tree_flatten(out)
        out_trees.append(out_tree)
        return [as_traced(leaf) for leaf in leaves]

    program, consts = trace_flat(flat, [x.aval for x in example])
    count, out_tree = len(consts), out_trees[-1]

    def converted(*args_and_consts: Any) -> Any:
        args, captured = (
            args_and_consts[: len(args_and_consts) - count],
            args_and_consts[len(args_and_consts) - count :],
        )
        leaves = [as_traced(a) for a in tree.tree_leaves(args)]
        if len(leaves) != len(example):
            raise DifferentiationError(
                f"closure_convert: the converted {_name(fun)} takes {len(example)} array "
                f"arguments and then {count} consts, got {len(args_and_consts)} values"
            )
        out = call(program, [*[as_traced(c) for c in captured], *leaves])
        return tree.tree_unflatten(out_tree, out)

    return converted, list(consts)


def _name(fun: Any) -> str:
    return getattr(fun, "__name__", type(fun).__name__)
