"""resolve -> materialize_merge -> compile -> eval on the reference examples, and errors."""

from __future__ import annotations

import dataclasses

import pytest
from graph_toy_ops import ADD, MUL, SUB, Const, Opaque, Scale, SumDiff

from tf8.errors import GraphError
from tf8.graph import (
    PRIMARY,
    CompiledProgram,
    Graph,
    GraphBuilder,
    Instruction,
    Linearized,
    MaterializedGraph,
    ValueKey,
    compile,
    compile_program,
    eval_program,
    materialize_merge,
    resolve,
)


def reference_graphs() -> tuple[Graph, Graph, dict[str, int]]:
    """computegraph's example: g1 holds x, y, p = x*y; g2 rebuilds q = x*y and r = p + q."""
    first = GraphBuilder()
    x = first.add_input("x")
    y = first.add_input("y")
    (p,) = first.add_operation(MUL, [x, y])
    g1 = first.finish()
    second = GraphBuilder([g1])
    (q,) = second.add_operation(MUL, [g1.key(x), g1.key(y)])
    (r,) = second.add_operation(ADD, [g1.key(p), q])
    g2 = second.finish()
    return g1, g2, {"x": x, "y": y, "p": p, "q": q, "r": r}


def test_reference_example_merges_equal_subexpressions() -> None:
    g1, g2, ids = reference_graphs()
    assert (len(g1.values), len(g1.operations)) == (3, 1)
    assert (len(g2.values), len(g2.operations), len(g2.parents)) == (2, 2, 1)
    assert g1.key(ids["p"]) is g2.key(ids["q"])

    flat = materialize_merge(resolve(g2), [g2.key(ids["r"])])
    assert flat.inputs == [ValueKey.input("x"), ValueKey.input("y")]
    assert len(flat.operations) == 2
    program = compile_program(flat)
    assert program.instructions == [
        Instruction(MUL, PRIMARY, (0, 1), (2,)),
        Instruction(ADD, PRIMARY, (2, 2), (3,)),
    ]
    assert program.input_slots == [0, 1] and program.output_slots == [3]
    assert program.slot_count == 4
    assert program.input_keys == flat.inputs
    assert program.eval({"x": 3, "y": 4}) == [24]
    assert eval_program(program, {"x": 3.0, "y": 4.0}) == [24.0]
    assert compile is compile_program
    assert repr(program) == "CompiledProgram(instructions=2, inputs=2, outputs=1, slots=4)"
    assert program.pretty().splitlines() == [
        "%0 = input ValueKey(input 'x')",
        "%1 = input ValueKey(input 'y')",
        "%2 = Mul(%0, %1)",
        "%3 = Add(%2, %2)",
        "return %3",
    ]


def test_primal_and_linearized_operations_are_not_merged() -> None:
    builder = GraphBuilder()
    x = builder.add_input("x")
    y = builder.add_input("y")
    (primal,) = builder.add_operation(MUL, [x, y])
    (linear,) = builder.add_operation(MUL, [x, y], Linearized((False, True)))
    graph = builder.finish()
    assert graph.key(primal) is not graph.key(linear)
    program = compile_program(
        materialize_merge(resolve(graph), [graph.key(primal), graph.key(linear)])
    )
    assert [i.role for i in program.instructions] == [PRIMARY, Linearized((False, True))]
    assert "%3 = Mul[Linearized(active_mask=(False, True))](%0, %1)" in program.pretty()
    assert program.eval({"x": 3, "y": 4}) == [12, 12]


def test_input_order_is_the_encounter_order_and_binding_is_by_key() -> None:
    """computegraph's puzzle: y - x with x declared first compiles its inputs as [y, x]."""
    builder = GraphBuilder()
    x = builder.add_input("x")
    y = builder.add_input("y")
    (difference,) = builder.add_operation(SUB, [y, x])
    graph = builder.finish()
    program = compile_program(materialize_merge(resolve(graph), [graph.key(difference)]))
    assert program.input_keys == [ValueKey.input("y"), ValueKey.input("x")]
    assert program.eval({"x": 1, "y": 10}) == [9]
    assert program.eval({"y": 10, "x": 1}) == [9]
    assert program.eval({ValueKey.input("x"): 1, "y": 10}) == [9]


def test_outputs_may_be_inputs_repeated_or_multi_output_slots() -> None:
    builder = GraphBuilder()
    a = builder.add_input("a")
    b = builder.add_input("b")
    total, difference = builder.add_operation(SumDiff(), [a, b])
    (seven,) = builder.add_operation(Const(7), [])
    (scaled,) = builder.add_operation(Scale(3), [difference])
    graph = builder.finish()
    outputs = [graph.key(i) for i in (scaled, a, total, scaled, seven)]
    program = compile_program(materialize_merge(resolve(graph), outputs))
    assert len(program.instructions) == 3
    assert program.instructions[0].outputs == (2, 3)  # both slots of SumDiff, contiguous
    assert program.output_slots == [4, 0, 2, 4, 5]
    assert program.eval({"a": 5, "b": 2}) == [9, 5, 7, 9, 7]


def test_independently_built_graphs_merge() -> None:
    programs = []
    for _ in range(2):
        builder = GraphBuilder()
        x = builder.add_input("x")
        (square,) = builder.add_operation(MUL, [x, x])
        (cube,) = builder.add_operation(MUL, [square, x])
        programs.append(builder.finish().key(cube))
    assert programs[0] is programs[1]
    assert len(materialize_merge(None, programs).operations) == 2


