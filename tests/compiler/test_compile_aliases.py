"""compile_with_input_specs' `drop_unused`; what a CompiledGraph keeps of the graph it was
compiled from (its roles, no keys)."""

from __future__ import annotations

import gc
import weakref

import numpy as np

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler
from tf8.graph import PRIMARY, Linearized


def test_drop_unused_leaves_out_inputs_not_read_and_keeps_the_order():
    a, b, c = (tf8.placeholder((2,), name=n) for n in "abc")
    compiled = GraphCompiler().compile_with_input_specs([c - a], [a, b, c], drop_unused=True)
    assert compiled.inputs == (a.key, c.key)
    run = tf8.Runtime().prepare(compiled).run
    np.testing.assert_array_equal(run(np.ones(2), np.full(2, 5.0))[0], np.full(2, 4.0))


def test_a_compiled_graph_keeps_roles_but_no_key_of_its_graph():
    x = tf8.placeholder((3,), name="x")
    y = tnp.sin(x) * x
    dropped = weakref.ref(y.key)
    compiled = GraphCompiler().compile_with_input_specs([y], [x])
    del y
    gc.collect()
    assert dropped() is None  # the traced graph is gone; the program runs on
    assert compiled.roles == (PRIMARY,) * len(compiled.program.instructions)
    np.testing.assert_allclose(tf8.Runtime().prepare(compiled).run(np.ones(3))[0], np.sin(1.0))


def test_the_roles_of_a_gradient_program_mark_its_linear_ops():
    compiled = tf8.make_program(tf8.grad(lambda v: (tnp.sin(v) * v).sum()))(np.ones(3))
    names = [op.name for op in compiled.ops]
    roles = dict(zip(names, compiled.roles))
    assert roles["sin"] is PRIMARY and roles["cos"] is PRIMARY
    assert any(isinstance(role, Linearized) for role in compiled.roles)
