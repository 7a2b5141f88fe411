"""The lean tier runs the semantic program as it is: a first run lowers nothing; the
ExecProgram (`lean_program`) is made when asked for, and the second run optimises."""

from __future__ import annotations

import numpy as np

import tf8
import tf8.numpy as tnp
from tf8.runtime import tiers


def _prepared(runtime):
    with tf8.recording():
        v = tf8.placeholder((4,), "float64", name="v")
        compiled = tf8.GraphCompiler().compile(tnp.sum(tnp.sin(v) * v + v))
    return runtime.prepare(compiled)


def test_a_first_run_lowers_nothing(monkeypatch):
    lowered = []
    real_lower = tiers.lower
    monkeypatch.setattr(tiers, "lower", lambda program: lowered.append(1) or real_lower(program))
    prepared = _prepared(tf8.Runtime())
    x = np.linspace(0.0, 1.0, 4)
    np.testing.assert_allclose(prepared.run(x)[0], np.sum(np.sin(x) * x + x))
    assert lowered == [] and prepared.prepared.tier == "lean"
    prepared.run(x)  # the second run builds the optimised tier, which lowers
    assert lowered and prepared.prepared.tier == "optimised"


def test_the_lean_program_is_lowered_on_demand_on_the_host_engine():
    prepared = _prepared(tf8.Runtime()).prepared
    lean = prepared.lean_program
    assert lean is prepared.lean_program  # made once
    assert [i.op for i in lean.instructions] == [i.op for i in prepared._semantic.instructions]
    assert {i.engine for i in lean.instructions} == {prepared.engine.name}
    assert lean.n_inputs == len(prepared.input_avals)
