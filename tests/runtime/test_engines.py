"""The engine seam (issue 17): engines by name, tf8.config, placement and transfers.

These tests need no optional extra: a small engine made of a kernel table alone (no code
generator) stands in for a guest engine. The numba engine's own tests are in
test_numba_engine.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import EngineError, ParameterError
from tf8.ops.extension.linalg.decompositions import Svdvals
from tf8.ops.primitive import Primitive
from tf8.runtime import Engine, Runtime, engines


class SvdOnly(Engine):
    """A guest engine whose kernel table is one extension family: its own svdvals kernel
    (counting its calls), supplied without touching the op class."""

    name = "svd_only"

    def __init__(self) -> None:
        self.calls = 0
        self.kernels = {Svdvals: self._svdvals}

    def _svdvals(self, op, a):
        self.calls += 1
        return np.linalg.svd(a, compute_uv=False)


def _svd_program():
    return tf8.make_program(lambda a: tnp.sum(tf8.linalg.svdvals(a) * 2.0 + 1.0))(np.eye(3))


def test_a_guest_engine_runs_what_its_kernel_table_has_with_visible_transfers():
    engine = SvdOnly()
    assert engine.supports(Svdvals()) and not engine.supports(Primitive("add", 2))
    prepared = Runtime(engines=[engine], optimise=True).prepare(_svd_program())
    a = np.diag([3.0, 1.0, 2.0])
    (value,) = prepared.run(a)
    assert value == pytest.approx(2 * 6.0 + 3.0)
    assert engine.calls == 1
    text = prepared.pretty()
    assert "svdvals(%" in text and "[svd_only]" in text, text
    assert "transfer[numpy→svd_only]" in text and "transfer[svd_only→numpy]" in text, text
    assert "engines (in order of preference; the last takes what the others lack): " in text
    assert "svd_only > numpy" in text
    # everything else fell back to the numpy engine
    placed = {inst.name: inst.engine for inst in prepared.program.instructions}
    assert placed["svdvals"] == "svd_only" and placed["reduce_sum"] == "numpy", placed


def test_the_lean_tier_runs_on_the_host_engine_only():
    engine = SvdOnly()
    prepared = Runtime(engines=[engine]).prepare(_svd_program())
    prepared.run(np.eye(3))  # first run: lean, every instruction on numpy
    assert engine.calls == 0 and prepared.prepared.tier == "lean"
    prepared.run(np.eye(3))  # second run: optimised, placed
    assert engine.calls == 1 and prepared.prepared.tier == "optimised"


def test_a_runtime_pinned_lean_never_optimises():
    engine = SvdOnly()
    prepared = Runtime(engines=[engine], optimise=False).prepare(_svd_program())
    for _ in range(3):
        np.testing.assert_allclose(prepared.run(np.eye(3)), 9.0)  # sum(2 * 1 + 1)
    assert engine.calls == 0 and prepared.prepared.tier == "lean"


def test_a_program_the_guest_cannot_run_has_no_transfers():
    prepared = Runtime(engines=[SvdOnly()], optimise=True).prepare(
        tf8.make_program(lambda x: tnp.sum(x * x))(np.ones(3))
    )
    assert "transfer" not in prepared.pretty()
    assert all(inst.engine == "numpy" for inst in prepared.program.instructions)
    assert prepared.run(np.arange(3.0))[0] == 5.0


def test_unknown_engine_names_the_engines():
    with pytest.raises(EngineError, match=r"unknown engine 'cupy'.*numba.*numpy"):
        tf8.jit(lambda x: x + 1, engine="cupy")
    with pytest.raises(EngineError, match="cupy"):
        tf8.config.update("tf8_default_engine", "cupy")


def test_an_engine_whose_extra_is_missing_names_the_pip_install(monkeypatch):
    monkeypatch.setitem(
        engines.ENGINES,
        "ghost",
        ("tf8.runtime.engines.numba", "NumbaEngine", "tf8_no_such_pkg", "pip install tf8-ghost"),
    )
    with pytest.raises(EngineError, match=r"'ghost'.*tf8_no_such_pkg.*pip install tf8-ghost"):
        tf8.jit(lambda x: x + 1, engine="ghost")
    with pytest.raises(EngineError, match="pip install tf8-ghost"):
        Runtime(engines=["ghost"])


def test_config_update_and_attribute(monkeypatch):
    monkeypatch.setitem(tf8.config.config._values, "tf8_default_engine", "numpy")
    tf8.config.update("tf8_default_engine", "numpy")
    assert tf8.config.tf8_default_engine == "numpy"
    assert "tf8_default_engine" in tf8.config.options()
    with pytest.raises(ParameterError, match="no option 'tf8_no_option'"):
        tf8.config.update("tf8_no_option", 1)
    with pytest.raises(AttributeError, match="tf8_no_option"):
        tf8.config.tf8_no_option  # noqa: B018
    with pytest.raises(ParameterError, match="engine name"):
        tf8.config.update("tf8_default_engine", 3)


def test_jit_follows_the_configured_default_engine(monkeypatch):
    engine = SvdOnly()
    monkeypatch.setitem(engines._INSTANCES, "svd_only", engine)
    monkeypatch.setitem(engines.ENGINES, "svd_only", ("", "", "", ""))
    monkeypatch.setitem(tf8.config.config._values, "tf8_default_engine", "numpy")
    tf8.config.update("tf8_default_engine", "svd_only")
    f = tf8.jit(lambda a: tnp.sum(tf8.linalg.svdvals(a)))
    a = np.diag([1.0, 2.0, 4.0])
    assert f(a) == 7.0 and f(a) == 7.0  # the second call is optimised and placed
    assert engine.calls == 1
    # an explicit engine= wins over the default
    g = tf8.jit(lambda a: tnp.sum(tf8.linalg.svdvals(a)), engine="numpy")
    assert g(a) == 7.0 and g(a) == 7.0 and engine.calls == 1
