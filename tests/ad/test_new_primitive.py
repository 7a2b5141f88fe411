"""A new primitive is one definition in one module, registered by the path tf8's own take.

`toy_cube` below is defined here the way every built-in is defined in its family module
(`tf8/ops/primitives/`): a row, a kernel, its partial derivative and the facts the engines fuse
it by. Registered with `register_primitive`, it gets eager values, the tape's eager grad (no
fall-back to the graph path), jit, vmap, derivatives of any order, fusion on the numpy and
numba engines and the Dask engine, with no other table touched.
"""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.ad import register_rules, unregister_rules
from tf8.ad.tape_rules import FALLBACKS
from tf8.lax.builders import mul
from tf8.lax.core import apply1
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import define, definition
from tf8.ops.fusion import PREVIOUS, Fusion, Step
from tf8.ops.primitive import register_primitive, unregister_primitive

# --- the module defining the primitive ------------------------------------------------------

TOY_CUBE = define(
    Row("toy_cube", Category.ANALYTIC, DTypePolicy.SAME_FLOAT, 1, 1, doc="x**3"),
    kernel=lambda op, x: x * x * x,
    partials=(lambda lax, x, out: lax.mul(3.0, lax.mul(x, x)),),
    fusion=Fusion(
        ufunc=lambda op, dtypes: (Step(np.multiply, (0, 0)), Step(np.multiply, (PREVIOUS, 0))),
        scalar=lambda op, a: f"({a[0]} * {a[0]} * {a[0]})",
    ),
)
# Linear in both operands: its JVP is the op on the tangents; its transpose is written here.
TOY_SHIFT = define(
    Row("toy_shift", Category.ELEMENTWISE, DTypePolicy.SAME_FLOAT, 2, 2, linear=True),
    kernel=lambda op, x, y: x + 2 * y,
    transpose=lambda lax, op, operands, linear, ct: [
        ct if linear[0] else None,
        lax.mul(ct, 2.0) if linear[1] else None,
    ],
)


def cube(x):
    return apply1("toy_cube", [tnp.asarray(x)])


def shift(x, y):
    return apply1("toy_shift", [tnp.asarray(x), tnp.asarray(y)])


# ---------------------------------------------------------------------------------------------


@pytest.fixture
def toy():
    register_primitive(TOY_CUBE)
    register_primitive(TOY_SHIFT)
    yield
    unregister_primitive("toy_cube")
    unregister_primitive("toy_shift")


def f(x):
    return tnp.sum(shift(cube(x), tf8.lax.add(x, 1.0)))


X = np.linspace(-1.5, 2.0, 7)
GRAD = 3 * X**2 + 2


def test_eager_values_and_the_tape_grad_without_falling_back(toy):
    np.testing.assert_allclose(np.asarray(cube(tf8.tensor(X))), X**3)
    np.testing.assert_allclose(np.asarray(shift(X, X)), 3 * X)
    before = dict(FALLBACKS)
    np.testing.assert_allclose(tf8.grad(f)(X), GRAD)
    assert dict(FALLBACKS) == before, "a pullback fell back to the graph path"


def test_jit_vmap_and_higher_derivatives(toy):
    np.testing.assert_allclose(tf8.jit(f)(X), np.sum(X**3 + 2 * (X + 1)))
    np.testing.assert_allclose(tf8.jit(tf8.grad(f))(X), GRAD)
    rows = np.stack([X, 2 * X, -X])
    np.testing.assert_allclose(tf8.vmap(tf8.grad(f))(rows), 3 * rows**2 + 2)
    np.testing.assert_allclose(tf8.hessian(f)(X), np.diag(6 * X))
    tf8.check_grads(f, (X,), order=2)
    with tf8.recording():  # a recorded op, to read its definition back
        assert definition(cube(tf8.tensor(X)).key.operation.op) is TOY_CUBE
        assert definition(shift(tf8.tensor(X), tf8.tensor(X)).key.operation.op).linear


def test_fused_with_its_neighbours_on_the_numba_engine(toy, tmp_path, monkeypatch):
    pytest.importorskip("numba", reason="the numba engine needs its extra: pip install numba")
    from tf8.api import runtime_for

    monkeypatch.setenv("TF8_CACHE_DIR", str(tmp_path))
    g = tf8.jit(lambda x: tnp.sum(tnp.sin(cube(x * 2.0 + 1.0)) * 3.0), engine="numba")
    x = np.linspace(-1.0, 1.0, 64)
    expected = np.sum(np.sin((x * 2.0 + 1.0) ** 3) * 3.0)
    for _ in range(2):  # the second call builds the optimised tier (the compiled region)
        assert g(x) == pytest.approx(expected, rel=1e-12)
    prepared = runtime_for("numba").prepare(g.lower(x))
    text = prepared.pretty()
    engines = {inst.name: inst.engine for inst in prepared.program.instructions}
    assert engines["toy_cube"] == engines["sin"] == engines["mul"] == "numba", text
    assert text.count("numba: instructions") == 1, text  # one compiled region holds them all


def test_the_numpy_engine_fuses_it_into_a_blocked_region(toy):
    from tf8.runtime.engines.numpy import regions

    x = tf8.placeholder((5 * regions.BLOCK + 123,), "float64")
    prepared = tf8.Runtime().prepare(tf8.GraphCompiler().compile(tnp.sin(cube(x * 2.0)) + 1.0))
    (region,) = prepared.prepared.regions
    assert region.ops == 4, prepared.pretty()  # mul, toy_cube, sin, add
    a = np.linspace(-1.0, 1.0, x.shape[0])
    y = a * 2.0
    np.testing.assert_array_equal(prepared.run(a)[0], np.sin(y * y * y) + 1.0)


def test_the_dask_engine_runs_it_blockwise(toy):
    da = pytest.importorskip("dask.array", reason="the Dask engine needs its extra")
    import dask

    x = np.linspace(-1.0, 1.0, 40)
    lazy = da.from_array(x, chunks=7)
    out = tf8.jit(lambda v: cube(v) * 2.0)(lazy)
    assert isinstance(out, da.Array)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_allclose(out.compute(), x**3 * 2.0, rtol=1e-12)
    grads = tf8.jit(tf8.grad(lambda v: tnp.sum(cube(v))))(lazy)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_allclose(np.asarray(grads), 3 * x**2, rtol=1e-12)


def test_rules_registered_apart_still_work(toy):
    """`register_rules` gives an op kind rules in the transforms' own signature (without
    `lax`): the older path, kept for extension families and quick experiments."""
    register_primitive(
        define(
            Row("toy_square", Category.ANALYTIC, DTypePolicy.SAME_FLOAT, 1, 1, doc="x**2"),
            kernel=lambda op, x: x * x,
        )
    )
    register_rules(
        "toy_square",
        jvp=lambda op, primals, outputs, tangents: [
            None if tangents[0] is None else mul(tangents[0], mul(2.0, primals[0]))
        ],
    )
    try:
        g = lambda x: tnp.sum(apply1("toy_square", [tnp.asarray(x)]))  # noqa: E731
        np.testing.assert_allclose(tf8.grad(g)(X), 2 * X)
        np.testing.assert_allclose(tf8.jit(tf8.grad(g))(X), 2 * X)
    finally:
        unregister_primitive("toy_square")
        unregister_rules("toy_square")


def test_unregistering_removes_every_trace_of_it(toy):
    from tf8.errors import ParameterError

    unregister_primitive("toy_cube")
    with pytest.raises(ParameterError, match="toy_cube"):
        apply1("toy_cube", [tf8.tensor(np.ones(2))])
    register_primitive(TOY_CUBE)  # the fixture removes it again
