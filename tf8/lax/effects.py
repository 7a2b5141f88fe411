"""Effects in traced code: how a callback that returns nothing (tf8.debug.print, an
io_callback) stays in the program, runs every time it runs and in program order.

The compiler keeps only what the outputs read, so an effect op outputs a *token* (a 0-d bool)
and the tracing code keeps it alive:

- Every tracing entry point opens an effect `scope` around the user's code: jit's trace, each
  control-flow body (tf8.lax.control.closure), vmap's trace and the graph-path transforms'
  trace (tf8.ad.tracing). Nothing else pays for it: a scope is one context variable set per
  trace, and only effect ops ever look at it.
- In a scope the effects form a chain: each effect op takes the previous token as an extra
  input (`dependency()`), and its own token becomes the scope's `last` (`note`). The chain
  fixes their order; the last token keeps all of them alive.
- At the end of a scope its last token is tied to what the scope hands back: jit ties it to
  its outputs (`tie`, an identity op with the token as an extra input); a body ties it to its
  outputs (so a loop runs its effects at every iteration, a cond in the branch taken), and
  the control op's result becomes the enclosing scope's `last`; vmap batches the token with
  the outputs, the graph-path transforms carry it back to the caller's values, and either
  notes the result in the enclosing scope.
- A body's chain starts at a `Start` op on the body's arguments (and on the enclosing scope's
  last token, which the body then captures): effects in a body depend on its arguments, so
  they are never hoisted out of the loop nor computed once while tracing, and a loop with
  effects runs after the effects before it.
- The AD rules of the control ops rebuild bodies that recompute the primal values next to
  the tangents (a jvp'd loop, a transposed one): the primal op ran the effects already, so
  those rebuilds are `replaying()`: their Ties drop the token, and a control op nested in
  them is rebuilt with bodies stripped of their effects (tf8.lax.control.closure.inline).
- In a body an effect op, and a control op whose bodies have effects, is only recorded
  (`apply_effect`; `Closure.apply` and `apply_control` for control ops, also those a
  batching rule rebuilds), never computed while the body is traced (vmap under an op-by-op
  grad traces one on concrete values): the body runs it when it runs.
- Where an effect runs at once (outside transforms, on op-by-op tapes, or on values that do
  not depend on what the transform traces), its token is a computed value: nothing is left
  to keep alive and `note` ignores it.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tf8.ops.avals import Aval
from tf8.ops.extension import ExtensionOp
from tf8.ops.frames import current
from tf8.traced import TracedTensor

from .core import _record, apply

__all__ = [
    "TOKEN",
    "Start",
    "Tie",
    "apply_effect",
    "dependency",
    "dropping",
    "keep",
    "note",
    "pending",
    "replaying",
    "scope",
    "tie",
]

TOKEN = Aval((), np.dtype(np.bool_))


class Start(ExtensionOp):
    """The first token of a body's effect chain: a token that depends on all its inputs."""

    family = "tf8.effects.v1"
    name = "effect_start"
    stops_derivative = True

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        return (TOKEN,)

    def kernel(self, op: ExtensionOp, *arrays: Any) -> Any:
        return np.True_

    def jvp(self, op, primals, outputs, tangents):
        return [None]

    def batch(self, op: ExtensionOp, args, dims):
        return apply(op, args), [None]


class Tie(ExtensionOp):
    """Identity on its first `output_count` inputs; the last input (a token) is only read, so
    whatever reads an output runs the effects behind the token first."""

    family = "tf8.effects.v1"
    name = "effect_tie"

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        return tuple(avals[: self.output_count])

    def kernel(self, op: ExtensionOp, *arrays: Any) -> Any:
        return arrays[0] if self.output_count == 1 else tuple(arrays[: self.output_count])

    def jvp(self, op, primals, outputs, tangents):
        return list(tangents[: self.output_count])

    def transpose(self, op, operands, linear, ct):
        cts = list(ct) if isinstance(ct, (list, tuple)) else [ct]
        return [*cts, None]

    def batch(self, op: ExtensionOp, args, dims):
        return apply(op, args), list(dims[: self.output_count])


