"""Walking a traced graph: every value as a TracedTensor, in topological order.

AD transforms read the graph behind some outputs op by op. `GraphWalk` materialises it once
(`materialize_merge`, so shared subexpressions appear once), re-infers each value's aval and
whether it depends on an unbound leaf, and hands out TracedTensor wrappers that share one
bindings dict (so rules emitting new ops merge bindings in O(1)).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tf8.graph import OperationKey, ValueKey, materialize_merge
from tf8.ops.definition import infer
from tf8.traced import TracedTensor, apply, merge_bindings


class GraphWalk:
    """The graph behind `outputs`, with a TracedTensor for every value in it."""

    def __init__(self, outputs: Sequence[TracedTensor], extra: Iterable[TracedTensor] = ()) -> None:
        self.bindings = merge_bindings([*outputs, *extra])
        flat = materialize_merge(None, [t.key for t in outputs])
        self.operations: list[OperationKey] = flat.operations
        self.inputs: list[ValueKey] = flat.inputs
        self.tensors: dict[ValueKey, TracedTensor] = {}
        for key in flat.inputs:
            leaf = key.input_key
            unbound, diff = key not in self.bindings, leaf.kind == "argument"
            self.tensors[key] = TracedTensor(key, leaf.aval, self.bindings, unbound, diff=diff)
        for op_key in flat.operations:
            ins = [self.tensors[k] for k in op_key.inputs]
            avals = infer(op_key.op, [t.aval for t in ins])
            unbound = any(t._unbound for t in ins)
            diff = any(t._diff for t in ins)
            for out_key, aval in zip(op_key.outputs, avals):
                self.tensors[out_key] = TracedTensor(
                    out_key, aval, self.bindings, unbound, diff=diff
                )

    def __getitem__(self, key: ValueKey) -> TracedTensor:
        return self.tensors[key]

    def depends_on(self, sources: Iterable[ValueKey]) -> set[ValueKey]:
        """Every value (key) of the graph that depends on one of `sources`."""
        active = {k for k in sources if k in self.tensors}
        for op_key in self.operations:
            if any(k in active for k in op_key.inputs):
                active.update(op_key.outputs)
        return active


def substitute(
    results: Sequence[TracedTensor], mapping: Mapping[ValueKey, TracedTensor]
) -> list[TracedTensor]:
    """`results` with every leaf in `mapping` replaced by its target value (graph rebuild).

    Only operations downstream of a replaced leaf are rebuilt; the rest keep their keys.
    """
    if not mapping:
        return list(results)
    walk = GraphWalk(results, mapping.values())
    new: dict[ValueKey, TracedTensor] = {k: v for k, v in mapping.items()}
    for op_key in walk.operations:
        if not any(k in new for k in op_key.inputs):
            continue
        ins = [new[k] if k in new else walk[k] for k in op_key.inputs]
        outs = apply(op_key.op, ins)
        new.update(zip(op_key.outputs, outs))
    return [new[t.key] if t.key in new else walk[t.key] for t in results]
