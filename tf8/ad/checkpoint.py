"""`checkpoint` / `remat` (JAX's): a function whose intermediates reverse mode computes again in
the backward pass instead of keeping them, and `checkpoint_policies`, which name the ones it
may keep.

The function is traced once into a closed sub-program (closure-converted, as a loop body is)
and applied as one `Checkpoint` control op: outside transforms it just runs; under grad only
its inputs and outputs are kept — its jvp is a Checkpoint of the jvp'd body over (inputs,
tangents) and the transpose of that a Checkpoint that recomputes the body inside its kernel
(tf8.ad.control). A policy picks intermediates to save: they become extra ("hidden") outputs
of the op, the backward pass reads them instead of recomputing them, and jit prunes them when
nothing differentiates the op.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from tf8 import tree
from tf8.errors import TracingError
from tf8.graph import materialize_merge
from tf8.lax.control import Closure
from tf8.lax.control.checks import flatten
from tf8.ops import dtypes as dt
from tf8.ops.avals import value_aval
from tf8.ops.definition import definition
from tf8.ops.extension.control import Checkpoint, ClosedProgram
from tf8.ops.primitive import Aval

from .arguments import check_callable

Policy = Callable[..., bool]  # policy(op, *input_avals) -> may this op's outputs be saved?


def _is_dot(op: Any) -> bool:
    """A matrix product (dot_general, einsum): its definition says whether it is batched."""
    return definition(op).batched_dot is not None


def _no_batch_dims(op: Any) -> bool:
    return not definition(op).batched_dot(op)  # type: ignore[misc]


class checkpoint_policies:  # noqa: N801 - JAX's name (a namespace of policies)
    """JAX's names for the common policies: `policy(op, *input_avals) -> bool`."""

    @staticmethod
    def nothing_saveable(op: Any, *avals: Aval) -> bool:
        """Save nothing: the backward pass recomputes every intermediate (the default)."""
        return False

    @staticmethod
    def everything_saveable(op: Any, *avals: Aval) -> bool:
        """Save every intermediate (as if there were no checkpoint)."""
        return True

    @staticmethod
    def dots_saveable(op: Any, *avals: Aval) -> bool:
        """Save the results of matrix products (dot_general, einsum); recompute the rest."""
        return _is_dot(op)

    @staticmethod
    def dots_with_no_batch_dims_saveable(op: Any, *avals: Aval) -> bool:
        """Save the results of matrix products that have no batch dimensions."""
        return _is_dot(op) and _no_batch_dims(op)

    checkpoint_dots = dots_saveable
    checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable


def _hidden(outs: Sequence[Any], policy: Policy | None) -> list[tuple[Any, Aval]]:
    """(key, aval) of each intermediate behind `outs` the policy lets the op save."""
    if policy is None or policy is checkpoint_policies.nothing_saveable:
        return []
    returned = {t.key for t in outs}
    found = []
    for op_key in materialize_merge(None, list(returned)).operations:
        in_avals = [value_aval(k) for k in op_key.inputs]
        if not policy(op_key.op, *in_avals):
            continue
        for key, aval in zip(op_key.outputs, op_key.meta[0]):
            if key not in returned and dt.is_inexact(aval.dtype):
                found.append((key, aval))
    return found


def checkpoint(
    fun: Callable,
    prevent_cse: bool = True,
    policy: Policy | None = None,
    static_argnums: int | Sequence[int] = (),
) -> Callable:
    """`fun` whose intermediates reverse mode recomputes in the backward pass instead of
    keeping them (except those `policy` saves). `prevent_cse` is accepted for JAX's sake: the
    recomputation lives in its own sub-program, so it never merges with the forward pass."""
    check_callable(fun, "checkpoint")
    if policy is not None and not callable(policy):
        raise TracingError(
            "checkpoint: policy must be None or a callable policy(op, *input_avals) -> bool "
            f"(see tf8.checkpoint_policies), got {type(policy).__name__}: {policy!r:.60}"
        )
    static = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in static):
        raise TracingError(f"checkpoint: static_argnums must be ints, got {static_argnums!r}")

    @functools.wraps(fun)
    def checkpointed(*args: Any, **kwargs: Any) -> Any:
        outside = sorted(i for i in static if not -len(args) <= i < len(args))
        if outside:
            raise TracingError(
                f"checkpoint: static_argnums={tuple(sorted(static))} but "
                f"{getattr(fun, '__name__', 'the function')} was called with {len(args)} "
                f"positional argument(s), so argument {outside[0]} does not exist"
            )
        fixed = {i % len(args) for i in static}
        dynamic = [a for i, a in enumerate(args) if i not in fixed]
        leaves, in_def = flatten((dynamic, kwargs))
        closure = Closure()
        ins = closure.arguments([t.aval for t in leaves], [t._weak for t in leaves])
        found: list[Any] = []

        def body() -> list:
            dyn, kw = tree.tree_unflatten(in_def, ins)
            it = iter(dyn)
            call_args = [a if i in fixed else next(it) for i, a in enumerate(args)]
            outs, out_def = flatten(fun(*call_args, **kw))
            found[:] = [out_def]
            return closure.close(ins, outs)

        outs = closure.trace(body)
        if not outs:
            return tree.tree_unflatten(found[0], [])
        hidden = _hidden(outs, policy)
        inputs = [*closure.captures.values(), *ins]
        program = ClosedProgram.get(
            [t.key for t in inputs],
            [*[t.key for t in outs], *[k for k, _ in hidden]],
            [*[t.aval for t in outs], *[a for _, a in hidden]],
        )
        results = closure.apply(
            Checkpoint(program, len(hidden), prevent_cse), [*closure.outer, *leaves]
        )
        return tree.tree_unflatten(found[0], results[: len(outs)])

    return checkpointed


remat = checkpoint