class Scope:
    """One traced scope's effect chain (see the module docstring)."""

    __slots__ = ("args", "start", "last")

    def __init__(self, args: Sequence[TracedTensor] | None, start: TracedTensor | None) -> None:
        self.args = args  # a body's arguments: its chain starts on them (None: not a body)
        self.start = start  # the enclosing scope's last token when this scope opened
        self.last: TracedTensor | None = None


_scope: contextvars.ContextVar[Scope | None] = contextvars.ContextVar("tf8_effects", default=None)
_replaying: contextvars.ContextVar[bool] = contextvars.ContextVar("tf8_replaying", default=False)


@contextlib.contextmanager
def replaying() -> Iterator[None]:
    """Bodies inlined in the block recompute values whose effects already ran: drop them."""
    token = _replaying.set(True)
    try:
        yield
    finally:
        _replaying.reset(token)


def dropping() -> bool:
    """Whether inlined bodies drop their effects now (see `replaying`)."""
    return _replaying.get()


class scope:  # noqa: N801 - used as a function: `with effects.scope(args) as scoped`
    """Collect the effects traced in the block (a body's: pass its argument leaves); the
    `with` value is the block's Scope. A plain class, not a generator: it opens once per
    trace of every transform."""

    __slots__ = ("scoped", "token")

    def __init__(self, args: Sequence[TracedTensor] | None = None) -> None:
        outer = _scope.get()
        self.scoped = Scope(args, None if outer is None else outer.last)

    def __enter__(self) -> Scope:
        self.token = _scope.set(self.scoped)
        return self.scoped

    def __exit__(self, *exc: object) -> None:
        _scope.reset(self.token)


def dependency() -> list[TracedTensor]:
    """The token the next effect op takes as its first input ([] where none is needed)."""
    found = _scope.get()
    if found is None:
        return []
    if found.last is None:
        inputs = [*(found.args or ()), *([] if found.start is None else [found.start])]
        if found.args is not None and inputs:
            found.last = apply(Start((), len(inputs)), inputs)[0]
        else:
            found.last = found.start
    return [] if found.last is None else [found.last]


def apply_effect(op: Any, inputs: Sequence[TracedTensor]) -> list[TracedTensor]:
    """Apply the effect op `op`: as any op, but in a body only recorded, never computed
    while the body is traced (a body traced on concrete captures, as vmap under a tape is,
    would otherwise run it then, and again when the body runs)."""
    found = _scope.get()
    if found is not None and found.args is not None and current().depth:
        return _record(op, inputs, None, False)
    return apply(op, inputs)


def note(token: TracedTensor) -> None:
    """`token` (an effect's, or a value whose computing runs effects) is now the scope's last;
    a computed one ran already and is ignored."""
    found = _scope.get()
    if found is not None and token._value is None:
        found.last = token


def keep(scoped: Scope, results: Sequence[Any]) -> None:
    """After a body traced in `scoped` had effects: the control op's `results` carry them
    (the enclosing scope's chain continues from them)."""
    if scoped.last is not None and scoped.last is not scoped.start:
        for t in results:
            if isinstance(t, TracedTensor):
                note(t)
                return


def tie(scoped: Scope, outputs: Sequence[TracedTensor]) -> list[TracedTensor]:
    """`outputs`, each reading the scope's effects first (as they are when it has none)."""
    token = scoped.last
    if token is None or token is scoped.start or token._value is not None or not outputs:
        return list(outputs)
    tied = apply(Tie((), len(outputs) + 1, len(outputs)), [*outputs, token])
    for new, old in zip(tied, outputs):
        new._weak = old._weak
    return tied


def pending(scoped: Scope) -> TracedTensor | None:
    """The scope's own last token, None when it traced no effect (or they ran already)."""
    token = scoped.last
    if token is None or token is scoped.start or token._value is not None:
        return None
    return token
