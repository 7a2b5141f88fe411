"""Graphs: local values and operations, plus parent graphs whose values they may use.

A `GraphBuilder` adds inputs and operations and numbers the values it defines (local ids);
`finish()` freezes it into an immutable `Graph`. Operations may read values of parent graphs
through their (external) `ValueKey`s. Parents exist before their children, so the parent
relation can never form a cycle.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from tf8.errors import GraphError
from tf8.graph.keys import OperationKey, ValueKey
from tf8.graph.operation import operation_name
from tf8.graph.role import PRIMARY, OperationRole

__all__ = ["Graph", "GraphBuilder"]


class Graph:
    """Immutable graph: local values (index = local id), operations and parent graphs."""

    __slots__ = ("_values", "_operations", "_parents", "_local_ids", "__weakref__")

    _values: tuple[ValueKey, ...]
    _operations: tuple[OperationKey, ...]
    _parents: tuple[Graph, ...]
    # id(key) -> first local id holding it, built on first use; ids are safe because the
    # graph keeps its keys alive.
    _local_ids: dict[int, int] | None

    def __new__(cls, *args: object, **kwargs: object) -> Graph:
        raise TypeError("build a Graph with GraphBuilder(...).finish()")

    @property
    def values(self) -> tuple[ValueKey, ...]:
        """The keys of the values this graph defines; position = local id."""
        return self._values

    @property
    def operations(self) -> tuple[OperationKey, ...]:
        """The operations this graph added, in order."""
        return self._operations

    @property
    def parents(self) -> tuple[Graph, ...]:
        """Graphs whose values this graph's operations may read."""
        return self._parents

    def key(self, local_id: int) -> ValueKey:
        """The key of local value `local_id`."""
        values = self._values
        if type(local_id) is not int or not 0 <= local_id < len(values):
            raise GraphError(
                f"unknown local id {local_id!r}: this graph defines {_describe_ids(len(values))}"
            )
        return values[local_id]

    def local_id(self, key: ValueKey) -> int:
        """The local id of `key` in this graph (GraphError if it is not defined here)."""
        local_ids = self._local_ids
        if local_ids is None:
            values = self._values
            # Reversed, so that the first local id of a repeated key wins.
            local_ids = dict(zip(map(id, reversed(values)), range(len(values) - 1, -1, -1)))
            self._local_ids = local_ids
        local = local_ids.get(id(key))
        if local is None:
            raise GraphError(f"{key!r} is not defined in this graph")
        return local

    def __repr__(self) -> str:
        return (
            f"Graph(values={len(self._values)}, operations={len(self._operations)}, "
            f"parents={len(self._parents)})"
        )


class GraphBuilder:
    """Mutable builder of one `Graph`.

    Adding an input twice returns its first local id. Adding an operation twice gives new
    local ids for the same keys (deduplication happens when graphs are merged).
    """

    __slots__ = ("_parents", "_values", "_operations", "_input_ids", "_finished")

    def __init__(self, parents: Graph | Sequence[Graph] = ()) -> None:
        parents = (parents,) if isinstance(parents, Graph) else tuple(parents)
        for position, parent in enumerate(parents):
            if type(parent) is not Graph:
                raise GraphError(f"parent {position} is a {type(parent).__name__}, not a Graph")
        self._parents: tuple[Graph, ...] = parents
        self._values: list[ValueKey] = []
        self._operations: list[OperationKey] = []
        self._input_ids: dict[int, int] = {}  # id(input key) -> local id
        self._finished = False

    def add_input(self, input_key: Hashable) -> int:
        """Define the input named `input_key` here; returns its local id."""
        self._check_open()
        key = ValueKey.input(input_key)
        local = self._input_ids.get(id(key))
        if local is None:
            local = len(self._values)
            self._values.append(key)
            self._input_ids[id(key)] = local
        return local

    def add_operation(
        self, op: Any, inputs: Sequence[int | ValueKey], role: OperationRole = PRIMARY
    ) -> list[int]:
        """Apply `op` to local ids or external keys; returns the local ids of its outputs."""
        if self._finished:
            self._check_open()
        values = self._values
        try:
            keys = tuple([values[ref] if type(ref) is int and ref >= 0 else ref for ref in inputs])
            operation = OperationKey.get(op, keys, role)
        except (IndexError, GraphError):
            error = self._input_error(op, inputs)  # precise, if an input reference is bad
            if error is None:
                raise
            raise error from None
        first = len(values)
        self._operations.append(operation)
        output_count = operation._output_count
        if output_count == 1:
            values.append(operation.output(0))
            return [first]
        values.extend([operation.output(slot) for slot in range(output_count)])
        return list(range(first, first + output_count))

    def _input_error(self, op: Any, inputs: Sequence[int | ValueKey]) -> GraphError | None:
        """An error naming the first input that is neither a known local id nor a key."""
        count = len(self._values)
        for position, ref in enumerate(inputs):
            if type(ref) is int:
                if not 0 <= ref < count:
                    return GraphError(
                        f"input {position} of {operation_name(op)} refers to unknown local id "
                        f"{ref}: this graph has {_describe_ids(count)}"
                    )
            elif type(ref) is not ValueKey:
                return GraphError(
                    f"input {position} of {operation_name(op)} is a {type(ref).__name__}; "
                    "expected a local id (int) or an external ValueKey"
                )
        return None

    def key(self, local_id: int) -> ValueKey:
        """The key of local value `local_id` defined so far."""
        values = self._values
        if type(local_id) is not int or not 0 <= local_id < len(values):
            raise GraphError(
                f"unknown local id {local_id!r}: this builder has {_describe_ids(len(values))}"
            )
        return values[local_id]

    def finish(self) -> Graph:
        """Freeze into an immutable Graph; the builder cannot be used afterwards."""
        self._check_open()
        self._finished = True
        graph = object.__new__(Graph)
        graph._values = tuple(self._values)
        graph._operations = tuple(self._operations)
        graph._parents = self._parents
        graph._local_ids = None
        return graph

    def _check_open(self) -> None:
        if self._finished:
            raise GraphError("this GraphBuilder has already been finished")


def _describe_ids(count: int) -> str:
    """'3 values (ids 0..2)' for error messages."""
    return f"{count} values (ids 0..{count - 1})" if count else "no values yet"
