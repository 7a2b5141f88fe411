"""The one interpreter every transform and every graph rebuild runs on, and the graph walk it
reads.

`GraphWalk` materialises the graph behind some outputs once (`materialize_merge`, so shared
subexpressions appear once), finds once which values depend on an unbound leaf, and hands out
a TracedTensor for every value in it, with the avals recorded when each op was made (nothing
is inferred again). `interpret` walks those operations once, in topological order (or
reversed, for transposition), and hands each operation that touches the environment to a
`step`; the environment (tangents, cotangents, replacements, batch axes) is a plain dict the
caller owns, never state in tensors or globals.

The transforms of tf8.ad are steps (jvp, transpose, batching), and so are the rebuilds that
tracing itself needs: `substitute` (a graph with some leaves replaced, how nested transforms
hand results back), closure conversion and inlining of a sub-program
(tf8.lax.control.closure).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from tf8.graph import OperationKey, ValueKey, materialize_merge
from tf8.graph.interpret import Step, interpret
from tf8.ops.avals import value_aval as aval_of
from tf8.ops.definition import infer
from tf8.ops.frames import current
from tf8.traced import TracedTensor

from .core import merge_bindings, record
from .values import known_value, remember_value

__all__ = ["GraphWalk", "Step", "interpret", "substitute"]


class GraphWalk:
    """The graph behind `outputs`, with a TracedTensor for every value in it (made when first
    asked for: a walk reads only some); a value known (a bound leaf, or an op whose value
    `values` or the active value table holds) carries it. `keys` walks the graph behind
    value keys instead (a sub-program's outputs: no leaf is bound)."""

    def __init__(
        self,
        outputs: Sequence[TracedTensor],
        extra: Iterable[TracedTensor] = (),
        values: Mapping[ValueKey, Any] | None = None,
        keys: Sequence[ValueKey] | None = None,
    ) -> None:
        self.bindings = bindings = merge_bindings([*outputs, *extra])
        self.values = (current().values or {}) if values is None else values
        flat = materialize_merge(None, [t.key for t in outputs] if keys is None else list(keys))
        self.operations: list[OperationKey] = flat.operations
        self.inputs: list[ValueKey] = flat.inputs
        # the values that depend on an unbound leaf (no value can be known for them)
        unbound = {key for key in flat.inputs if bindings.get(key) is None}
        for op_key in flat.operations:
            if op_key.meta is None:  # built through the raw graph API, not tf8.lax.core.apply
                guards: list = []
                avals = [aval_of(k) for k in op_key.inputs]
                op_key.meta = (infer(op_key.op, avals, guards), guards)
            if unbound and any([k in unbound for k in op_key.inputs]):
                unbound.update(op_key.outputs)
        self.unbound = unbound
        self._tensors: dict[ValueKey, TracedTensor] = {}
        self._members: set[Any] | None = None

    def __getitem__(self, key: ValueKey) -> TracedTensor:
        t = self._tensors.get(key)
        if t is None:
            if key not in self:
                raise KeyError(key)
            t = self._tensors[key] = self._tensor(key)
        return t

    def _tensor(self, key: ValueKey) -> TracedTensor:
        tracked = current().tracked
        if tracked:
            found = tracked.get(key)
            if found is not None:  # a value hidden tapes follow: the very tensor
                return found
        unbound = key in self.unbound
        operation = key._operation
        if operation is None:  # a leaf
            t = TracedTensor(key, key._input_key.aval, self.bindings, unbound)
            bound = self.bindings.get(key)
            if type(bound) is np.ndarray:
                t._value = bound
            return t
        t = TracedTensor(key, operation.meta[0][key._output_slot], self.bindings, unbound)
        if not unbound:
            t._value = known_value(self.values, key)
        return t

    def __contains__(self, key: ValueKey) -> bool:
        """Whether `key` is a value of the graph (a leaf it reads or an op's output)."""
        members = self._members
        if members is None:
            members = self._members = {*self.inputs, *self.operations}
        operation = key._operation
        return (key if operation is None else operation) in members

    @property
    def tensors(self) -> dict[ValueKey, TracedTensor]:
        """A TracedTensor for every value of the graph, by key."""
        for key in self.inputs:
            self[key]
        for op_key in self.operations:
            for key in op_key.outputs:
                self[key]
        return self._tensors

    def depends_on(self, sources: Iterable[ValueKey]) -> set[ValueKey]:
        """Every value (key) of the graph that depends on one of `sources`."""
        return self.downstream(sources)[0]

    def downstream(self, sources: Iterable[ValueKey]) -> tuple[set[ValueKey], list[OperationKey]]:
        """Every value (key) of the graph that depends on one of `sources`, and the operations
        with such an output, in order."""
        active = {k for k in sources if k in self}
        operations: list[OperationKey] = []
        if not active:
            return active, operations
        producers = {k.operation for k in active if not k.is_input}  # sources made by ops
        for op_key in self.operations:
            if any([k in active for k in op_key.inputs]):
                active.update(op_key.outputs)
                operations.append(op_key)
            elif producers and op_key in producers:
                operations.append(op_key)
        return active, operations


def substitute(
    results: Sequence[TracedTensor],
    mapping: Mapping[ValueKey, TracedTensor],
    same_values: bool = False,
) -> list[TracedTensor]:
    """`results` with every leaf in `mapping` replaced by its target value (graph rebuild):
    a step of `interpret` over the graph behind them.

    Only operations downstream of a replaced leaf are rebuilt, at the level of keys (no
    tensor per intermediate value); when every replacement has its leaf's aval, the rebuilt
    ops reuse the recorded avals instead of inferring them again. With `same_values` (each
    replacement holds the value its leaf was bound to) the rebuilt values are the old ones:
    they carry over instead of being computed again."""
    if not mapping:
        return list(results)
    walk = GraphWalk(results, mapping.values())
    same = all(v.aval == k.input_key.aval for k, v in mapping.items())
    # env: old key -> (new key, whether it depends on an unbound leaf)
    env: dict[ValueKey, Any] = {k: (v.key, v._unbound) for k, v in mapping.items()}
    unbound = walk.unbound
    table = current().values
    carry = same_values and table is not None

    def rebuild(op_key: OperationKey, values: list) -> list:
        keys = tuple([k if v is None else v[0] for k, v in zip(op_key.inputs, values)])
        is_unbound = False
        for k, v in zip(op_key.inputs, values):
            if (k in unbound) if v is None else v[1]:
                is_unbound = True
                break

        def meta() -> Any:
            if same:
                return op_key.meta
            guards: list = []
            return (infer(op_key.op, [aval_of(k) for k in keys], guards), tuple(guards))

        rebuilt = record(op_key.op, keys, meta)
        if carry and not is_unbound:
            for old, out in zip(op_key.outputs, rebuilt.outputs):
                value = known_value(table, old)  # type: ignore[arg-type]
                if value is not None:
                    remember_value(table, out, value)  # type: ignore[arg-type]
        return [(out, is_unbound) for out in rebuilt.outputs]

    interpret(walk.operations, env, rebuild)
    out = []
    for t in results:
        found = env.get(t.key)
        if found is None:
            out.append(t)
            continue
        key, is_unbound = found
        aval = t.aval if same else aval_of(key)
        rebuilt = TracedTensor(key, aval, walk.bindings, is_unbound)
        if same_values and not is_unbound:
            rebuilt._value = t._value
        out.append(rebuilt)
    return out
