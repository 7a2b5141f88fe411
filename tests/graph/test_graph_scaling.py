"""Scale: 100 000-deep chains go through every stage iteratively, in linear time, and dropped
graphs free their keys."""

from __future__ import annotations

import gc
import itertools
import time
import weakref
from collections.abc import Hashable

import pytest
from graph_toy_ops import ADD
from scaling_timer import assert_linear

from tf8.graph import (
    Graph,
    GraphBuilder,
    ValueKey,
    compile_program,
    materialize_merge,
    resolve,
)

DEPTH = 100_000
GRAPH_DEPTH = 25_000
_fresh = itertools.count()


def chain(depth: int, name: Hashable) -> tuple[Graph, ValueKey]:
    """One graph holding x + 1 + 1 + ... (`depth` additions); returns it and its result key."""
    builder = GraphBuilder()
    value = builder.add_input((name, "x"))
    one = builder.add_input((name, "one"))
    add_operation = builder.add_operation
    for _ in range(depth):
        (value,) = add_operation(ADD, (value, one))
    graph = builder.finish()
    return graph, graph.key(value)


def run(graph: Graph, output: ValueKey, name: Hashable) -> list[int]:
    """resolve -> merge -> compile -> eval with x = 0, one = 1."""
    program = compile_program(materialize_merge(resolve(graph), [output]))
    assert len(program.instructions) == program.slot_count - 2
    return program.eval({(name, "x"): 0, (name, "one"): 1})


def test_a_deep_chain_of_graphs_resolves() -> None:
    """Each graph holds one operation and has the previous graph as its parent, as tracing
    builds them (25 000 deep: far past the recursion limit, and each graph costs a few
    objects more than an operation)."""
    builder = GraphBuilder()
    value = builder.key(builder.add_input(("graphs", "x")))
    one = builder.key(builder.add_input(("graphs", "one")))
    graph = builder.finish()
    for _ in range(GRAPH_DEPTH):
        builder = GraphBuilder((graph,))
        value = builder.key(builder.add_operation(ADD, (value, one))[0])
        graph = builder.finish()
    view = resolve(graph)
    assert len(view.graphs) == GRAPH_DEPTH + 1 and value in view
    program = compile_program(materialize_merge(view, [value]))
    assert program.eval({("graphs", "x"): 0, ("graphs", "one"): 1}) == [GRAPH_DEPTH]


def test_a_100_000_deep_chain_goes_through_every_stage_and_merges_with_a_rebuilt_one() -> None:
    first_graph, first = chain(DEPTH, "deep")
    assert run(first_graph, first, "deep") == [DEPTH]
    assert len(repr(first)) < 40
    second_graph, second = chain(DEPTH, "deep")  # built independently: the same keys
    assert first is second and first_graph is not second_graph
    both = GraphBuilder([first_graph, second_graph]).finish()
    flat = materialize_merge(resolve(both), [first, second])
    assert len(flat.operations) == DEPTH


def test_time_is_linear_in_the_depth() -> None:
    def cpu_seconds(depth: int) -> float:
        """CPU time of the whole pipeline on a fresh chain (robust to a loaded machine)."""
        name = ("linear", next(_fresh))
        start = time.process_time()
        graph, output = chain(depth, name)
        run(graph, output, name)
        return time.process_time() - start

    assert_linear(cpu_seconds, DEPTH // 10, DEPTH, repeats=1)  # linear: 10x, a 3x margin


@pytest.mark.parametrize("collect", [False, True], ids=["refcount only", "after gc.collect"])
def test_dropping_a_graph_frees_its_keys(collect: bool) -> None:
    name = ("freed", next(_fresh))
    graph, output = chain(1_000, name)
    program = compile_program(materialize_merge(resolve(graph), [output]))
    assert program.eval({(name, "x"): 0, (name, "one"): 1}) == [1_000]
    refs = [weakref.ref(obj) for obj in (graph, output, output.operation, graph.key(0))]
    middle = weakref.ref(graph.key(500))
    was_enabled = gc.isenabled()
    if collect:
        gc.collect()
    else:
        gc.disable()  # prove the cyclic collector is not needed
    try:
        del graph, output, program
        assert [ref() for ref in refs] == [None] * len(refs)
        assert middle() is None
    finally:
        if was_enabled:
            gc.enable()
