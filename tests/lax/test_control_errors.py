"""Misuse of the control-flow builders raises tf8.errors naming the leaf, shapes and dtypes."""

import numpy as np
import pytest

import tf8.lax as lax
from tf8.errors import ControlFlowTypeError, ParameterError, ShapeError, TreeStructureError


def test_a_carry_whose_type_changes():
    with pytest.raises(ControlFlowTypeError, match=r"identical types.*\[1\].*float32"):
        lax.scan(lambda c, x: ((c[0], c[1].astype(np.float32)), None), (1.0, np.ones(2)), length=2)
    with pytest.raises(ControlFlowTypeError, match=r"identical types.*shape"):
        lax.fori_loop(0, 2, lambda i, v: v.sum(), np.ones(3))
    with pytest.raises(TreeStructureError, match="identical types"):
        lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1,), (0, 1.0))


def test_branches_whose_outputs_differ():
    with pytest.raises(ControlFlowTypeError, match=r"branch 1.*float64\(2,\)"):
        lax.cond(True, lambda x: x, lambda x: x[:2], np.ones(3))
    with pytest.raises(TreeStructureError, match="branch 1"):
        lax.switch(0, [lambda x: x, lambda x: (x, x)], 1.0)
    with pytest.raises(ParameterError, match="at least one branch"):
        lax.switch(0, [], 1.0)


def test_bad_predicates_and_indices():
    with pytest.raises(ControlFlowTypeError, match=r"scalar.*\(2,\)"):
        lax.cond(np.array([True, False]), lambda: 1.0, lambda: 2.0)
    with pytest.raises(ControlFlowTypeError, match="bool or integer.*float64"):
        lax.cond(1.0, lambda: 1.0, lambda: 2.0)
    with pytest.raises(ControlFlowTypeError, match="bool or integer"):
        lax.switch(np.float32(1), [lambda: 1.0], ())
    with pytest.raises(ControlFlowTypeError, match="boolean scalar"):
        lax.while_loop(lambda c: c, lambda c: c + 1, 0)


def test_xs_lengths():
    with pytest.raises(ShapeError, match=r"different leading axis sizes.*\[1\]: 4"):
        lax.scan(lambda c, x: (c, None), 0.0, (np.ones(3), np.ones(4)))
    with pytest.raises(ShapeError, match="length=5.*size 3"):
        lax.scan(lambda c, x: (c, None), 0.0, np.ones(3), length=5)
    with pytest.raises(ParameterError, match="no xs and no length"):
        lax.scan(lambda c, x: (c, None), 0.0)
    with pytest.raises(ControlFlowTypeError, match=r"\(carry, y\) pair"):
        lax.scan(lambda c, x: c, 0.0, np.ones(3))
