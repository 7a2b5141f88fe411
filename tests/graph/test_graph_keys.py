"""Keys: interning, identity, fingerprints, roles, errors, and freeing by refcount alone."""

from __future__ import annotations

import copy
import gc
import itertools
import os
import pickle
import subprocess
import sys
import textwrap
import weakref
from pathlib import Path

import pytest
from graph_toy_ops import ADD, MUL, SUB, Opaque, Scale, SumDiff

from tf8.errors import ArityError, GraphError
from tf8.graph import (
    PRIMARY,
    GraphBuilder,
    Linearized,
    OperationKey,
    OperationRole,
    ValueKey,
    compile_program,
    fingerprint,
    materialize_merge,
    resolve,
)
from tf8.graph import keys as keys_module

REPO_ROOT = Path(__file__).resolve().parents[2]
_fresh = itertools.count()


def fresh_inputs(*names: str) -> list[ValueKey]:
    """Input keys never used by another test (the intern tables are process-wide)."""
    tag = next(_fresh)
    return [ValueKey.input(("test_graph_keys", tag, name)) for name in names]


def test_input_keys_are_interned_by_value_and_type() -> None:
    assert ValueKey.input("x") is ValueKey.input("x")
    assert ValueKey.input(("a", 1)) is ValueKey.input(("a", 1))
    assert ValueKey.input("x") is not ValueKey.input("y")
    # 1 == True == 1.0 in Python, but they name different inputs.
    keys = [ValueKey.input(k) for k in (1, True, 1.0)]
    assert len({id(k) for k in keys}) == 3


def test_operation_keys_are_interned_structurally() -> None:
    x, y = fresh_inputs("x", "y")
    mul = OperationKey.get(MUL, (x, y))
    assert OperationKey.get(MUL, [x, y]) is mul
    assert OperationKey.get(type(MUL)(), iter((x, y))) is mul  # an equal, distinct op object
    assert OperationKey.get(MUL, (y, x)) is not mul
    assert OperationKey.get(ADD, (x, y)) is not mul
    assert OperationKey.get(Scale(2.0), (x,)) is OperationKey.get(Scale(2.0), (x,))
    assert OperationKey.get(Scale(2.0), (x,)) is not OperationKey.get(Scale(3.0), (x,))


def test_role_is_part_of_identity() -> None:
    x, y = fresh_inputs("x", "y")
    primal = OperationKey.get(MUL, (x, y))
    linear = OperationKey.get(MUL, (x, y), Linearized((False, True)))
    assert primal is not linear
    assert primal.role is PRIMARY
    assert linear.role == Linearized((False, True))
    assert OperationKey.get(MUL, (x, y), Linearized([False, True])) is linear
    assert OperationKey.get(MUL, (x, y), Linearized((True, False))) is not linear


def test_key_attributes() -> None:
    x, y = fresh_inputs("x", "y")
    assert x.is_input and x.operation is None and x.output_slot == 0
    assert x.input_key[0] == "test_graph_keys" and x.input_key[2] == "x"
    operation = OperationKey.get(SumDiff(), (x, y))
    assert operation.op == SumDiff() and operation.inputs == (x, y) and operation.role is PRIMARY
    assert operation.output_count == 2
    total, difference = operation.outputs
    assert operation.output(0) is total and operation.output(1) is difference
    assert not total.is_input and total.input_key is None
    assert total.operation is operation and difference.output_slot == 1
    for key in (x, y, operation, total, difference):
        assert 0 <= key.fingerprint < 2**128
    fingerprints = {k.fingerprint for k in (x, y, operation, total, difference)}
    assert len(fingerprints) == 5
    assert hash(total) == hash(total) and total == total and total != difference


def test_keys_are_read_only_and_not_constructible() -> None:
    x, y = fresh_inputs("x", "y")
    key = OperationKey.get(ADD, (x, y)).output(0)
    with pytest.raises(AttributeError):
        key.operation = None  # type: ignore[misc]
    with pytest.raises(TypeError, match="interned"):
        ValueKey()
    with pytest.raises(TypeError, match="interned"):
        OperationKey()
    assert copy.copy(key) is key and copy.deepcopy([key])[0] is key
    with pytest.raises(TypeError, match="pickled"):
        pickle.dumps(key)


