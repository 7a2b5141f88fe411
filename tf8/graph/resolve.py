"""Resolution: which graph defines each value reachable from some root graphs.

`resolve(roots)` walks the roots and their ancestors (iteratively, each graph once) and
builds a key-to-definition view. Nothing is copied or sorted; it is only a lookup table that
`materialize_merge` uses to check that every value it reaches is defined somewhere.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from tf8.errors import GraphError
from tf8.graph.graph import Graph
from tf8.graph.keys import OperationKey, ValueKey

__all__ = ["ResolvedView", "ValueDefinition", "resolve"]


@dataclass(frozen=True, slots=True)
class ValueDefinition:
    """Where a value is defined: the graph and local id there, and its key."""

    graph: Graph
    local_id: int
    key: ValueKey

    @property
    def is_input(self) -> bool:
        """True if the value is an input registered by `add_input`."""
        return self.key.is_input

    @property
    def operation(self) -> OperationKey | None:
        """The producing operation (None for inputs)."""
        return self.key.operation

    @property
    def output_slot(self) -> int:
        """Output slot of the producing operation (0 for inputs)."""
        return self.key.output_slot

    @property
    def input_key(self) -> Any:
        """The input's hashable key (None for operation outputs)."""
        return self.key.input_key


class ResolvedView:
    """Key-to-definition lookup over a set of graphs; build it with `resolve`."""

    __slots__ = ("_graphs", "_owners")

    _graphs: tuple[Graph, ...]
    # id(key) -> defining graph. Ids are safe: the view holds the graphs, which hold the keys.
    _owners: dict[int, Graph]

    def __new__(cls, *args: object, **kwargs: object) -> ResolvedView:
        raise TypeError("build a ResolvedView with resolve(roots)")

    @property
    def graphs(self) -> tuple[Graph, ...]:
        """Every graph reached, roots first, each once (depth-first over parents)."""
        return self._graphs

    def __contains__(self, key: object) -> bool:
        return type(key) is ValueKey and id(key) in self._owners

    def __len__(self) -> int:
        return len(self._owners)

    def __iter__(self) -> Iterator[ValueKey]:
        owners = self._owners
        for graph in self._graphs:
            for key in graph._values:
                if owners[id(key)] is graph:
                    yield key

    def definition(self, key: ValueKey) -> ValueDefinition:
        """Where `key` is defined (the first graph in walk order that defines it)."""
        graph = self._owners.get(id(key)) if type(key) is ValueKey else None
        if graph is None:
            raise GraphError(
                f"{key!r} cannot be resolved: no graph of this view "
                f"({len(self._graphs)} graphs) defines it"
            )
        return ValueDefinition(graph, graph.local_id(key), key)

    def __repr__(self) -> str:
        return f"ResolvedView(graphs={len(self._graphs)}, values={len(self._owners)})"


def resolve(roots: Graph | Sequence[Graph]) -> ResolvedView:
    """Map every value defined in `roots` and their ancestors to its definition."""
    roots = (roots,) if isinstance(roots, Graph) else tuple(roots)
    for position, root in enumerate(roots):
        if type(root) is not Graph:
            raise GraphError(f"root {position} is a {type(root).__name__}, not a Graph")
    seen: set[int] = set()
    order: list[Graph] = []
    stack = list(reversed(roots))
    while stack:
        graph = stack.pop()
        if id(graph) in seen:
            continue
        seen.add(id(graph))
        order.append(graph)
        stack.extend(reversed(graph._parents))
    owners: dict[int, Graph] = {}
    # Walk backwards so that the first graph (in walk order) defining a key wins.
    for graph in reversed(order):
        owners.update(zip(map(id, graph._values), repeat(graph)))
    view = object.__new__(ResolvedView)
    view._graphs = tuple(order)
    view._owners = owners
    return view
