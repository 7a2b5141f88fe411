"""How transforms see their arguments and hand results back.

Each differentiated argument becomes a *fresh* leaf (so a closure over the same value is a
constant, as in JAX — no perturbation confusion). The leaf is bound to the argument's value
when that is known, so Python control flow on primal values works under grad of concrete
arguments. Results are graphs over these leaves; `finish` either evaluates them (top level,
concrete arguments: numpy out) or substitutes the leaves back by the caller's values so the
result stays a traced graph another transform can differentiate again. jit hands a transform
it traces directly (`jit(grad(f))`) its placeholders as the arguments' leaves: nothing else
reaches them, so they need no stand-ins and the result needs no substitution.
"""

from __future__ import annotations

import itertools
from collections.abc import Container, Sequence
from typing import Any

from tf8 import traced
from tf8.errors import DifferentiationError, TracingError
from tf8.graph import PRIMARY, ValueKey, materialize_merge
from tf8.lax.builders import zeros
from tf8.lax.walk import substitute
from tf8.numpy import asarray
from tf8.ops import dtypes as dt
from tf8.ops.frames import current
from tf8.ops.leaves import LeafKey
from tf8.traced import TracedTensor, evaluate_all, in_transform, wrap

_uids = itertools.count(1)


def check_callable(fun: Any, what: str) -> None:
    """Raise TracingError when the function given to transform `what` cannot be called (at
    once, as JAX does, not when the transformed function is first called)."""
    if not callable(fun):
        raise TracingError(f"{what} expects a callable, got {type(fun).__name__}: {fun!r:.60}")


def as_traced(value: Any) -> TracedTensor:
    if isinstance(value, TracedTensor):
        return value
    if isinstance(value, (list, tuple)):
        return asarray(value)
    return traced.tensor(value)


def fresh_leaf(like: TracedTensor, kind: str, bind: bool) -> TracedTensor:
    """A new leaf with `like`'s aval; bound to `like`'s value when `bind` and it is known.
    Listings call it after `like` when that is a leaf with a name or title (`tangent of x`)."""
    key = ValueKey.input(LeafKey(next(_uids), None, like.aval, kind, _title(like, kind)))
    if bind and like.is_concrete:
        value = evaluate_all([like])[0]
        leaf = TracedTensor(key, like.aval, {key: value})
        leaf._value = value
        return leaf
    return TracedTensor(key, like.aval, {}, unbound=True)


def _title(like: TracedTensor, kind: str) -> str | None:
    """What to call a fresh leaf standing for (or the tangent of) the leaf `like`: None (its
    kind says what it is) unless `like` is a leaf with a name or title."""
    key = like._key
    leaf = key.input_key if key is not None and key.is_input else None
    if not isinstance(leaf, LeafKey) or (leaf.name is None and leaf.title is None):
        return None
    return leaf.label() if kind == "argument" else f"{kind} of {leaf.label()}"


class Arguments:
    """The originals of a transform's differentiated leaves and their fresh stand-ins: an
    original whose key is in `own` (a placeholder jit made for this trace, which nothing but
    the argument reaches) stands for itself."""

    def __init__(self, originals: Sequence[Any], own: Container[ValueKey] = ()) -> None:
        self.originals = [as_traced(v) for v in originals]
        self.leaves = [
            o if o._key in own and not o._weak else fresh_leaf(o, "argument", bind=True)
            for o in self.originals
        ]
        _follow_as_originals(self.originals, self.leaves)

    def keep_values_for(self, results: Sequence[TracedTensor | None]) -> None:
        """Keep only the computed values the linear graphs behind `results` read — their
        residuals, what a returned closure (vjp's, linearize's) needs later — so every other
        intermediate of the forward pass can be freed."""
        flat = materialize_merge(None, [r.key for r in results if r is not None])
        read = {k for op in flat.operations if op.role is not PRIMARY for k in op.inputs}
        self.values = {k: v for k, v in self.values.items() if k in read}

    def mapping(self) -> dict[ValueKey, TracedTensor]:
        """Each fresh leaf's original (a leaf that is its own original is left out)."""
        return {
            leaf.key: orig for leaf, orig in zip(self.leaves, self.originals) if leaf is not orig
        }

    def finish(
        self, results: Sequence[TracedTensor | None], extra: dict | None = None
    ) -> list[Any]:
        """Results as users get them: numpy at top level on concrete inputs, else traced, on
        the original arguments."""
        filled = [r for r in results]
        if extra:
            filled = substitute(filled, extra)
        concrete = all(o.is_concrete for o in self.originals)
        if not in_transform() and concrete:
            return [wrap(v) for v in evaluate_all(filled)]
        return substitute(filled, self.mapping(), same_values=True)


def _follow_as_originals(originals: Sequence[TracedTensor], leaves: Sequence[TracedTensor]) -> None:
    """Each leaf stands for its original: where an enclosing transform follows the original
    (a level that differentiates it, a tape a body hides), it follows the leaf too, so the
    nested transform's later work on the leaf (its jvp, its transpose) is recorded, not
    computed as a constant, and the enclosing transform differentiates through it."""
    frame = current()
    levels, tracked = frame.levels, frame.tracked
    if not levels and tracked is None:
        return
    for original, leaf in zip(originals, leaves):
        key = original._key
        if key is not None:
            for level in levels:
                argument = level.get(key)
                if argument is not None:
                    level[leaf.key] = argument
        if tracked is not None:
            if frame.hidden_follows(original):
                tracked[original.key] = original
                tracked[leaf.key] = None
            elif key is not None and key in tracked:
                tracked[leaf.key] = None


def check_differentiable(
    args: Sequence[TracedTensor], what: str, holomorphic: bool = False
) -> None:
    for i, a in enumerate(args):
        if holomorphic and not dt.is_complex(a.dtype):
            raise _error(
                f"{what} with holomorphic=True requires complex inputs, "
                f"got {a.dtype} (argument leaf {i})"
            )
        if not dt.is_inexact(a.dtype):
            raise _error(
                f"{what} requires real- or complex-valued inputs (float or complex dtype), but "
                f"argument leaf {i} has dtype {a.dtype}; integer inputs are not differentiable "
                "(convert them to float, or leave them out of argnums)"
            )


def _error(message: str) -> Exception:
    return DifferentiationError(message)


def zeros_for(
    leaves: Sequence[TracedTensor], cts: Sequence[TracedTensor | None]
) -> list[TracedTensor]:
    return [zeros(leaf.aval) if c is None else c for leaf, c in zip(leaves, cts)]