def test_keys_cannot_be_subclassed() -> None:
    with pytest.raises(TypeError, match="cannot be subclassed"):
        type("MyKey", (ValueKey,), {})
    with pytest.raises(TypeError, match="cannot be subclassed"):
        type("MyOperationKey", (OperationKey,), {})


def test_output_slot_errors() -> None:
    x, y = fresh_inputs("x", "y")
    operation = OperationKey.get(ADD, (x, y))
    with pytest.raises(GraphError, match="Add has 1 outputs; there is no output slot 1"):
        operation.output(1)
    with pytest.raises(GraphError):
        operation.output(-1)


def test_wrong_input_count_raises_arity_error() -> None:
    (x,) = fresh_inputs("x")
    with pytest.raises(ArityError, match="Mul takes 2 inputs, got 1"):
        OperationKey.get(MUL, (x,))
    with pytest.raises(ArityError, match="Scale takes 1 inputs, got 3"):
        OperationKey.get(Scale(2.0), (x, x, x))
    assert issubclass(ArityError, GraphError) and issubclass(ArityError, TypeError)


def test_invalid_inputs_ops_and_roles_raise_graph_error() -> None:
    (x,) = fresh_inputs("x")
    with pytest.raises(GraphError, match="input 1 of Mul is a str"):
        OperationKey.get(MUL, (x, "y"))
    with pytest.raises(GraphError, match="input 0 of Mul is a list"):
        OperationKey.get(MUL, ([1], x))
    with pytest.raises(GraphError, match="not an operation"):
        OperationKey.get(object(), (x,))
    with pytest.raises(GraphError, match="must be an OperationRole"):
        OperationKey.get(ADD, (x, x), role="primary")  # type: ignore[arg-type]
    with pytest.raises(GraphError, match="not hashable"):
        ValueKey.input(["unhashable"])


def test_reprs_are_short_and_not_recursive() -> None:
    (x,) = fresh_inputs("x")
    key = x
    for _ in range(10_000):
        key = OperationKey.get(Scale(1.0), (key,)).output(0)
    assert len(repr(key)) < 40 and repr(key).startswith("ValueKey(Scale#")
    assert repr(key).endswith(":0)")
    assert repr(key.operation).startswith("OperationKey(Scale#")
    assert repr(ValueKey.input("x")) == "ValueKey(input 'x')"
    linear = OperationKey.get(MUL, (x, x), Linearized((False, True)))
    assert "Linearized" in repr(linear)


def test_roles() -> None:
    assert isinstance(PRIMARY, OperationRole) and repr(PRIMARY) == "PRIMARY"
    assert copy.deepcopy(PRIMARY) is PRIMARY and pickle.loads(pickle.dumps(PRIMARY)) is PRIMARY
    assert type(PRIMARY)() is PRIMARY
    mask = Linearized([True, False])
    assert isinstance(mask, OperationRole) and mask.active_mask == (True, False)
    assert hash(mask) == hash(Linearized((True, False)))
    with pytest.raises(GraphError, match="sequence of bools"):
        Linearized((1, 0))  # type: ignore[arg-type]
    with pytest.raises(GraphError, match="sequence of bools"):
        Linearized("TF")  # type: ignore[arg-type]


def test_fingerprint_collision_never_merges_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """With every fingerprint equal, interning still compares structure, so nothing merges."""
    monkeypatch.setattr(fingerprint, "digest128", lambda data: 0)
    x, y = fresh_inputs("x", "y")
    assert x.fingerprint == y.fingerprint == 0 and x is not y
    products = [
        OperationKey.get(MUL, (x, y)),
        OperationKey.get(MUL, (y, x)),
        OperationKey.get(ADD, (x, y)),
        OperationKey.get(SUB, (x, y)),
        OperationKey.get(MUL, (x, y), Linearized((False, True))),
    ]
    assert all(p.fingerprint == 0 for p in products)
    assert len({id(p) for p in products}) == len(products)
    assert OperationKey.get(MUL, (x, y)) is products[0]

    builder = GraphBuilder()
    ix, iy = builder.add_input(x.input_key), builder.add_input(y.input_key)
    (a,) = builder.add_operation(SUB, [ix, iy])
    (b,) = builder.add_operation(SUB, [iy, ix])
    (c,) = builder.add_operation(MUL, [a, b])
    (d,) = builder.add_operation(ADD, [c, a])
    graph = builder.finish()
    program = compile_program(materialize_merge(resolve(graph), [graph.key(d)]))
    assert len(program.instructions) == 4
    # (x - y) * (y - x) + (x - y) with x = 5, y = 2: 3 * -3 + 3.
    assert program.eval({x: 5, y: 2}) == [-6]


