"""Runtime passes: constant folding, algebraic simplification, CSE, transpose folding, DCE,
last use; each alone on a lowered program, and all together against an unoptimised run."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scaling_timer import assert_linear
from test_passes_programs import plain_runtime, run_all, steps

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, Runtime
from tf8.runtime.exec_program import lower
from tf8.runtime.passes import (
    DEFAULT_PASSES,
    algebraic_simplification,
    constant_folding,
    cse,
    dce,
    last_use,
    run_passes,
    transpose_folding,
)
from tf8.runtime.rewrite import Op, Rule, V, keep, rewrite_to_fixpoint


def compile_(*outputs):
    return GraphCompiler().compile(*outputs)


def lowered(*outputs):
    return lower(compile_(*outputs).program)


def names(program):
    return [inst.name for inst in program.instructions]


def unoptimised(compiled, *arrays):
    return Runtime(passes=(), regions=False).prepare(compiled).run(*arrays)


def assert_same_results(compiled, *arrays, passes=DEFAULT_PASSES):
    got = Runtime(passes=passes).prepare(compiled).run(*arrays)
    for a, b in zip(got, unoptimised(compiled, *arrays), strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


# --- constant folding ---------------------------------------------------------------------------


def test_constant_subexpressions_fold_to_one_constant():
    x = tf8.placeholder((4,), "float64")
    ramp = tnp.exp(tnp.arange(4.0) * 0.5) + 1.0
    program = lowered(x * ramp)
    folded = constant_folding.run(program, {})
    dce.run(program, {})
    assert names(program) == ["constant", "mul"]
    assert folded >= 3
    value = program.known[program.instructions[0].outputs[0]]
    np.testing.assert_allclose(value, np.exp(np.arange(4.0) * 0.5) + 1.0)
    assert_same_results(compile_(x * ramp), np.arange(4.0))


def test_folding_reaches_a_fixpoint_in_one_call():
    x = tf8.placeholder((3,), "float64")
    c = tnp.asarray(np.array([1.0, 2.0, 3.0]))
    for _ in range(10):
        c = tnp.sin(c) * 2.0 + 1.0
    program = lowered(x + c)
    constant_folding.run(program, {})
    assert constant_folding.run(program, {}) == 0, "a second call finds nothing left"
    dce.run(program, {})
    assert names(program) == ["constant", "add"]


def test_bound_inputs_are_never_folded():
    leaf = tf8.tensor(np.array([1.0, 2.0]))
    program = lowered(tnp.exp(leaf) * 2.0)
    constant_folding.run(program, {})
    assert "exp" in names(program)
    assert program.input_bound == (True,) and 0 not in program.known


def test_prepare_cache_is_not_poisoned_by_bound_data():
    """Same structure, other bound data: one cache entry, and each run sees its own data."""
    runtime = Runtime()
    first, second = np.array([0.5, 1.0, 2.0]), np.array([-3.0, 0.0, 7.0])
    results = []
    for data in (first, second):
        leaf = tf8.tensor(data)
        compiled = compile_(tnp.sum(tnp.exp(leaf) * 2.0 + leaf))
        results.append(runtime.prepare(compiled).run()[0])
    assert (runtime.cache_stats.misses, runtime.cache_stats.hits) == (1, 1)
    for data, got in zip((first, second), results):
        np.testing.assert_allclose(got, np.sum(np.exp(data) * 2.0 + data), rtol=1e-14)


def test_shape_of_folds_on_concrete_dimensions_only():
    x = tf8.placeholder(("n", 3), "float64")
    program = lowered(tnp.shape_of(x, 0) + tnp.shape_of(x, 1))
    constant_folding.run(program, {})
    kinds = [(inst.name, inst.inputs) for inst in program.instructions]
    assert ("shape_of", (0,)) in kinds, "the symbolic axis stays a run-time shape_of"
    assert sum(1 for name, _ in kinds if name == "shape_of") == 1
    compiled = compile_(tnp.shape_of(x, 0) + tnp.shape_of(x, 1))
    for n in (1, 5):
        assert Runtime().prepare(compiled).run(np.ones((n, 3)))[0] == n + 3


def test_large_results_and_symbolic_parameters_are_not_folded():
    x = tf8.placeholder((500, 500), "float64")
    big = lowered(x + 2.0)  # a 250 000-element broadcast of a constant
    constant_folding.run(big, {})
    assert "broadcast_in_dim" in names(big)
    n = tf8.placeholder(("n",), "float64")
    symbolic = lowered(n * 2.0)
    constant_folding.run(symbolic, {})
    assert "broadcast_in_dim" in names(symbolic)


def test_a_kernel_error_is_left_to_run_time():
    x = tf8.placeholder((2,), "int32")
    bad = tnp.asarray(np.array([1, 2], np.int32)) // 0 + x  # integer division by zero is 0
    program = lowered(bad)
    constant_folding.run(program, {})
    assert_same_results(compile_(bad), np.array([1, 2], np.int32))


# --- algebraic simplification -------------------------------------------------------------------

X = tf8.placeholder((3,), "float64", name="x")
C = tf8.placeholder((3,), "complex128", name="c")
M = tf8.placeholder((2, 3, 4), "float64", name="m")

SIMPLIFIED = [
    ("x * 1", lambda: X * 1.0),
    ("1 * x", lambda: 1.0 * X),
    ("x - 0", lambda: X - 0.0),
    ("x + -0.0", lambda: X + -0.0),
    ("x / 1", lambda: X / 1.0),
    ("x ** 1", lambda: X**1.0),
    ("neg neg", lambda: tnp.negative(tnp.negative(X))),
    ("conj conj", lambda: tnp.conj(tnp.conj(C))),
    ("max(x, x)", lambda: tnp.maximum(X, X)),
    ("transpose twice", lambda: tnp.transpose(tnp.transpose(M, (1, 2, 0)), (2, 0, 1))),
    ("reshape twice", lambda: M.reshape(6, 4).reshape(2, 3, 4)),
    ("convert to own dtype", lambda: X.astype("float64")),
    ("select(true)", lambda: tnp.where(tnp.asarray(True), X, X * 3.0)),
]


@pytest.mark.parametrize("label, build", SIMPLIFIED, ids=[s[0] for s in SIMPLIFIED])
def test_identity_rules_leave_the_operand_itself(label, build):
    out = build()
    program = lowered(out)
    for p in (constant_folding, algebraic_simplification, dce):
        p.run(program, {})
    assert program.instructions == []
    assert program.output_slots[0] < program.n_inputs


NOT_SIMPLIFIED = [
    ("x + 0.0: -0.0 + 0.0 is +0.0", lambda: X + 0.0, "add"),
    ("complex * 1: (inf+0j) * 1 has a NaN part", lambda: C * 1.0, "mul"),
    ("x * 0: NaN * 0 is NaN", lambda: X * 0.0, "mul"),
    ("x - -0.0: -0.0 - -0.0 is +0.0", lambda: X - -0.0, "sub"),
]


@pytest.mark.parametrize("label, build, op", NOT_SIMPLIFIED, ids=[s[0] for s in NOT_SIMPLIFIED])
def test_inexact_identities_are_not_applied(label, build, op):
    out = build()
    program = lowered(out)
    constant_folding.run(program, {})
    algebraic_simplification.run(program, {})
    assert op in names(program)


def test_simplified_programs_keep_signed_zeros_nans_and_infinities():
    special = np.array([-0.0, np.nan, np.inf])
    for out in (X + -0.0, X - 0.0, X * 1.0, tnp.negative(-X), X / 1.0):
        compiled = compile_(out)
        got = Runtime().prepare(compiled).run(special)[0]
        assert got.tobytes() == special.tobytes()


def test_transpose_chains_compose_and_identity_transposes_vanish():
    out = tnp.transpose(tnp.transpose(tnp.transpose(M, (1, 0, 2)), (0, 2, 1)), (2, 1, 0))
    program = lowered(out)
    algebraic_simplification.run(program, {})
    dce.run(program, {})
    assert names(program) == ["transpose"]
    a = np.arange(24.0).reshape(2, 3, 4)
    expected = a.transpose(1, 0, 2).transpose(0, 2, 1).transpose(2, 1, 0)
    np.testing.assert_array_equal(Runtime().prepare(compile_(out)).run(a)[0], expected)


@pytest.mark.parametrize("operand", [X, C], ids=["real", "complex"])
def test_abs_of_abs_is_one_abs(operand):
    out = tnp.abs(tnp.abs(operand))
    program = lowered(out)
    algebraic_simplification.run(program, {})
    dce.run(program, {})
    assert names(program) == ["abs"]
    data = np.array([-1.0, 2.0, -0.0]) * (1 + 1j if operand is C else 1)
    assert_same_results(compile_(out), data)


def test_the_matcher_refuses_a_replacement_of_another_aval():
    wrong = Rule("sum(x) → x (wrong)", Op("reduce_sum", V("x")), keep("x"))
    program = lowered(tnp.sum(M, axis=0))
    assert rewrite_to_fixpoint(program, [wrong]) == 0
    assert names(program) == ["reduce_sum"]


def test_rules_are_data():
    rules = algebraic_simplification.RULES
    assert all(isinstance(r, Rule) and r.name and r.pattern.op for r in rules)
    assert len({r.name for r in rules}) == len(rules)


# --- CSE, transpose folding, DCE, last use ------------------------------------------------------


def test_cse_merges_what_simplification_made_equal():
    program = lowered(tnp.exp(X * 1.0) + tnp.exp(X))
    algebraic_simplification.run(program, {})
    assert names(program).count("exp") == 2
    assert cse.run(program, {}) == 1
    dce.run(program, {})
    assert names(program) == ["exp", "add"]
    assert_same_results(compile_(tnp.exp(X * 1.0) + tnp.exp(X)), np.arange(3.0))


def test_cse_merges_equal_folded_constants():
    a = tnp.exp(tnp.arange(3.0))
    b = tnp.exp(tnp.arange(3.0) + 0.0)
    program = lowered(X * a + X * b)
    constant_folding.run(program, {})
    dce.run(program, {})
    cse.run(program, {})
    assert names(program).count("constant") == 1 and names(program).count("mul") == 1


@pytest.mark.parametrize("which", ["lhs", "rhs", "both"])
def test_transposes_fold_into_dot_general(which):
    a = tf8.placeholder((4, 3), "float64")
    b = tf8.placeholder((5, 4), "float64")
    lhs = a.T if which in ("lhs", "both") else tf8.placeholder((3, 4), "float64")
    rhs = b.T if which in ("rhs", "both") else tf8.placeholder((4, 5), "float64")
    out = lhs @ rhs
    program = lowered(out)
    assert transpose_folding.run(program, {}) == (2 if which == "both" else 1)
    dce.run(program, {})
    assert names(program) == ["dot_general"]
    compiled = compile_(out)
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=a.shape) for a in compiled.program.input_avals]
    got = Runtime().prepare(compiled).run(*arrays)[0]
    np.testing.assert_allclose(got, unoptimised(compiled, *arrays)[0], rtol=1e-13)


def test_transpose_folding_refuses_to_reorder_free_axes():
    t = tf8.placeholder((2, 3, 4), "float64")
    w = tf8.placeholder((4, 5), "float64")
    out = tnp.tensordot(tnp.transpose(t, (1, 0, 2)), w, axes=1)  # free axes of t swapped
    program = lowered(out)
    assert transpose_folding.run(program, {}) == 0
    compiled = compile_(out)
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5))
    got = Runtime().prepare(compiled).run(a, b)[0]
    np.testing.assert_allclose(got, np.tensordot(np.transpose(a, (1, 0, 2)), b, 1), rtol=1e-13)


def test_a_transposed_dot_is_the_dot_of_the_swapped_operands():
    a = tf8.placeholder((4, 3), "float64")
    b = tf8.placeholder((3, 5), "float64")
    out = tnp.transpose(a @ b)
    program = lowered(out)
    assert transpose_folding.run(program, {}) == 1
    dce.run(program, {})
    assert names(program) == ["dot_general"]
    assert program.instructions[0].inputs == (1, 0)
    rng = np.random.default_rng(3)
    p, q = rng.normal(size=(4, 3)), rng.normal(size=(3, 5))
    got = Runtime(optimise=True).prepare(compile_(out)).run(p, q)[0]
    np.testing.assert_allclose(got, (p @ q).T, rtol=1e-13)
    assert got.flags.c_contiguous, "computed in the transposed layout, not copied"


def test_a_dot_read_elsewhere_is_not_computed_twice():
    a = tf8.placeholder((4, 3), "float64")
    b = tf8.placeholder((3, 4), "float64")
    dot = a @ b
    program = lowered(tnp.transpose(dot) + dot)
    assert transpose_folding.run(program, {}) == 0


def test_batched_transposes_fold_through_the_batch_axes():
    t = tf8.placeholder((2, 3, 4), "float64")
    w = tf8.placeholder((4, 5), "float64")
    out = tnp.transpose(t, (1, 0, 2)) @ w  # batch axis 0 of the transpose is axis 1 of t
    program = lowered(out)
    assert transpose_folding.run(program, {}) == 1
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5))
    got = Runtime().prepare(compile_(out)).run(a, b)[0]
    np.testing.assert_allclose(got, np.transpose(a, (1, 0, 2)) @ b, rtol=1e-13)


def test_last_use_is_a_pass_result_and_a_later_change_clears_it():
    program = lowered(tnp.exp(X) * X + 1.0)
    run_passes(program, (last_use,))
    assert program.last_use is not None
    last = {s: i for i, slots in program.last_use.items() for s in slots}
    assert last[0] == max(i for i, inst in enumerate(program.instructions) if 0 in inst.inputs)
    run_passes(program, (constant_folding,))
    assert program.last_use is None, "constant folding changed the program"


def test_pass_statistics_are_reported_by_pretty():
    prepared = Runtime().prepare(compile_(X * 1.0 + tnp.exp(tnp.arange(3.0))))
    text = prepared.pretty()
    for p in DEFAULT_PASSES:
        assert p.NAME in text
    assert "ops before" in text and "ops after" in text
    stats = {s.name: s for s in prepared.pass_stats}
    assert stats["algebraic_simplification"].changed >= 1
    assert (
        stats["constant_folding"].instructions_after
        <= stats["constant_folding"].instructions_before
    )
    only = Runtime(passes=(dce,)).prepare(compile_(X * 1.0))
    assert [s.name for s in only.pass_stats] == ["dce"]


def test_simplification_is_linear_in_program_length():
    import time

    programs = {}

    def seconds(n):
        y = X
        for _ in range(n):
            y = tnp.negative(-(y * 1.0))
        program = programs[n] = lowered(y)
        start = time.perf_counter()
        constant_folding.run(program, {})
        algebraic_simplification.run(program, {})
        dce.run(program, {})
        return time.perf_counter() - start

    assert_linear(seconds, 200, 1600, slack=0.05)  # linear: 8x, with a 3x margin
    assert programs[1600].instructions == []


# --- all passes together against the unoptimised program --------------------------------------


@settings(max_examples=max(60, settings.default.max_examples), deadline=None)
@given(spec=steps, shape=st.sampled_from([(), (5,), (3, 3), (2, 3, 1)]), reduce=st.booleans())
def test_random_programs_agree_with_and_without_passes(spec, shape, reduce):
    (optimised, plain), _ = run_all(
        spec, shape, [Runtime(regions=False), plain_runtime()], reduce=reduce
    )
    for a, b in zip(optimised, plain, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        # every rule is exact and elementwise programs have no reassociation: same bits
        assert a.tobytes() == b.tobytes(), (a, b)
