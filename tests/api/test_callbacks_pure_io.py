"""tf8.pure_callback and tf8.experimental.io_callback (issue #29): eager, jit, vmap (every
vmap_method), grad/jvp (refused; custom_jvp/custom_vjp around them differentiate), the
control-flow ops, result checks and the engines. Expected calls and messages recorded from
JAX 0.10.2 (JAX_ENABLE_X64=1)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tf8
import tf8.numpy as jnp
from tf8.errors import DifferentiationError, DTypeError, NoBatchingRule, ParameterError, ShapeError
from tf8.experimental import io_callback


def sds(x):
    return tf8.ShapeDtypeStruct(x.shape, x.dtype)


X = np.arange(6.0).reshape(2, 3)


class Calls:
    """A callback that records the shapes it was called with."""

    def __init__(self, fn=np.sin):
        self.fn, self.shapes = fn, []

    def __call__(self, *arrays):
        self.shapes.append(tuple(np.shape(a) for a in arrays))
        return self.fn(*arrays)


def test_pure_callback_eager_and_jit_return_arrays():
    cb = Calls()
    out = tf8.pure_callback(cb, sds(X), X)
    assert isinstance(out, tf8.Array)
    np.testing.assert_allclose(out, np.sin(X))
    f = tf8.jit(lambda v: tf8.pure_callback(cb, sds(v), v) * 2)
    np.testing.assert_allclose(f(X), 2 * np.sin(X))
    np.testing.assert_allclose(f(X + 1), 2 * np.sin(X + 1))
    assert cb.shapes == [((2, 3),)] * 3  # called when the program runs, not when traced


def test_pure_callback_pytrees_kwargs_and_weak_inputs():
    pair = tf8.pure_callback(lambda a: (a, a + 1), (sds(X[0]), sds(X[0])), X[0])
    np.testing.assert_array_equal(pair[1], [1.0, 2.0, 3.0])  # JAX: a tuple of Arrays
    out = tf8.pure_callback(lambda a, k: a * k, sds(X[0]), X[0], k=3)
    np.testing.assert_array_equal(out, [0.0, 3.0, 6.0])  # JAX
    got = tf8.jit(
        lambda v: tf8.pure_callback(lambda d: {"s": d["a"].sum()}, {"s": sds(X[0, 0])}, {"a": v})
    )(X)
    assert float(got["s"]) == 15.0


@pytest.mark.parametrize(
    "method, shapes",
    [  # what JAX's callback received for a (2, 3) batch and an unbatched (3,) argument
        ("sequential", [((3,), (3,)), ((3,), (3,))]),
        ("sequential_unrolled", [((3,), (3,)), ((3,), (3,))]),
        ("expand_dims", [((2, 3), (1, 3))]),
        ("broadcast_all", [((2, 3), (2, 3))]),
        ("legacy_vectorized", [((2, 3), (3,))]),
    ],
)
def test_pure_callback_vmap_methods(method, shapes):
    for wrap in (lambda f: f, tf8.jit):
        cb = Calls(np.add)

        def fun(v, cb=cb):
            return tf8.pure_callback(cb, sds(v), v, jnp.ones(3), vmap_method=method)

        np.testing.assert_allclose(wrap(tf8.vmap(fun))(X), X + 1)
        assert cb.shapes == shapes


def test_pure_callback_vmap_axes_and_nesting():
    cb = Calls()
    out = tf8.vmap(lambda v: tf8.pure_callback(cb, sds(v), v, vmap_method="sequential"), 1)(X)
    np.testing.assert_allclose(out, np.sin(X.T))
    assert cb.shapes == [((2,),)] * 3
    nested = tf8.vmap(
        tf8.vmap(lambda s: tf8.pure_callback(np.cos, sds(s), s, vmap_method="expand_dims"))
    )
    np.testing.assert_allclose(nested(X), np.cos(X))
    seq = tf8.vmap(
        tf8.vmap(lambda s: tf8.pure_callback(np.cos, sds(s), s, vmap_method="sequential"))
    )
    np.testing.assert_allclose(tf8.jit(seq)(X), np.cos(X))


def test_pure_callback_vmap_without_method_raises_jax_text():
    text = (  # JAX's NotImplementedError
        "vmap is only supported for the pure_callback primitive when vmap_method is one of "
        "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
        "'legacy_vectorized'. Got vmap_method=None."
    )
    with pytest.raises(NoBatchingRule, match=re.escape(text)):
        tf8.vmap(lambda v: tf8.pure_callback(np.sin, sds(v), v))(X)
    with pytest.raises(ParameterError, match="vmap_method"):
        tf8.pure_callback(np.sin, sds(X), X, vmap_method="loop")


@pytest.mark.parametrize("transform", ["grad", "jit_grad", "jvp"])
def test_pure_callback_refuses_derivatives(transform):
    f = lambda v: tf8.pure_callback(np.sin, sds(v), v).sum()  # noqa: E731
    run = {
        "grad": lambda: tf8.grad(f)(X),
        "jit_grad": lambda: tf8.jit(tf8.grad(f))(X),
        "jvp": lambda: tf8.jvp(f, (X,), (X,)),
    }[transform]
    with pytest.raises(
        DifferentiationError, match="Pure callbacks do not support JVP. Please use `tf8.custom_jvp`"
    ):
        run()


def test_custom_jvp_and_custom_vjp_around_pure_callback_differentiate():
    @tf8.custom_jvp
    def sin(x):
        return tf8.pure_callback(np.sin, sds(x), x, vmap_method="sequential")

    @sin.defjvp
    def sin_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return sin(x), tf8.pure_callback(np.cos, sds(x), x, vmap_method="sequential") * t

    @tf8.custom_vjp
    def exp(x):
        return tf8.pure_callback(np.exp, sds(x), x)

    exp.defvjp(lambda x: (exp(x), exp(x)), lambda r, g: (r * g,))
    x = X[1]
    for g in (tf8.grad(lambda v: sin(v).sum()), tf8.jit(tf8.grad(lambda v: sin(v).sum()))):
        np.testing.assert_allclose(g(x), np.cos(x))
    np.testing.assert_allclose(tf8.vmap(tf8.grad(sin))(x), np.cos(x))
    np.testing.assert_allclose(tf8.grad(lambda v: exp(v).sum())(x), np.exp(x))
    np.testing.assert_allclose(tf8.jit(tf8.grad(lambda v: exp(v).sum()))(x), np.exp(x))


def test_pure_callback_result_checks_name_the_callback():
    def to32(v):
        return v.astype(np.float32)

    with pytest.raises(
        DTypeError, match="to32 returned dtype float32 for result 0.*declares float64"
    ):
        tf8.pure_callback(to32, sds(X), X)

    def first(v):
        return v[0]

    with pytest.raises(ShapeError, match=r"first returned shape \(3,\).*declares \(2, 3\)"):
        tf8.jit(lambda v: tf8.pure_callback(first, sds(v), v))(X)
    with pytest.raises(ShapeError, match="structure"):
        tf8.pure_callback(lambda v: (v, v), sds(X), X)
    with pytest.raises(ParameterError, match="result_shape_dtypes"):
        tf8.pure_callback(np.sin, "float64", X)


def test_pure_callback_is_dropped_when_unused_and_merged_when_equal():
    cb = Calls()
    tf8.jit(lambda v: (tf8.pure_callback(cb, sds(v), v), v)[1])(X)
    assert cb.shapes == []  # JAX: not called
    out = tf8.jit(lambda v: tf8.pure_callback(cb, sds(v), v) + tf8.pure_callback(cb, sds(v), v))(X)
    np.testing.assert_allclose(out, 2 * np.sin(X))
    assert len(cb.shapes) == 1


def test_pure_callback_in_loops():
    cb = Calls(lambda c: c * 2)
    f = tf8.jit(lambda c: tf8.lax.fori_loop(0, 3, lambda i, c: tf8.pure_callback(cb, sds(c), c), c))
    np.testing.assert_allclose(f(np.ones(2)), 8 * np.ones(2))
    assert len(cb.shapes) == 3


# --- io_callback ------------------------------------------------------------------------


class Log:
    def __init__(self):
        self.seen = []

    def __call__(self, v):
        self.seen.append(np.asarray(v).tolist())
        return np.asarray(v) * 2


def test_io_callback_eager_jit_every_run_never_dropped_never_merged():
    log = Log()
    np.testing.assert_array_equal(io_callback(log, sds(X[0]), X[0]), [0.0, 2.0, 4.0])
    f = tf8.jit(lambda v: (io_callback(log, sds(v), v), io_callback(log, sds(v), v), v)[2])
    f(X[0])
    f(X[1])
    row0, row1 = [0.0, 1.0, 2.0], [3.0, 4.0, 5.0]
    assert log.seen == [row0, row0, row0, row1, row1]
    assert io_callback(lambda: log.seen.append("none"), None) is None  # JAX: None
    assert log.seen[-1] == "none"


def test_io_callback_vmap_runs_per_example_and_ordered_refuses():
    log = Log()
    out = tf8.vmap(lambda v: io_callback(log, sds(v), v))(X)
    np.testing.assert_array_equal(out, 2 * X)
    assert log.seen == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]  # JAX: one call per example
    with pytest.raises(NoBatchingRule, match="Cannot `vmap` ordered IO callback."):
        tf8.vmap(lambda v: io_callback(log, sds(v), v, ordered=True))(X)


@pytest.mark.parametrize("transform", ["grad", "jvp", "jit_grad"])
def test_io_callback_refuses_derivatives(transform):
    f = lambda v: io_callback(Log(), sds(v), v).sum()  # noqa: E731
    run = {
        "grad": lambda: tf8.grad(f)(X[0]),
        "jvp": lambda: tf8.jvp(f, (X[0],), (X[0],)),
        "jit_grad": lambda: tf8.jit(tf8.grad(f))(X[0]),
    }[transform]
    with pytest.raises(DifferentiationError, match="IO callbacks do not support JVP."):
        run()


def test_io_callback_in_scan_runs_each_iteration_in_order():
    log = Log()
    body = lambda c, _: (io_callback(log, sds(c), c), None)  # noqa: E731
    tf8.lax.scan(body, jnp.ones(1), None, length=2)
    tf8.jit(lambda c: tf8.lax.scan(body, c, None, length=2))(jnp.ones(1))
    assert log.seen == [[1.0], [2.0], [1.0], [2.0]]  # JAX: io [1.], io [2.]


# --- engines ------------------------------------------------------------------------------


def _program(a):
    b = jnp.exp(a) * 2.0
    tf8.debug.print("b={}", b)
    c = tf8.pure_callback(np.cos, sds(a), b)
    return jnp.sum(c * 3.0 + 1.0)


def test_callbacks_on_the_numba_engine_are_placed_on_numpy(capsys):
    pytest.importorskip("numba")
    from tf8.api import runtime_for

    a = np.linspace(0, 1, 4)
    f = tf8.jit(_program, engine="numba")
    expected = np.sum(np.cos(np.exp(a) * 2) * 3 + 1)
    for _ in range(3):  # lean, then placed and compiled
        assert float(f(a)) == pytest.approx(expected, rel=1e-12)
    assert len(capsys.readouterr().out.splitlines()) == 3
    prepared = runtime_for("numba").prepare(f.lower(a))
    engine_of = {inst.name: inst.engine for inst in prepared.program.instructions}
    assert engine_of["pure_callback"] == engine_of["debug_callback"] == "numpy"


def test_callbacks_on_dask_arrays_refuse_with_an_engine_error():
    da = pytest.importorskip("dask.array")
    from tf8.errors import EngineError

    with pytest.raises(EngineError, match="pure_callback"):
        tf8.jit(_program)(da.from_array(np.linspace(0, 1, 4), chunks=2))


# --- 32-bit mode --------------------------------------------------------------------------


@pytest.fixture
def x64_off():
    tf8.config.update("jax_enable_x64", False)
    try:
        yield
    finally:
        tf8.config.update("jax_enable_x64", True)


def test_callbacks_with_x64_off_see_32_bit_values_and_refuse_64_bit_results(x64_off, capsys):
    x = jnp.arange(3.0)
    cb = Calls()
    out = tf8.jit(lambda v: tf8.pure_callback(cb, tf8.ShapeDtypeStruct((3,), np.float32), v))(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.sin(np.arange(3.0)), rtol=1e-6)
    tf8.jit(lambda v: tf8.debug.callback(lambda a: print(a.dtype), v))(x)
    assert capsys.readouterr().out == "float32\n"
    # JAX: "result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` is disabled"
    with pytest.raises(ParameterError, match="cannot specify 64-bit types"):
        tf8.pure_callback(np.sin, tf8.ShapeDtypeStruct((3,), np.float64), x)