def test_dropped_keys_are_freed_without_the_cyclic_collector() -> None:
    x, y = fresh_inputs("x", "y")
    operation = OperationKey.get(MUL, (x, y))
    output = operation.output(0)
    refs = [weakref.ref(k) for k in (x, y, operation, output)]
    input_key = x.input_key
    interned = len(keys_module._operation_table)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        del x, y, operation, output
        assert [ref() for ref in refs] == [None] * 4
    finally:
        if was_enabled:
            gc.enable()
    assert len(keys_module._operation_table) == interned - 1
    assert keys_module.existing_input_key(input_key) is None


def test_output_keys_are_recreated_after_being_dropped() -> None:
    x, y = fresh_inputs("x", "y")
    operation = OperationKey.get(SumDiff(), (x, y))
    first = operation.output(1)
    ref = weakref.ref(first)
    del first
    assert ref() is None
    again = operation.output(1)
    assert again.operation is operation and operation.output(1) is again


def test_op_without_eval_still_gets_keys() -> None:
    (x,) = fresh_inputs("x")
    assert OperationKey.get(Opaque(), (x,)).output(0).operation.op == Opaque()


_DEEP_DELETE = """
import sys, weakref
from tf8.graph import OperationKey, ValueKey, GraphBuilder
from graph_toy_ops import Scale
depth = int(sys.argv[1])
key = ValueKey.input("deep")
for _ in range(depth):
    key = OperationKey.get(Scale(1.0), (key,)).output(0)
ref = weakref.ref(key.operation)
del key
assert ref() is None
graph = GraphBuilder().finish()
for _ in range(depth // 10):
    graph = GraphBuilder([graph]).finish()
ref = weakref.ref(graph)
del graph
assert ref() is None
print("ok")
"""


def run_deep_delete(depth: int) -> None:
    """Drop a `depth`-deep key chain (and a depth/10-deep graph chain) in a fresh interpreter."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_DEEP_DELETE), str(depth)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": f"{REPO_ROOT}{os.pathsep}{Path(__file__).parent}"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"


def test_deleting_a_100_000_deep_chain_does_not_crash() -> None:
    run_deep_delete(100_000)


@pytest.mark.skipif("TF8_SLOW_TESTS" not in os.environ, reason="slow: set TF8_SLOW_TESTS=1")
def test_deleting_a_1_000_000_deep_chain_does_not_crash() -> None:
    run_deep_delete(1_000_000)


def test_fingerprints_of_a_deep_chain_are_made_on_demand_without_recursion() -> None:
    """An operation's fingerprint is made when first read, for every operation below it not
    fingerprinted yet, iteratively: a 20 000-deep chain needs no recursion."""
    (x,) = fresh_inputs("x")
    key = x
    chain = []
    for _ in range(20_000):
        operation = OperationKey.get(MUL, (key, x))
        chain.append(operation)
        key = operation.output(0)
    assert chain[-1]._fingerprint is None and chain[0]._fingerprint is None
    top = key.fingerprint
    assert 0 <= top < 2**128 and chain[0]._fingerprint is not None
    # each level's fingerprint differs from the ones below it; an output's is its operation's
    assert len({op.fingerprint for op in chain[:100]}) == 100
    assert top == chain[-1].fingerprint ^ fingerprint._slot_mix(0)


def test_keys_hash_by_identity() -> None:
    x, y = fresh_inputs("x", "y")
    operation = OperationKey.get(MUL, (x, y))
    assert hash(operation) == object.__hash__(operation)
    assert hash(operation.output(0)) == object.__hash__(operation.output(0))
    assert {operation.output(0): 1}[OperationKey.get(MUL, (x, y)).output(0)] == 1
