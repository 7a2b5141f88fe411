"""Property: random DAGs over random parent/child graphs compile to programs that compute
what the keys say, with one instruction per distinct reachable operation key."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from graph_toy_ops import ADD, MUL, SUB, Const, Scale, SumDiff
from hypothesis import given, settings
from hypothesis import strategies as st

from tf8.graph import (
    PRIMARY,
    Graph,
    GraphBuilder,
    Linearized,
    OperationKey,
    ValueKey,
    compile_program,
    materialize_merge,
    resolve,
)

OPS = (ADD, MUL, SUB, Scale(2), Scale(3), SumDiff(), Const(5))
ROLES = (PRIMARY, PRIMARY, Linearized((False, True)))
INPUT_NAMES = ("prop_a", "prop_b", "prop_c", "prop_d")
MODULUS = 1_000_003  # the toy ops reduce modulo an int ctx: exact and bounded


@st.composite
def graph_families(draw: st.DrawFn) -> tuple[list[Graph], list[Graph], list[ValueKey]]:
    """Graphs whose operations read local values and keys of their ancestors; roots; outputs."""
    graphs: list[Graph] = []
    for index in range(draw(st.integers(1, 5))):
        parent_ids = (
            draw(st.lists(st.integers(0, index - 1), unique=True, max_size=3)) if index else []
        )
        parents = [graphs[i] for i in parent_ids]
        external = list(resolve(parents)) if parents else []
        builder = GraphBuilder(parents)
        local_count = 0
        for _ in range(draw(st.integers(0 if index else 1, 8))):
            candidates: list[int | ValueKey] = [*external, *range(local_count)]
            if not candidates or draw(st.integers(0, 4)) == 0:
                local_id = builder.add_input(draw(st.sampled_from(INPUT_NAMES)))
                local_count = max(local_count, local_id + 1)  # an input added twice is reused
                continue
            op = draw(st.sampled_from(OPS))
            role = draw(st.sampled_from(ROLES)) if op.input_count == 2 else PRIMARY
            inputs = [draw(st.sampled_from(candidates)) for _ in range(op.input_count)]
            local_count += len(builder.add_operation(op, inputs, role))
        graphs.append(builder.finish())
    root_ids = draw(st.lists(st.integers(0, len(graphs) - 1), unique=True, min_size=1, max_size=2))
    roots = [graphs[i] for i in root_ids]
    visible = list(resolve(roots))
    outputs = draw(st.lists(st.sampled_from(visible), min_size=1, max_size=4)) if visible else []
    if roots[0].values:
        outputs.append(roots[0].values[-1])  # usually the deepest value: a bigger program
    return graphs, roots, outputs


def direct_eval(outputs: Sequence[ValueKey], bindings: dict[Hashable, Any]) -> list[Any]:
    """Evaluate keys straight from their structure: memoised, with an explicit stack."""
    memo: dict[ValueKey, Any] = {}
    stack = list(outputs)
    while stack:
        key = stack[-1]
        if key in memo:
            stack.pop()
        elif key.is_input:
            memo[key] = bindings[key.input_key]
            stack.pop()
        else:
            operation = key.operation
            assert operation is not None
            missing = [k for k in operation.inputs if k not in memo]
            if missing:
                stack.extend(missing)
                continue
            results = operation.op.eval(MODULUS, [memo[k] for k in operation.inputs])
            memo.update(zip(operation.outputs, results))
            stack.pop()
    return [memo[key] for key in outputs]


def reachable(outputs: Sequence[ValueKey]) -> tuple[set[int], set[ValueKey]]:
    """Ids of the distinct operation keys, and the input keys, the outputs depend on."""
    operations: dict[int, OperationKey] = {}
    inputs: set[ValueKey] = set()
    stack = list(outputs)
    while stack:
        key = stack.pop()
        if key.is_input:
            inputs.add(key)
        elif id(key.operation) not in operations:
            operations[id(key.operation)] = key.operation  # type: ignore[assignment]
            stack.extend(key.operation.inputs)  # type: ignore[union-attr]
    return set(operations), inputs


@settings(max_examples=max(25, settings.default.max_examples), deadline=None)
@given(family=graph_families(), values=st.lists(st.integers(-50, 50), min_size=4, max_size=4))
def test_compiled_programs_compute_what_the_keys_say(
    family: tuple[list[Graph], list[Graph], list[ValueKey]], values: list[int]
) -> None:
    _, roots, outputs = family
    flat = materialize_merge(resolve(roots), outputs)
    trusted = materialize_merge(None, outputs)
    assert (flat.inputs, flat.operations) == (trusted.inputs, trusted.operations)
    program = compile_program(flat)

    operation_ids, input_keys = reachable(outputs)
    assert len(program.instructions) == len(operation_ids)
    assert {id(op) for op in flat.operations} == operation_ids
    assert set(program.input_keys) == input_keys and len(program.input_keys) == len(input_keys)

    # SSA: every slot written exactly once, and read only after it is written.
    written = list(program.input_slots)
    for instruction in program.instructions:
        assert all(slot in set(written) for slot in instruction.inputs)
        written.extend(instruction.outputs)
    assert sorted(written) == list(range(program.slot_count))
    assert all(slot in set(written) for slot in program.output_slots)

    bindings = dict(zip(INPUT_NAMES, values))
    bound = {key: bindings[key.input_key] for key in reversed(program.input_keys)}
    assert program.eval(bound, MODULUS) == direct_eval(outputs, bindings)


@settings(max_examples=max(20, settings.default.max_examples), deadline=None)
@given(family=graph_families())
def test_merging_is_idempotent_and_order_preserving(
    family: tuple[list[Graph], list[Graph], list[ValueKey]],
) -> None:
    _, roots, outputs = family
    flat = materialize_merge(resolve(roots), outputs)
    again = materialize_merge(resolve(roots), [*outputs, *outputs])
    assert again.operations == flat.operations and again.inputs == flat.inputs
    position = {id(op): i for i, op in enumerate(flat.operations)}
    for index, operation in enumerate(flat.operations):
        for key in operation.inputs:
            if not key.is_input:
                assert position[id(key.operation)] < index  # topological order
