"""Graph and GraphBuilder: local ids, external keys from parents, and their errors."""

from __future__ import annotations

import pytest
from graph_toy_ops import ADD, MUL, Scale, Sink, SumDiff

from tf8.errors import ArityError, GraphError
from tf8.graph import Graph, GraphBuilder, OperationKey, ValueKey


def test_local_ids_number_inputs_then_outputs() -> None:
    builder = GraphBuilder()
    x = builder.add_input("gb_x")
    y = builder.add_input("gb_y")
    assert (x, y) == (0, 1)
    assert builder.add_input("gb_x") == x  # the same input twice is one value
    total, difference = builder.add_operation(SumDiff(), [x, y])
    (product,) = builder.add_operation(MUL, [total, difference])
    assert builder.add_operation(Sink(), [product]) == []
    graph = builder.finish()
    assert (total, difference, product) == (2, 3, 4)
    assert len(graph.values) == 5 and len(graph.operations) == 3 and graph.parents == ()
    assert graph.key(x) is ValueKey.input("gb_x")
    assert graph.key(product).operation is OperationKey.get(
        MUL, (graph.key(total), graph.key(difference))
    )
    assert graph.key(difference).output_slot == 1
    assert [graph.local_id(graph.key(i)) for i in range(5)] == list(range(5))
    assert repr(graph) == "Graph(values=5, operations=3, parents=0)"


def test_operations_may_read_parent_values_by_key() -> None:
    first = GraphBuilder()
    x = first.add_input("gb_px")
    (doubled,) = first.add_operation(Scale(2.0), [x])
    parent = first.finish()
    child = GraphBuilder(parent)
    (total,) = child.add_operation(ADD, [parent.key(doubled), parent.key(x)])
    (again,) = child.add_operation(ADD, [total, parent.key(x)])
    graph = child.finish()
    assert graph.parents == (parent,)
    assert (total, again) == (0, 1) and len(graph.values) == 2
    assert graph.key(total).operation.inputs == (parent.key(doubled), parent.key(x))


def test_adding_an_operation_twice_gives_the_same_key() -> None:
    builder = GraphBuilder()
    x = builder.add_input("gb_dup")
    (a,) = builder.add_operation(Scale(3.0), [x])
    (b,) = builder.add_operation(Scale(3.0), [x])
    graph = builder.finish()
    assert graph.key(a) is graph.key(b)
    assert graph.local_id(graph.key(b)) == a  # the first local id holding the key


def test_unknown_local_id_names_the_op_the_id_and_the_count() -> None:
    builder = GraphBuilder()
    x = builder.add_input("gb_unknown")
    with pytest.raises(
        GraphError, match=r"input 1 of Add refers to unknown local id 7: .* 1 value"
    ):
        builder.add_operation(ADD, [x, 7])
    with pytest.raises(GraphError, match="unknown local id -1"):
        builder.add_operation(ADD, [-1, x])
    with pytest.raises(GraphError, match="input 0 of Add is a str"):
        builder.add_operation(ADD, ["x", x])
    with pytest.raises(GraphError, match="input 1 of Add is a bool"):
        builder.add_operation(ADD, [x, True])
    with pytest.raises(GraphError, match="unknown local id 3"):
        builder.key(3)


def test_wrong_input_count_raises_arity_error() -> None:
    builder = GraphBuilder()
    x = builder.add_input("gb_arity")
    with pytest.raises(ArityError, match="Add takes 2 inputs, got 3"):
        builder.add_operation(ADD, [x, x, x])
    with pytest.raises(ArityError, match="Scale takes 1 inputs, got 0"):
        builder.add_operation(Scale(2.0), [])
    # A failed call adds nothing.
    assert len(builder.finish().values) == 1


def test_graph_key_errors_name_the_id_and_the_count() -> None:
    builder = GraphBuilder()
    builder.add_input("gb_key")
    graph = builder.finish()
    with pytest.raises(GraphError, match=r"unknown local id 5: this graph defines 1 values"):
        graph.key(5)
    with pytest.raises(GraphError, match="unknown local id '0'"):
        graph.key("0")  # type: ignore[arg-type]
    with pytest.raises(GraphError, match="not defined in this graph"):
        graph.local_id(ValueKey.input("gb_elsewhere"))


def test_finished_builders_and_bad_parents_are_refused() -> None:
    builder = GraphBuilder()
    builder.finish()
    with pytest.raises(GraphError, match="already been finished"):
        builder.add_input("gb_late")
    with pytest.raises(GraphError, match="already been finished"):
        builder.add_operation(Scale(2.0), [0])
    with pytest.raises(GraphError, match="already been finished"):
        builder.finish()
    with pytest.raises(GraphError, match="parent 0 is a str"):
        GraphBuilder(["not a graph"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        Graph()
