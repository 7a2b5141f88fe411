"""The one interpreter every transform runs on, and the graph walk it reads.

`GraphWalk` materialises the graph behind some outputs once (`materialize_merge`, so shared
subexpressions appear once) and hands out a TracedTensor for every value in it, with the avals
recorded when each op was made (nothing is inferred again). `interpret` walks those operations
once, in topological order (or reversed, for transposition), and hands each operation that
touches the transform's environment to the transform's `step`; the environment — tangents,
cotangents, replacements, batch axes — is a plain dict the transform owns, never state in
tensors or globals. Substitution (how nested transforms hand results back) runs on it too.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from tf8.errors import DifferentiationError
from tf8.graph import OperationKey, ValueKey, materialize_merge
from tf8.lax.core import merge_bindings, record
from tf8.lax.values import known_value, remember_value
from tf8.ops.avals import value_aval as aval_of
from tf8.ops.definition import definition, infer
from tf8.ops.frames import current
from tf8.traced import TracedTensor

Step = Callable[[OperationKey, list[Any]], Sequence[Any]]


class GraphWalk:
    """The graph behind `outputs`, with a TracedTensor for every value in it (made when first
    asked for: a walk reads only some); a value known (a bound leaf, or an op whose value
    `values` or the active value table holds) carries it."""

    def __init__(
        self,
        outputs: Sequence[TracedTensor],
        extra: Iterable[TracedTensor] = (),
        values: Mapping[ValueKey, Any] | None = None,
    ) -> None:
        self.bindings = bindings = merge_bindings([*outputs, *extra])
        self.values = (current().values or {}) if values is None else values
        flat = materialize_merge(None, [t.key for t in outputs])
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
        self._unbound = unbound
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
        unbound = key in self._unbound
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


def interpret(
    operations: Sequence[OperationKey],
    env: dict[ValueKey, Any],
    step: Step,
    *,
    backward: bool = False,
) -> dict[ValueKey, Any]:
    """Walk `operations` once and run `step(op_key, values)` on each that touches `env`.

    Forward: `values` are the env entries of the op's inputs (None where absent) and the
    step's results become the env entries of its outputs. Backward (transposition): `values`
    are the entries of its outputs, popped, and the results are *added* to its inputs'
    entries by the step itself (accumulation is the transform's business)."""
    pop, get = env.pop, env.get
    if backward:
        for op_key in reversed(operations):
            values = [pop(k, None) for k in op_key.outputs]
            if any([v is not None for v in values]):  # (not count(None): values define ==)
                step(op_key, values)
        return env
    for op_key in operations:
        values = [get(k) for k in op_key.inputs]
        if not any([v is not None for v in values]):
            continue
        for key, out in zip(op_key.outputs, step(op_key, values)):
            if out is not None:
                env[key] = out
    return env


class RuleTable:
    """A transform's rules keyed by `definition(op).rule_key`; a user-defined extension
    family may carry its rule as a method named `method` instead. `missing(op)` builds the
    exception for an op with neither (by default a DifferentiationError)."""

    def __init__(
        self,
        what: str,
        method: str,
        rules: Mapping[Hashable, Callable],
        missing: Callable[[Any], Exception] | None = None,
        derive: Callable[[Any], Callable | None] | None = None,
    ) -> None:
        self.what = what
        self.method = method
        self.rules = dict(rules)
        self.missing = missing
        self.derive = derive

    def __call__(self, op: Any) -> Callable:
        """The rule for `op` (the missing-rule exception if it has none)."""
        found = definition(op)
        rule = self.rules.get(found.rule_key)
        if rule is None and self.derive is not None:
            rule = self.derive(found)  # a primitive registered since: its home's rule
        if rule is None:
            rule = getattr(op, self.method, None)
        if rule is None:
            if self.missing is not None:
                raise self.missing(op)
            raise DifferentiationError(f"{op!r} has no {self.what} rule")
        return rule

    def register(self, key: Hashable, rule: Callable) -> None:
        self.rules[key] = rule

    def __contains__(self, key: Hashable) -> bool:
        return key in self.rules


class RuleCache:
    """One walk's rules by op object: a graph repeats a few ops many times (the same `mul`),
    so each is looked up in the table once per walk (the walk keeps its ops alive)."""

    __slots__ = ("table", "found")

    def __init__(self, table: RuleTable) -> None:
        self.table = table
        self.found: dict[int, Callable] = {}

    def __call__(self, op: Any) -> Callable:
        rule = self.found.get(id(op))
        if rule is None:
            rule = self.found[id(op)] = self.table(op)
        return rule


def substitute(
    results: Sequence[TracedTensor],
    mapping: Mapping[ValueKey, TracedTensor],
    same_values: bool = False,
) -> list[TracedTensor]:
    """`results` with every leaf in `mapping` replaced by its target value (graph rebuild).

    Only operations downstream of a replaced leaf are rebuilt, at the level of keys (no
    tensor per intermediate value); when every replacement has its leaf's aval, the rebuilt
    ops reuse the recorded avals instead of inferring them again. With `same_values` (each
    replacement holds the value its leaf was bound to) the rebuilt values are the old ones:
    they carry over instead of being computed again."""
    if not mapping:
        return list(results)
    flat = materialize_merge(None, [t.key for t in results])
    bindings = merge_bindings([*results, *mapping.values()])
    same = all(v.aval == k.input_key.aval for k, v in mapping.items())
    new: dict[ValueKey, ValueKey] = {k: v.key for k, v in mapping.items()}
    unbound = {v.key for v in mapping.values() if v._unbound}
    unbound.update(k for k in flat.inputs if k not in mapping and k not in bindings)
    table = current().values
    carry = same_values and table is not None
    for op_key in flat.operations:
        ins = op_key.inputs
        if not any([k in new for k in ins]):
            if any([k in unbound for k in ins]):
                unbound.update(op_key.outputs)
            continue
        keys = tuple([new.get(k, k) for k in ins])

        def meta(op_key: OperationKey = op_key, keys: tuple = keys) -> Any:
            if same:
                return op_key.meta
            guards: list = []
            return (infer(op_key.op, [aval_of(k) for k in keys], guards), tuple(guards))

        rebuilt = record(op_key.op, keys, meta)
        is_unbound = any([k in unbound for k in keys])
        for old, out in zip(op_key.outputs, rebuilt.outputs):
            new[old] = out
            if is_unbound:
                unbound.add(out)
            elif carry:
                value = known_value(table, old)  # type: ignore[arg-type]
                if value is not None:
                    remember_value(table, out, value)  # type: ignore[arg-type]
    out = []
    for t in results:
        key = new.get(t.key)
        if key is None:
            out.append(t)
        else:
            aval = t.aval if same else aval_of(key)
            rebuilt = TracedTensor(key, aval, bindings, key in unbound)
            if same_values and not rebuilt._unbound:
                rebuilt._value = t._value
            out.append(rebuilt)
    return out
