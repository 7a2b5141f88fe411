"""The numpy engine and the passes decide by facts on a definition, never by a primitive's
name: a user's primitive that says its result is a view of its operand (`Fusion.view`) is
folded into its reader and written inline like transpose; the facts tf8's own rows give."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, Runtime
from tf8.lax.core import apply1
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import define, definition
from tf8.ops.fusion import Fusion, View
from tf8.ops.primitive import Primitive, register_primitive, unregister_primitive
from tf8.ops.primitives import PRIMITIVES
from tf8.runtime.passes import algebraic_simplification

TOY_SWAP = define(
    Row("toy_swap", Category.STRUCTURAL, DTypePolicy.SAME_ANY, 1, 1, doc="x.T of a matrix"),
    kernel=lambda op, x: x.T,
    shape=lambda op, avals, guards: avals[0].shape[::-1],
    fusion=Fusion(view=View(code=lambda op, x, bind: f"{x}.T", method=True)),
)


@pytest.fixture
def toy_swap():
    register_primitive(TOY_SWAP)
    yield lambda x: apply1("toy_swap", [x])
    unregister_primitive("toy_swap")


def source(*outputs):
    prepared = Runtime().prepare(GraphCompiler().compile(*outputs))
    return prepared, prepared.prepared.optimise().run_fn.source


def test_a_user_view_folds_into_its_reader_and_is_written_inline(toy_swap):
    x = tf8.placeholder((2, 3), "float64")
    data = np.arange(6.0).reshape(2, 3)
    prepared, text = source(tnp.exp(toy_swap(x)) + 1.0)
    assert "exp(s0.T)" in text, text
    np.testing.assert_array_equal(prepared.run(data)[0], np.exp(data.T) + 1.0)
    prepared, text = source(toy_swap(tnp.exp(x)))  # an instruction of its own: the method too
    assert ".T\n" in text and "toy_swap" not in text, text
    np.testing.assert_array_equal(prepared.run(data)[0], np.exp(data).T)


def test_the_structural_rows_are_views_and_the_literal_and_shape_facts_are_home():
    views = {name for name, found in PRIMITIVES.items() if found.fusion.view is not None}
    assert views == {"transpose", "reshape", "broadcast_in_dim", "slice"}
    assert [n for n, f in PRIMITIVES.items() if f.fusion.view and f.fusion.view.broadcast] == [
        "broadcast_in_dim"
    ]
    assert [n for n, f in PRIMITIVES.items() if f.literal is not None] == ["constant"]
    assert [n for n, f in PRIMITIVES.items() if f.static_value is not None] == ["shape_of"]
    assert set(algebraic_simplification.REDUCTIONS) == {
        "reduce_sum",
        "reduce_prod",
        "reduce_max",
        "reduce_min",
    }


def test_matrix_products_say_whether_they_are_batched():
    plain = Primitive("dot_general", 2, contracting=((1,), (0,)), batch=((), ()))
    batched = Primitive("dot_general", 2, contracting=((2,), (1,)), batch=((0,), (0,)))
    assert definition(plain).batched_dot(plain) is False
    assert definition(batched).batched_dot(batched) is True
    assert definition(Primitive("add", 2)).batched_dot is None
    policies = tf8.checkpoint_policies
    assert policies.dots_with_no_batch_dims_saveable(plain)
    assert policies.dots_saveable(batched) and not policies.dots_with_no_batch_dims_saveable(
        batched
    )
    assert not policies.dots_saveable(Primitive("add", 2))
