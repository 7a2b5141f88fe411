"""GraphCompiler → CompiledGraph: CSE by structure, input order, bindings, fingerprints, errors."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, SemanticFingerprint
from tf8.errors import CompileError, DuplicateBinding, UnboundPlaceholder, UnusedInput


def compile_(*outputs):
    return GraphCompiler().compile(*outputs)


def square_twice(x):
    return (x * x) + (x * x)


# --- CSE and the compiled program -------------------------------------------------------------


def test_repeated_subexpression_compiles_to_two_ops():
    x = tf8.tensor(np.arange(3.0))
    compiled = compile_(square_twice(x))
    assert [op.name for op in compiled.ops] == ["mul", "add"]
    add = compiled.program.instructions[1]
    assert add.inputs[0] == add.inputs[1], "both operands of add are the one mul"
    assert len(compiled.inputs) == 1 and compiled.placeholders == ()
    assert compiled.outputs[0].shape == (3,) and compiled.outputs[0].dtype == np.float64


def test_independently_built_equal_expressions_merge():
    x, y = tf8.tensor(np.ones(2)), tf8.tensor(np.ones(2))
    a = tnp.sin(x) * y
    b = tnp.sin(x) * y  # built again, separately
    compiled = compile_(a + b, a)
    assert [op.name for op in compiled.ops] == ["sin", "mul", "add"]
    assert len(compiled.program.output_slots) == 2


def test_pretty_lists_inputs_ops_and_outputs():
    x = tf8.tensor(np.ones((2, 3)), name="x")
    p = tf8.placeholder(("n",), "float64", name="p")
    compiled = compile_(x.sum() + p)
    text = compiled.pretty()
    assert text.startswith("CompiledGraph: 2 inputs (1 placeholders)")
    assert re.search(r"%0: float64\(2, 3\)\s+# input x \(bound\)", text)
    assert re.search(r"%1: float64\(n,\)\s+# input p$", text, re.MULTILINE)
    assert "reduce_sum[axes=(0, 1)]" in text and "broadcast_in_dim[shape=(n,)" in text
    assert text.rstrip().splitlines()[-1].startswith("  return %")
    assert compiled.fingerprint.hex()[:16] in text and compiled.fingerprint.hex()[:16] in repr(
        compiled
    )


def test_compiled_program_is_immutable():
    compiled = compile_(square_twice(tf8.tensor(np.ones(2))))
    with pytest.raises(dataclasses.FrozenInstanceError):
        compiled.program.instructions = ()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        compiled.program.instructions[0].inputs = (0,)  # type: ignore[misc]


def test_outputs_may_be_given_as_a_list():
    x = tf8.tensor(np.ones(2))
    assert compile_([x + 1.0, x * 2.0]).fingerprint == compile_(x + 1.0, x * 2.0).fingerprint


# --- inputs and bindings ----------------------------------------------------------------------


def test_inputs_carry_their_order_and_placeholders_are_the_unbound_ones():
    a = tf8.placeholder((2,), name="a")
    w = tf8.tensor(np.ones(2), name="w")
    b = tf8.placeholder((2,), name="b")
    out = (b - a) * w
    compiled = GraphCompiler().compile_with_input_specs(out, [a, b])
    labels = [key.input_key.label() for key in compiled.inputs]
    assert labels[:2] == ["a", "b"] and set(labels) == {"a", "b", "w"}
    assert [k.input_key.label() for k in compiled.placeholders] == ["a", "b"]
    assert list(compiled.bindings) == [w.key]
    swapped = GraphCompiler().compile_with_input_specs(out, [b, a])
    assert [k.input_key.label() for k in swapped.placeholders] == ["b", "a"]


def test_the_same_array_under_one_name_twice_is_not_a_conflict():
    data = np.arange(3.0)
    first, second = tf8.tensor(data, name="w"), tf8.tensor(data.copy(), name="w")
    compiled = compile_(first + second)
    assert len(compiled.inputs) == 1


def test_equal_arrays_holding_nan_under_one_name_are_one_binding():
    data = np.array([np.nan, 1.0])
    first, second = tf8.tensor(data, name="w"), tf8.tensor(data.copy(), name="w")
    compiled = compile_(first * 2.0, second + 1.0)  # merged by the compiler, not by tracing
    assert len(compiled.inputs) == 1


def test_two_arrays_under_one_name_are_a_duplicate_binding():
    first, second = tf8.tensor(np.zeros(3), name="w"), tf8.tensor(np.ones(3), name="w")
    with pytest.raises(DuplicateBinding, match=r"'w' is bound to 2 different arrays.*\(3,\)"):
        compile_(first + second)


def test_two_leaves_of_different_shapes_under_one_name_are_a_duplicate_binding():
    first, second = tf8.tensor(np.zeros(3), name="w"), tf8.tensor(np.ones((1, 3)), name="w")
    with pytest.raises(DuplicateBinding, match=r"two different leaves are named 'w'.*\(3,\)"):
        compile_(first + second)


def test_placeholder_missing_from_the_input_specs_is_unbound():
    a, b = tf8.placeholder((2,), name="a"), tf8.placeholder((2,), "float64", name="b")
    with pytest.raises(UnboundPlaceholder, match=r"placeholder 'b' \(float64\(2,\)\)"):
        GraphCompiler().compile_with_input_specs(a + b, [a])


def test_input_spec_the_outputs_do_not_use_is_an_error():
    a, unused = tf8.placeholder((2,), name="a"), tf8.placeholder((4,), "int32", name="unused")
    with pytest.raises(UnusedInput, match=r"'unused' \(int32\(4,\)\) is not used"):
        GraphCompiler().compile_with_input_specs(a * 2.0, [a, unused])


def test_input_spec_must_be_a_leaf():
    a = tf8.placeholder((2,), name="a")
    with pytest.raises(CompileError, match=r"input spec float64\(2,\) is not a leaf"):
        GraphCompiler().compile_with_input_specs(a * 2.0, [a + 1.0])


@pytest.mark.parametrize("bad", [(), (np.ones(2),), ([],)])
def test_compile_needs_traced_outputs(bad):
    with pytest.raises(CompileError, match=r"at least one output|takes TracedTensors"):
        compile_(*bad)


# --- fingerprints -----------------------------------------------------------------------------


def test_fingerprint_is_sixteen_hashable_comparable_bytes():
    fp = compile_(square_twice(tf8.tensor(np.ones(3)))).fingerprint
    assert isinstance(fp, SemanticFingerprint)
    assert len(bytes(fp)) == 16 and fp.hex() == bytes(fp).hex()
    other = compile_(square_twice(tf8.tensor(np.ones(4)))).fingerprint
    assert fp != other and (fp < other) != (other < fp)
    assert {fp: 1, other: 2}[SemanticFingerprint(bytes(fp))] == 1
    assert fp == SemanticFingerprint(bytes(fp)) and hash(fp) == hash(SemanticFingerprint(bytes(fp)))
    assert fp != bytes(fp)
    assert sorted([other, fp]) == sorted([fp, other])
    with pytest.raises(TypeError):
        fp < bytes(fp)  # noqa: B015


def test_fingerprint_ignores_data_and_leaf_names_but_not_shapes():
    same = compile_(square_twice(tf8.tensor(np.arange(3.0)))).fingerprint
    assert compile_(square_twice(tf8.tensor(np.full(3, 7.0), name="q"))).fingerprint == same
    assert compile_(square_twice(tf8.tensor(np.ones(4)))).fingerprint != same
    assert compile_(square_twice(tf8.tensor(np.ones((3, 1))))).fingerprint != same
    assert compile_(square_twice(tf8.tensor(np.ones(3, np.float32)))).fingerprint != same


@pytest.mark.parametrize(
    "variant",
    [
        lambda x: x * 3.0,  # another constant
        lambda x: x * np.float32(2.0),  # another constant dtype (x is float64: same value)
        lambda x: x + 2.0,  # another op
        lambda x: 2.0 * x,  # operands swapped
        lambda x: tnp.sum(x * 2.0, axis=0),  # another graph
    ],
)
def test_fingerprint_tells_apart_what_changes_the_program(variant):
    x = tf8.tensor(np.ones((2, 2)))
    base = compile_(x * 2.0).fingerprint
    assert compile_(variant(tf8.tensor(np.ones((2, 2))))).fingerprint != base


def test_fingerprint_tells_bound_from_placeholder_and_output_order():
    x, p = tf8.tensor(np.ones(2)), tf8.placeholder((2,))
    assert compile_(x + 1.0).fingerprint != compile_(p + 1.0).fingerprint
    a, b = x + 1.0, x * 2.0
    assert compile_(a, b).fingerprint != compile_(b, a).fingerprint
    assert compile_(a, b).fingerprint != compile_(a).fingerprint


def test_symbolic_program_fingerprint_is_stable_across_tracings():
    def build():
        return compile_(tnp.sum(tnp.exp(tf8.placeholder(("n",), "float64")) * 2.0))

    assert build().fingerprint == build().fingerprint


# Random programs: a sequence of (op, operand indices) over a growing list of values.
_UNARY = [tnp.sin, tnp.exp, tnp.negative, lambda v: v * 2.0, lambda v: tnp.sum(v, axis=-1)]
_BINARY = [tnp.add, tnp.multiply, tnp.subtract, tnp.maximum]
PROGRAMS = st.lists(
    st.tuples(st.integers(0, 8), st.integers(0, 10**6), st.integers(0, 10**6)),
    min_size=1,
    max_size=12,
)


def build_program(program, leaves):
    values = list(leaves)
    for code, i, j in program:
        a, b = values[i % len(values)], values[j % len(values)]
        if code < len(_UNARY):
            values.append(_UNARY[code](a) if a.ndim else tnp.exp(a))
        else:
            if a.shape != b.shape:
                b = tnp.sum(b) if b.ndim else b
            values.append(_BINARY[code - len(_UNARY)](a, b))
    return values[-1]


@given(
    program=PROGRAMS,
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
    seed=st.integers(0, 2**16),
)
def test_fingerprint_depends_on_structure_not_data(program, shape, seed):
    rng = np.random.default_rng(seed)

    def leaves(s):
        return [tf8.tensor(rng.normal(size=s)), tf8.tensor(rng.normal(size=s))]

    first = compile_(build_program(program, leaves(shape)))
    again = compile_(build_program(program, leaves(shape)))
    assert first.fingerprint == again.fingerprint
    assert [op.key() for op in first.ops] == [op.key() for op in again.ops]
    wider = compile_(build_program(program, leaves(shape[:-1] + (shape[-1] + 1,))))
    assert wider.fingerprint != first.fingerprint


def test_a_symbolic_size_no_input_defines_is_a_compile_error():
    x = tf8.placeholder(("n",))
    with pytest.raises(tf8.errors.CompileError, match=r"iota.*symbolic size n.*no input"):
        tf8.GraphCompiler().compile(tnp.arange(x.shape[0]))
    # With x among the inputs, n has a value at run time.
    compiled = tf8.GraphCompiler().compile(tnp.sum(x) + tnp.arange(x.shape[0]))
    (out,) = tf8.Runtime().prepare(compiled).run(np.ones(3))
    np.testing.assert_allclose(out, [3.0, 4.0, 5.0])
