"""tf8.jit: one trace per signature, pytrees in and out, static arguments, nesting."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp
from tf8.errors import ConcretizationError, TracingError

Pair = namedtuple("Pair", ["first", "second"])


def counted(fun):
    """`fun` jitted, plus a list whose length is the number of times it was traced."""
    traces: list[int] = []

    def body(*args, **kwargs):
        traces.append(1)
        return fun(*args, **kwargs)

    return tf8.jit(body), traces


def chain(x):
    acc = x
    for _ in range(3):
        acc = acc * x + x
    return acc.sum()


def chain_numpy(x):
    acc = x
    for _ in range(3):
        acc = acc * x + x
    return acc.sum()


# --- caching -------------------------------------------------------------------------------


def test_traces_once_per_signature():
    f, traces = counted(chain)
    x = np.linspace(0.0, 1.0, 5)
    for _ in range(10):
        np.testing.assert_allclose(f(x), chain_numpy(x))
    f(x + 1.0)  # new values, same shape and dtype
    assert len(traces) == 1
    assert f.trace_count == 1
    assert f.cache_info() == {"hits": 10, "misses": 1, "evictions": 0, "size": 1, "traces": 1}


def test_retraces_on_new_shape_or_dtype():
    f, traces = counted(chain)
    f(np.ones(3))
    f(np.ones(4))
    f(np.ones(4, dtype=np.float32))
    f(np.ones(3))
    assert len(traces) == 3


def test_scalars_and_zero_d_arrays_share_a_trace():
    """numpy scalars and 0-d arrays are strongly typed and share a trace; Python scalars are
    weakly typed (as in JAX), so they get their own, shared by every Python float."""
    f, traces = counted(lambda x: x * 2.0)
    assert f(np.float64(2.0)) == 4.0
    assert f(np.array(3.0)) == 6.0
    assert len(traces) == 1
    assert f(1.5) == 3.0
    assert f(2.5) == 5.0
    assert len(traces) == 2


def test_python_scalars_are_weakly_typed_under_jit():
    scale = tf8.jit(lambda a, s: a * (s * 2.0))
    assert scale(np.ones(3, np.float32), 2.0).dtype == np.float32
    assert scale(np.ones(3, np.float32), np.float64(2.0)).dtype == np.float64
    assert tf8.jit(lambda s: s + 1)(3).dtype == np.int64


def test_non_canonical_dtypes_are_converted():
    f, traces = counted(lambda x: x + 1)
    out = f(np.arange(3, dtype=np.int8))
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [1, 2, 3])
    assert f(np.arange(3, dtype=np.int8)).dtype == np.int64
    assert len(traces) == 1


def test_zero_d_result_is_a_zero_d_array():
    out = tf8.jit(chain)(np.ones(4))  # as JAX's: a 0-d jax.Array, not a numpy scalar
    assert isinstance(out, tf8.Array) and out.shape == () and out.dtype == np.float64
    assert float(out) == chain_numpy(np.ones(4))


def test_results_are_fresh_arrays():
    f = tf8.jit(lambda x: x)
    x = np.ones(3)
    out = f(x)
    assert out is not x and not np.shares_memory(np.asarray(out), x)
    x[0] = 5.0  # writing the argument afterwards leaves the result alone
    assert out[0] == 1.0 and not np.asarray(out).flags.writeable


def test_constant_outputs():
    f, traces = counted(lambda x: (x * 2.0, 7.0, np.arange(3), tnp.asarray(1.5)))
    a, b, c, d = f(np.ones(2))
    np.testing.assert_array_equal(a, [2.0, 2.0])
    assert b == 7.0 and isinstance(b, tf8.Array) and b.weak_type  # a Python constant, as JAX
    np.testing.assert_array_equal(c, [0, 1, 2])
    assert not np.asarray(c).flags.writeable  # a constant result cannot be changed in place
    np.testing.assert_array_equal(f(np.ones(2))[2], [0, 1, 2])
    assert d == 1.5 and d.weak_type
    assert len(traces) == 1
    assert tf8.jit(lambda: 3.0)() == 3.0
    assert tf8.jit(lambda x: None)(np.ones(2)) is None


def test_unused_arguments():
    f = tf8.jit(lambda x, y, z: z - x)
    np.testing.assert_array_equal(f(np.ones(2), np.zeros(3), np.full(2, 3.0)), [2, 2])
    program = tf8.make_program(lambda x, y, z: z - x)(np.ones(2), np.zeros(3), np.ones(2))
    assert len(program.placeholders) == 2


# --- pytrees -------------------------------------------------------------------------------


def test_pytree_arguments_and_results():
    f, traces = counted(
        lambda params, batch: {
            "loss": ((params["w"] * batch[0] + params["b"]) ** 2).sum(),
            "pair": Pair(params["w"] + 1.0, batch[1] * 2),
        }
    )
    params = {"w": np.arange(3.0), "b": np.float64(0.5)}
    batch = (np.ones(3), np.arange(2))
    out = f(params, batch)
    assert set(out) == {"loss", "pair"}
    assert isinstance(out["pair"], Pair)
    np.testing.assert_allclose(out["loss"], ((np.arange(3.0) + 0.5) ** 2).sum())
    np.testing.assert_array_equal(out["pair"].first, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(out["pair"].second, [0, 2])
    f({"w": np.ones(3), "b": np.float64(1.0)}, (np.zeros(3), np.arange(2)))
    assert len(traces) == 1
    f({"w": np.ones(3), "b": np.float64(1.0), "extra": np.ones(1)}, batch)  # new structure
    assert len(traces) == 2


def test_list_results_and_kwargs():
    f, traces = counted(lambda x, *, scale: [x * scale, x + scale])
    out = f(np.ones(2), scale=np.float64(3.0))
    assert isinstance(out, list)
    np.testing.assert_array_equal(out[0], [3.0, 3.0])
    f(np.ones(2), scale=np.float64(4.0))
    assert len(traces) == 1


# --- static arguments ----------------------------------------------------------------------


def test_static_argnums_retrace_on_new_value():
    traces = []

    def power(x, n):
        traces.append(n)
        result = x
        for _ in range(n - 1):  # Python control flow on a static value
            result = result * x
        return result

    f = tf8.jit(power, static_argnums=1)
    x = np.full(2, 2.0)
    np.testing.assert_array_equal(f(x, 3), [8.0, 8.0])
    np.testing.assert_array_equal(f(x, 3), [8.0, 8.0])
    np.testing.assert_array_equal(f(x, 4), [16.0, 16.0])
    np.testing.assert_array_equal(f(x, n=4), [16.0, 16.0])  # a static argnum passed by name
    assert traces == [3, 4, 4]


def test_static_argnames():
    traces = []

    def reduce(x, mode="sum"):
        traces.append(mode)
        return x.sum() if mode == "sum" else x.max()

    f = tf8.jit(reduce, static_argnames="mode")
    x = np.array([1.0, 5.0, 2.0])
    assert f(x, mode="sum") == 8.0
    assert f(x, mode="max") == 5.0
    assert f(x, "max") == 5.0  # positional use of a static name
    assert f(x) == 8.0  # default value
    assert f(x, mode="max") == 5.0
    assert traces == ["sum", "max", "max", "sum"]


def test_static_values_are_keyed_by_type():
    traces = []
    f = tf8.jit(lambda x, n: (traces.append(n), x * n)[1], static_argnums=1)
    f(np.ones(2), 2)
    f(np.ones(2), 2.0)  # 2 == 2.0, but the traces differ (int vs float promotion)
    f(np.ones(2), 2)
    assert traces == [2, 2.0]


def test_decorator_with_options():
    @tf8.jit(static_argnums=(1,))
    def take(x, i):
        return x[i]

    assert take(np.arange(5.0), 3) == 3.0


# --- tracing semantics ---------------------------------------------------------------------


def test_python_control_flow_on_traced_value_raises():
    def relu(x):
        return x if x > 0 else -x

    with pytest.raises(ConcretizationError, match=r"bool.*unbound placeholder"):
        tf8.jit(relu)(1.0)
    with pytest.raises(ConcretizationError):
        tf8.jit(lambda x: float(x.sum()))(np.ones(2))


def test_where_instead_of_control_flow():
    f = tf8.jit(lambda x: tnp.where(x > 0, x, -x))
    np.testing.assert_array_equal(f(np.array([-1.0, 2.0])), [1.0, 2.0])


def test_jit_of_jit_inlines_the_inner_function():
    inner, inner_traces = counted(lambda x: tnp.sin(x) * 2.0)
    outer, outer_traces = counted(lambda x: inner(x) + 1.0)
    x = np.linspace(0.0, 1.0, 4)
    np.testing.assert_allclose(outer(x), np.sin(x) * 2.0 + 1.0)
    outer(x)
    assert len(outer_traces) == 1 and len(inner_traces) == 1
    assert inner.trace_count == 0  # traced as part of the outer program, not on its own
    np.testing.assert_allclose(inner(x), np.sin(x) * 2.0)
    assert inner.trace_count == 1


def test_unbound_traced_arguments_are_inlined():
    x = tf8.placeholder((3,), "float64")
    y = tf8.jit(lambda a: a * 2.0)(x)
    assert isinstance(y, tf8.TracedTensor) and not y.is_concrete


def test_concrete_traced_arguments_run_compiled():
    f, traces = counted(lambda a: a * 2.0)
    out = f(tf8.tensor(np.ones(2)))
    assert isinstance(out, tf8.Array)
    f(tf8.tensor(np.zeros(2)))
    f(np.ones(2))  # same shape and dtype: the trace is shared
    assert len(traces) == 1


def test_closed_over_tensor_becomes_a_binding():
    w = tf8.tensor(np.array([1.0, 2.0]))
    f = tf8.jit(lambda x: x * w)
    np.testing.assert_array_equal(f(np.ones(2)), [1.0, 2.0])


# --- make_program / lower ------------------------------------------------------------------


def test_make_program_returns_the_compiled_graph():
    program = tf8.make_program(chain)(np.ones(4))
    assert isinstance(program, tf8.CompiledGraph)
    names = [op.name for op in program.ops]
    assert names.count("mul") == 3 and names.count("add") == 3
    assert names.count("reduce_sum") == 1 and len(names) == 7
    assert len(program.placeholders) == 1
    assert "reduce_sum" in program.pretty()


def test_make_program_with_static_args_and_symbolic_shapes():
    program = tf8.make_program(lambda x, n: x * n, static_argnums=1)(np.ones(3), 2)
    assert program.outputs[0].shape == (3,)
    symbolic = tf8.make_program(chain)(tf8.placeholder(("n",), "float64"))
    assert len(symbolic.ops) == 7


def test_lower_matches_what_jit_runs():
    f = tf8.jit(chain)
    f(np.ones(4))
    traces = f.trace_count  # every jit(chain) shares one cache, as in JAX
    program = f.lower(np.ones(4))
    assert f.trace_count == traces  # lower reuses the cached trace
    assert program.fingerprint == tf8.make_program(chain)(np.zeros(4)).fingerprint


@given(
    st.lists(st.floats(-3, 3, allow_nan=False), min_size=1, max_size=6),
    st.sampled_from(["float32", "float64"]),
)
def test_jit_agrees_with_numpy(values, dtype):
    x = np.asarray(values, dtype=dtype)
    np.testing.assert_allclose(tf8.jit(chain)(x), chain_numpy(x), rtol=1e-5, atol=1e-5)


def test_bad_options_are_reported_when_jitting():
    with pytest.raises(TracingError, match=r"static_argnums=\(2,\).*2 positional"):
        tf8.jit(lambda x, y: x, static_argnums=2)
    with pytest.raises(TracingError, match=r"no parameter 'z'"):
        tf8.jit(lambda x, y: x, static_argnames="z")


# --- with autodiff -------------------------------------------------------------------------


def test_grad_of_jit_differentiates_through_the_jitted_function():
    f, traces = counted(lambda x: (tnp.sin(x) ** 2).sum())
    x = np.linspace(0.0, 1.0, 4)
    np.testing.assert_allclose(tf8.grad(f)(x), 2 * np.sin(x) * np.cos(x))
    assert f.trace_count == 0  # inlined into grad's trace


def test_jit_of_grad_traces_once():
    g, traces = counted(tf8.grad(lambda x: (tnp.sin(x) ** 2).sum()))
    x = np.linspace(0.0, 1.0, 4)
    for _ in range(3):
        np.testing.assert_allclose(g(x), 2 * np.sin(x) * np.cos(x))
    assert len(traces) == 1


def test_python_control_flow_on_concrete_values_works_under_grad_of_jit():
    """A deliberate difference (README): jit inside another transform inlines the function,
    which sees grad's concrete primals, so a Python branch on them works (JAX raises)."""
    f = tf8.jit(lambda x: x * 2.0 if x > 0 else x * -3.0)
    assert tf8.grad(f)(1.0) == 2.0 and tf8.grad(f)(-1.0) == -3.0
    assert tf8.grad(tf8.jit(lambda x: x * 2.0, inline=True))(1.0) == 2.0
    with pytest.raises(ConcretizationError):  # jit on its own still traces abstractly
        f(1.0)
