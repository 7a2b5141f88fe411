"""Misuse of the control-flow builders raises tf8.errors naming the leaf, shapes and dtypes."""

import numpy as np
import pytest

import tf8.lax as lax
from tf8.errors import ControlFlowTypeError, ParameterError, ShapeError, TreeStructureError


def test_a_carry_whose_type_changes():
    with pytest.raises(
        ControlFlowTypeError, match=r"(?s)identical types.*carry\[1\] has type.*float32"
    ):
        lax.scan(lambda c, x: ((c[0], c[1].astype(np.float32)), None), (1.0, np.ones(2)), length=2)
    with pytest.raises(ControlFlowTypeError, match=r"(?s)identical types.*shapes do not match"):
        lax.fori_loop(0, 2, lambda i, v: v.sum(), np.ones(3))
    with pytest.raises(TreeStructureError, match="identical types"):
        lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1,), (0, 1.0))


def test_branches_whose_outputs_differ():
    with pytest.raises(
        ControlFlowTypeError,
        match=r"(?s)cond branches.*true_fun is.*false_fun has type float64\(2,\)"
        r".*true_fun has type float64\(3,\)",
    ):
        lax.cond(True, lambda x: x, lambda x: x[:2], np.ones(3))
    with pytest.raises(TreeStructureError, match=r"(?s)switch branches.*branches\[1\] is"):
        lax.switch(0, [lambda x: x, lambda x: (x, x)], 1.0)
    with pytest.raises(ParameterError, match="at least one branch"):
        lax.switch(0, [], 1.0)


def test_bad_predicates_and_indices():
    with pytest.raises(ControlFlowTypeError, match=r"scalar.*\(2,\)"):
        lax.cond(np.array([True, False]), lambda: 1.0, lambda: 2.0)
    with pytest.raises(ControlFlowTypeError, match="bool, integer or float.*complex128"):
        lax.cond(1j, lambda: 1.0, lambda: 2.0)
    with pytest.raises(ControlFlowTypeError, match="an integer dtype"):
        lax.switch(np.float32(1), [lambda: 1.0], ())
    with pytest.raises(ControlFlowTypeError, match="an integer dtype.*bool"):  # as JAX
        lax.switch(np.array(True), [lambda: 1.0, lambda: 2.0])
    with pytest.raises(ControlFlowTypeError, match="boolean scalar"):
        lax.while_loop(lambda c: c, lambda c: c + 1, 0)


def test_cond_takes_a_float_predicate_and_types_results_as_branch_zero():
    """JAX's cond reads a float predicate as `pred != 0`, and its results take the weak type
    of the false branch (branch 0): `cond(p, lambda x: x * 2.0, lambda x: 1.5, x)` is weak."""
    assert float(lax.cond(1.5, lambda: 1.0, lambda: 2.0)) == 1.0
    assert float(lax.cond(0.0, lambda: 1.0, lambda: 2.0)) == 2.0
    x = np.array(0.5)
    for pred in (True, False):
        out = lax.cond(np.array(pred), lambda x: x * 2.0, lambda x: 1.5, x)
        assert out._weak and float(out) == (1.0 if pred else 1.5)
        out = lax.cond(np.array(pred), lambda x: 1.5, lambda x: x * 2.0, x)
        assert not out._weak


def test_xs_lengths():
    with pytest.raises(ShapeError, match=r"different leading axis sizes.*\[1\]: 4"):
        lax.scan(lambda c, x: (c, None), 0.0, (np.ones(3), np.ones(4)))
    with pytest.raises(ShapeError, match="length=5.*size 3"):
        lax.scan(lambda c, x: (c, None), 0.0, np.ones(3), length=5)
    with pytest.raises(ParameterError, match="no xs and no length"):
        lax.scan(lambda c, x: (c, None), 0.0)
    with pytest.raises(ControlFlowTypeError, match=r"\(carry, y\) pair"):
        lax.scan(lambda c, x: c, 0.0, np.ones(3))


def test_fori_loop_bounds_of_two_dtypes_are_refused():
    """JAX: "lower and upper arguments to fori_loop must have equal types" (a Python int
    bound is weak and takes the other's dtype)."""
    with pytest.raises(ControlFlowTypeError, match="int32 and int64"):
        lax.fori_loop(np.int32(0), np.int64(3), lambda i, v: v + 1.0, 0.0)
    assert float(lax.fori_loop(np.int32(0), 3, lambda i, v: v + 1.0, 0.0)) == 3.0
