"""compile_with_input_specs' `aliases` (a leaf read as another input) and `drop_unused`."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
from tf8 import GraphCompiler
from tf8.errors import UnboundPlaceholder


def test_an_aliased_leaf_reads_its_target_input():
    a, b = tf8.placeholder((3,), name="a"), tf8.placeholder((3,), name="b")
    compiled = GraphCompiler().compile_with_input_specs([a * b + b], [a], {b.key: a.key})
    assert compiled.inputs == (a.key,) and len(compiled.program.input_avals) == 1
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tf8.Runtime().prepare(compiled).run(x)[0], x * x + x)


def test_an_alias_whose_target_is_not_an_input_is_unbound():
    a, b = tf8.placeholder((3,), name="a"), tf8.placeholder((3,), name="b")
    c = tf8.placeholder((3,), name="c")
    with pytest.raises(UnboundPlaceholder, match="'b'"):
        GraphCompiler().compile_with_input_specs([a * b], [a], {b.key: c.key})


def test_aliases_of_leaves_the_outputs_do_not_read_are_ignored():
    a, b = tf8.placeholder((3,), name="a"), tf8.placeholder((3,), name="b")
    compiled = GraphCompiler().compile_with_input_specs([a * 2.0], [a], {b.key: a.key})
    assert compiled.inputs == (a.key,)


def test_drop_unused_leaves_out_inputs_not_read_and_keeps_the_order():
    a, b, c = (tf8.placeholder((2,), name=n) for n in "abc")
    compiled = GraphCompiler().compile_with_input_specs([c - a], [a, b, c], drop_unused=True)
    assert compiled.inputs == (a.key, c.key)
    run = tf8.Runtime().prepare(compiled).run
    np.testing.assert_array_equal(run(np.ones(2), np.full(2, 5.0))[0], np.full(2, 4.0))


def test_drop_unused_counts_an_input_read_through_an_alias():
    a, b, fresh = (tf8.placeholder((2,), name=n) for n in ("a", "b", "fresh"))
    compiled = GraphCompiler().compile_with_input_specs(
        [fresh * 3.0], [a, b], {fresh.key: b.key}, drop_unused=True
    )
    assert compiled.inputs == (b.key,)
    np.testing.assert_array_equal(tf8.Runtime().prepare(compiled).run(np.ones(2))[0], [3.0, 3.0])