def test_resolve_walks_each_parent_once() -> None:
    base = GraphBuilder()
    x = base.add_input("x")
    root = base.finish()
    left = GraphBuilder([root])
    (doubled,) = left.add_operation(Scale(2), [root.key(x)])
    left_graph = left.finish()
    right = GraphBuilder([root])
    (tripled,) = right.add_operation(Scale(3), [root.key(x)])
    right_graph = right.finish()
    top = GraphBuilder([left_graph, right_graph])
    (total,) = top.add_operation(ADD, [left_graph.key(doubled), right_graph.key(tripled)])
    top_graph = top.finish()
    view = resolve([top_graph, left_graph])
    assert view.graphs == (top_graph, left_graph, root, right_graph)
    assert len(view) == 4 and set(view) == {
        root.key(x),
        left_graph.key(doubled),
        right_graph.key(tripled),
        top_graph.key(total),
    }
    definition = view.definition(right_graph.key(tripled))
    assert definition.graph is right_graph and definition.local_id == tripled
    assert definition.operation is right_graph.key(tripled).operation
    assert not definition.is_input and definition.output_slot == 0
    assert view.definition(root.key(x)).is_input and view.definition(root.key(x)).input_key == "x"
    assert ValueKey.input("unrelated input") not in view and "x" not in view
    with pytest.raises(GraphError, match="cannot be resolved"):
        view.definition(ValueKey.input("unrelated input"))
    assert compile_program(materialize_merge(view, [top_graph.key(total)])).eval({"x": 1}) == [5]


def test_keys_outside_the_view_cannot_be_resolved() -> None:
    unrelated = GraphBuilder()
    z = unrelated.add_input("z")
    (scaled,) = unrelated.add_operation(Scale(5), [z])
    other = unrelated.finish()
    builder = GraphBuilder()  # no parents: the key of `other` is not visible from here
    x = builder.add_input("x")
    (total,) = builder.add_operation(ADD, [x, other.key(scaled)])
    graph = builder.finish()
    with pytest.raises(GraphError, match=r"ValueKey\(Scale#[0-9a-f]+:0\) \(needed by output 0\)"):
        materialize_merge(resolve(graph), [graph.key(total)])
    with pytest.raises(GraphError, match=r"ValueKey\(input 'z'\) .*cannot be resolved"):
        materialize_merge(resolve(graph), [other.key(z)])
    # Keys describe themselves: without a view they are trusted.
    flat = materialize_merge(None, [graph.key(total)])
    assert compile_program(flat).eval({"x": 1, "z": 2}) == [11]
    with pytest.raises(GraphError, match="output 0 is a int"):
        materialize_merge(None, [0])  # type: ignore[list-item]


def test_missing_unknown_and_double_bindings_are_refused() -> None:
    _, g2, ids = reference_graphs()
    program = compile_program(materialize_merge(resolve(g2), [g2.key(ids["r"])]))
    with pytest.raises(GraphError, match=r"no binding for input\(s\) ValueKey\(input 'y'\)"):
        program.eval({"x": 3})
    with pytest.raises(GraphError, match="binding 'w' is not an input of this program"):
        program.eval({"x": 3, "y": 4, "w": 5})
    with pytest.raises(GraphError, match="binding .* is not an input"):
        program.eval({"x": 3, "y": 4, ValueKey.input("w"): 5})
    with pytest.raises(GraphError, match="bound twice"):
        program.eval({"x": 3, "y": 4, ValueKey.input("x"): 3})


def test_operations_without_eval_compile_but_do_not_run() -> None:
    builder = GraphBuilder()
    x = builder.add_input("x")
    (opaque,) = builder.add_operation(Opaque(), [x])
    graph = builder.finish()
    program = compile_program(materialize_merge(None, [graph.key(opaque)]))
    assert len(program.instructions) == 1
    with pytest.raises(GraphError, match="Opaque has no eval"):
        program.eval({"x": 1})


def test_compile_checks_hand_made_flat_graphs() -> None:
    builder = GraphBuilder()
    x = builder.add_input("x")
    (doubled,) = builder.add_operation(Scale(2), [x])
    (total,) = builder.add_operation(ADD, [doubled, x])
    graph = builder.finish()
    key_x, key_doubled, key_total = (graph.key(i) for i in (x, doubled, total))
    operations = [key_total.operation, key_doubled.operation]  # not topological
    with pytest.raises(GraphError, match="not defined earlier"):
        compile_program(MaterializedGraph([key_x], operations, [key_total]))
    with pytest.raises(GraphError, match="not an input key"):
        compile_program(MaterializedGraph([key_doubled], [], [key_doubled]))
    with pytest.raises(GraphError, match="output 0 .* is not in the materialised graph"):
        compile_program(MaterializedGraph([key_x], [], [key_total]))
    assert isinstance(compile_program(MaterializedGraph([key_x], [], [key_x])), CompiledProgram)


def test_programs_can_be_rebuilt_with_dataclasses_replace() -> None:
    builder = GraphBuilder()
    x = builder.add_input("x")
    y = builder.add_input("y")
    (difference,) = builder.add_operation(SUB, [x, y])
    graph = builder.finish()
    program = compile_program(materialize_merge(None, [graph.key(difference)]))
    swapped = dataclasses.replace(program, input_keys=program.input_keys[::-1])
    assert swapped.eval({"x": 10, "y": 1}) == [-9]  # bindings follow the new key order
    assert program.eval({"x": 10, "y": 1}) == [9]
    with pytest.raises(GraphError, match="2 input slots for 1 input keys"):
        dataclasses.replace(program, input_keys=program.input_keys[:1])
