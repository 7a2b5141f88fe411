"""OperationKey.get_with_outputs: a key and its output keys in one step, interned as `get`
and `output(slot)` make them; what tracing records with it (record_outputs)."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest
from graph_toy_ops import ADD, MUL, SumDiff

from tf8.errors import ArityError, GraphError
from tf8.graph import PRIMARY, Linearized, OperationKey, ValueKey


def test_a_new_key_comes_with_its_outputs():
    x, y = ValueKey.input("x"), ValueKey.input("y")
    key, outputs = OperationKey.get_with_outputs(ADD, (x, y))
    assert key is OperationKey.get(ADD, (x, y))
    assert outputs == (key.output(0),) and outputs[0].operation is key
    assert outputs[0].output_slot == 0 and not outputs[0].is_input


def test_an_existing_key_gives_its_live_outputs():
    x = ValueKey.input("x")
    first = OperationKey.get(MUL, (x, x))
    out = first.output(0)
    key, outputs = OperationKey.get_with_outputs(MUL, (x, x))
    assert key is first and outputs[0] is out


def test_multi_output_keys_and_roles():
    x, y = ValueKey.input("x"), ValueKey.input("y")
    role = Linearized((True, False))
    key, outputs = OperationKey.get_with_outputs(SumDiff(), (x, y), role)
    assert key.role == role and key is OperationKey.get(SumDiff(), (x, y), role)
    assert outputs == (key.output(0), key.output(1))
    assert key is not OperationKey.get(SumDiff(), (x, y), PRIMARY)


def test_outputs_free_with_their_holders():
    x = ValueKey.input("x")
    key, outputs = OperationKey.get_with_outputs(ADD, (x, x))
    ref = weakref.ref(key)
    del key, outputs
    gc.collect()
    assert ref() is None  # no cycle keeps an operation and its outputs alive


def test_errors_are_gets():
    x = ValueKey.input("x")
    with pytest.raises(ArityError):
        OperationKey.get_with_outputs(ADD, (x,))
    with pytest.raises(GraphError, match="not a ValueKey"):
        OperationKey.get_with_outputs(ADD, (x, "y"))


def test_threads_making_one_key_share_its_outputs():
    x, y = ValueKey.input("tx"), ValueKey.input("ty")
    barrier = threading.Barrier(4)
    made = []

    def make():
        barrier.wait()
        made.append(OperationKey.get_with_outputs(MUL, (x, y)))

    threads = [threading.Thread(target=make) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    keys = {id(k) for k, _ in made}
    outs = {id(o[0]) for _, o in made}
    assert len(keys) == 1 and len(outs) == 1
