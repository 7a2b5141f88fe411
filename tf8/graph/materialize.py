"""Materialisation: flatten the values needed for some outputs into one topological list.

`materialize_merge` walks from the outputs depth-first (inputs of an operation in order,
then the operation) and emits each distinct `OperationKey` once. Because keys are interned,
"distinct" is object identity, so this is common-subexpression elimination for free: the
same computation built in two unrelated graphs appears once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tf8.errors import GraphError
from tf8.graph.keys import OperationKey, ValueKey
from tf8.graph.resolve import ResolvedView

__all__ = ["MaterializedGraph", "materialize_merge"]


@dataclass(frozen=True, slots=True, eq=False)
class MaterializedGraph:
    """A flat graph: inputs (first-encounter order), operations (topological), outputs."""

    inputs: list[ValueKey]
    operations: list[OperationKey]
    outputs: list[ValueKey]

    def __repr__(self) -> str:
        return (
            f"MaterializedGraph(inputs={len(self.inputs)}, operations={len(self.operations)}, "
            f"outputs={len(self.outputs)})"
        )


def materialize_merge(view: ResolvedView | None, outputs: Sequence[ValueKey]) -> MaterializedGraph:
    """Flatten everything `outputs` depend on, one entry per distinct operation key.

    With a view, every key reached must be defined in it (GraphError otherwise); with None,
    keys are trusted, since they describe themselves.
    """
    outputs = list(outputs)
    for position, output in enumerate(outputs):
        if type(output) is not ValueKey:
            raise GraphError(f"output {position} is a {type(output).__name__}, not a ValueKey")
    known = None if view is None else view._owners
    graph_count = 0 if view is None else len(view.graphs)
    inputs: list[ValueKey] = []
    operations: list[OperationKey] = []
    visited: set[int] = set()  # ids of inputs and operations reached (all kept alive by outputs)
    for position, output in enumerate(outputs):
        # Iterative post-order: an OperationKey on the stack marks "all inputs emitted".
        stack: list[ValueKey | OperationKey] = [output]
        pop = stack.pop
        push = stack.append
        extend = stack.extend
        while stack:
            item = pop()
            if type(item) is OperationKey:
                operations.append(item)
                continue
            operation = item._operation
            if operation is None:
                if id(item) not in visited:
                    if known is not None and id(item) not in known:
                        raise _unresolved(item, position, graph_count)
                    visited.add(id(item))
                    inputs.append(item)
                continue
            if id(operation) in visited:
                # A single-output operation was visited through this very key, which was
                # checked then; another output slot of a multi-output one was not.
                if known is not None and operation._output_count > 1 and id(item) not in known:
                    raise _unresolved(item, position, graph_count)
                continue
            if known is not None and id(item) not in known:
                raise _unresolved(item, position, graph_count)
            visited.add(id(operation))
            push(operation)
            extend(operation._structure[:1:-1])  # the inputs, last first
    return MaterializedGraph(inputs, operations, outputs)


def _unresolved(key: ValueKey, output_position: int, graph_count: int) -> GraphError:
    """The error for a key that no graph of the view defines."""
    return GraphError(
        f"{key!r} (needed by output {output_position}) cannot be resolved: no graph of the "
        f"view ({graph_count} graphs) defines it"
    )
