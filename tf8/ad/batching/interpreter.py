"""The batching transform on the one interpreter: a graph over per-example leaves, run on
batched values.

`batch_graph` walks the graph behind some outputs once; the environment maps a value's key to
(its batched TracedTensor, its batch axis). An op touching a batched value asks the batching
rule table; an op on no batched value is left alone (its unbatched value serves).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from tf8.errors import NoBatchingRule
from tf8.graph import OperationKey, ValueKey
from tf8.lax.core import apply
from tf8.lax.walk import GraphWalk, interpret
from tf8.ops.definition import definition
from tf8.traced import TracedTensor

from ..control.batching import control_batching_rules
from ..control.solves_batching import solve_batching_rules
from ..walk import RuleTable
from .core import BatchRule
from .families import RULES as FAMILY_RULES
from .rules import RULES as PRIMITIVE_RULES
from .rules import home_batch

Batched = tuple[TracedTensor, int | None]


def _no_rule(op: Any) -> Exception:
    found = definition(op)
    if isinstance(found.rule_key, str):  # a catalog row: its rule is keyed by the row name
        return NoBatchingRule(
            f"vmap: primitive {found.name!r} has no batching rule; call "
            f"tf8.ad.batching.register_batching_rule({found.name!r}, rule) with "
            "rule(op, args, dims) -> (outputs, out_dims)"
        )
    cls = type(op).__name__
    return NoBatchingRule(
        f"vmap: {found.name!r} (family {getattr(op, 'family', '?')!r}, class {cls}) has no "
        f"batching rule; give {cls} a method `batch(self, op, args, dims) -> (outputs, "
        f"out_dims)`, or call tf8.ad.batching.register_batching_rule({cls}, rule)"
    )


def batch_graph(
    outputs: Sequence[TracedTensor],
    leaves: Sequence[TracedTensor],
    batched: Sequence[TracedTensor],
    dims: Sequence[int],
    values: Mapping[ValueKey, Any] | None = None,
) -> list[Batched]:
    """(value, batch axis) of each output when the leaves `leaves` take the batched values
    `batched` (batch axis `dims`); outputs that do not depend on them come back unchanged with
    axis None. `values` holds the values computed while tracing (rules read them)."""
    walk = GraphWalk(outputs, values=values)
    env: dict[ValueKey, Any] = {
        leaf.key: (b, d) for leaf, b, d in zip(leaves, batched, dims) if leaf.key in walk
    }

    def step(op_key: OperationKey, entries: list[Batched | None]) -> list[Batched]:
        op = op_key.op
        args = [walk[k] if e is None else e[0] for k, e in zip(op_key.inputs, entries)]
        in_dims = [None if e is None else e[1] for e in entries]
        if all(d is None for d in in_dims):  # depends on the batch only through its shape
            return [(out, None) for out in apply(op, args)]
        outs, out_dims = BATCHING(op)(op, args, in_dims)
        return list(zip(outs, out_dims))

    interpret(walk.operations, env, step)
    return [env.get(o.key, (o, None)) for o in outputs]


# Primitives' rules keyed by row name, extension families' by op class (an op class may carry
# its rule as a `batch` method instead); the control ops' rules apply batch_graph to bodies.
BATCHING = RuleTable(
    "batching",
    "batch",
    {
        **PRIMITIVE_RULES,
        **FAMILY_RULES,
        **control_batching_rules(batch_graph),
        **solve_batching_rules(batch_graph),
    },
    missing=_no_rule,
    derive=home_batch,
)


def register_batching_rule(key: Hashable, rule: BatchRule) -> None:
    """Give the op kind `key` (a row name or an extension op class) its batching rule
    `rule(op, args, dims) -> (outputs, out_dims)` (see tf8.ad.batching.core)."""
    BATCHING.register(key, rule)


def unregister_batching_rule(key: Hashable) -> None:
    BATCHING.rules.pop(key, None)
