"""JAX's top-level names a ported program uses (#29): staging (`eval_shape`, `make_jaxpr`),
modes (`disable_jit`, `ensure_compile_time_eval`, `default_matmul_precision`), custom rules
(`custom_gradient`, `closure_convert`), `jacobian`, `tf8.dtypes` and `tf8.custom_derivatives`.
Expected values were recorded from jax 0.10.2 with x64 on."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import DifferentiationError, ParameterError

NEW_MODULES = [
    "tf8.traced", "tf8.staging", "tf8.modes", "tf8.dtypes", "tf8.placement",
    "tf8.ad.custom_gradient",
]  # fmt: skip
NEW_NAMES = [
    "Array", "ShapeDtypeStruct", "eval_shape", "make_jaxpr", "disable_jit",
    "ensure_compile_time_eval", "default_matmul_precision", "custom_gradient",
    "closure_convert", "device_put", "device_get", "block_until_ready", "devices",
    "local_devices", "device_count", "local_device_count", "default_backend",
    "process_count", "process_index", "no_tracing", "print_environment_info", "named_scope",
    "named_call",
]  # fmt: skip


@pytest.mark.parametrize("module", NEW_MODULES)
def test_the_examples_in_the_new_names_docstrings_run(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result


@pytest.mark.parametrize("name", NEW_NAMES)
def test_every_new_public_name_documents_its_parameters_and_shows_an_example(name):
    doc = getattr(tf8, name).__doc__ or ""
    assert ">>>" in doc and "JAX" in doc, f"tf8.{name}: a docstring with an example, and JAX"


def test_eval_shape_computes_nothing_and_matches_jax():
    calls = []

    def f(a, s):
        calls.append(type(a).__name__)
        return tnp.sum(a, axis=0) * s, a.astype(np.int32)

    out = tf8.eval_shape(f, tf8.ShapeDtypeStruct((4, 3), np.float32), 2.0)
    assert out == (
        tf8.ShapeDtypeStruct((3,), np.float32),
        tf8.ShapeDtypeStruct((4, 3), np.int32),
    )  # jax: (ShapeDtypeStruct(shape=(3,), dtype=float32), ... (4, 3), dtype=int32)
    assert calls == ["TracedTensor"]
    real = tf8.eval_shape(lambda x: {"m": x.mean()}, np.ones((2, 5)))
    assert real == {"m": tf8.ShapeDtypeStruct((), np.float64)}


def test_make_jaxpr_prints_the_program_jit_runs():
    closed = tf8.make_jaxpr(lambda x, y: tnp.sin(x) * y + 1.0)(2.0, 3.0)
    text = str(closed)
    assert "sin(" in text and "mul(" in text and "add(" in text
    assert closed.in_avals == [tf8.ShapeDtypeStruct((), np.float64)] * 2
    assert closed.out_avals == [tf8.ShapeDtypeStruct((), np.float64)]
    closed, shape = tf8.make_jaxpr(lambda x: x[:2], return_shape=True)(np.ones(5))
    assert shape == tf8.ShapeDtypeStruct((2,), np.float64)
    structs = tf8.make_jaxpr(lambda a: a @ a.T)(tf8.ShapeDtypeStruct((3, 2), np.float32))
    assert structs.out_avals == [tf8.ShapeDtypeStruct((3, 3), np.float32)]
    with pytest.raises(ParameterError, match="axis_env"):
        tf8.make_jaxpr(lambda x: x, axis_env=[("i", 2)])


def test_disable_jit_runs_the_function_op_by_op_and_restores_jit():
    seen = []
    f = tf8.jit(lambda x: seen.append(type(x).__name__) or x * 2.0)
    with tf8.disable_jit():
        np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
        with tf8.disable_jit(False):
            f(np.ones(2))
    f(np.ones(3))
    assert seen == ["ndarray", "TracedTensor", "TracedTensor"]  # jax: ndarray under disable_jit
    assert tf8.config.jax_disable_jit is False


def test_ensure_compile_time_eval_gives_concrete_values_under_jit():
    @tf8.jit
    def f(x):
        with tf8.ensure_compile_time_eval():
            n = int(tnp.sum(tnp.arange(4)))  # Python control flow on it works
        return x * n if n > 5 else x

    np.testing.assert_array_equal(f(np.ones(2)), [6.0, 6.0])  # jax: [6. 6.]


def test_ensure_compile_time_eval_keeps_derivatives_under_grad():
    def f(x):
        with tf8.ensure_compile_time_eval():
            y = tnp.sin(x) * 2.0
        return y

    assert float(tf8.grad(f)(0.3)) == pytest.approx(2.0 * np.cos(0.3), rel=1e-12)


def test_default_matmul_precision_checks_its_name_and_changes_nothing_on_cpu():
    a = np.arange(6.0).reshape(2, 3)
    with tf8.default_matmul_precision("highest"):
        np.testing.assert_array_equal(tf8.jit(lambda m: m @ m.T)(a), a @ a.T)
    with pytest.raises(ParameterError, match="precision"), tf8.default_matmul_precision("x"):
        pass


def test_custom_gradient_matches_jax():
    @tf8.custom_gradient
    def f(x):
        return tnp.sin(x) * 3.0, lambda g: (g * tnp.cos(x) * 10.0,)

    expected = 10.0 * np.cos(0.3)  # jax: 9.55336489125606
    assert float(tf8.grad(f)(0.3)) == pytest.approx(9.55336489125606, rel=1e-12)
    assert float(tf8.jit(tf8.grad(f))(0.3)) == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(
        tf8.vmap(tf8.grad(f))(np.array([0.1, 0.2])), [9.95004165, 9.80066578], rtol=1e-8
    )
    assert float(f(0.3)) == pytest.approx(3.0 * np.sin(0.3), rel=1e-12)

    @tf8.custom_gradient
    def g(x, y):
        return x * y, lambda ct: (ct * y * 2, ct * x * 3)

    gx, gy = tf8.grad(g, argnums=(0, 1))(2.0, 5.0)
    assert (float(gx), float(gy)) == (10.0, 6.0)  # jax: (10., 6.)

    @tf8.custom_gradient
    def bad(x, y):
        return x * y, lambda ct: ct

    with pytest.raises(DifferentiationError, match="tuple of 2"):
        tf8.grad(bad)(2.0, 5.0)


def test_closure_convert_hoists_closed_over_values_and_differentiates_them():
    w = np.array([1.0, 2.0])

    def outer(w):
        converted, consts = tf8.closure_convert(lambda x: tnp.sum(x * w), np.ones(2))
        return converted(np.ones(2) * 3, *consts)

    assert float(outer(w)) == 9.0  # jax: 9.0
    np.testing.assert_array_equal(tf8.grad(outer)(w), [3.0, 3.0])  # jax: [3. 3.]


def test_jacobian_is_jacrev():
    x = np.array([0.2, 0.7])
    np.testing.assert_allclose(tf8.jacobian(tnp.sin)(x), np.diag(np.cos(x)), rtol=1e-12)


def test_dtypes_module_matches_jax():
    d = tf8.dtypes
    assert d.result_type(np.float32, 2.0) == np.float32  # jax: float32
    assert d.result_type(np.int32, np.float32) == np.float32  # jax: float32
    assert d.result_type(2.0, return_weak_type_flag=True) == (np.float64, True)
    assert d.result_type(np.int32, 2.0, return_weak_type_flag=True) == (np.float64, True)
    assert d.result_type(tnp.asarray(2.0), np.float32) == np.float32  # a weak array
    assert d.scalar_type_of(np.ones(2, np.float32)) is float and d.scalar_type_of(True) is bool
    assert d.itemsize_bits(np.bool_) == 8 and d.itemsize_bits(np.complex64) == 64
    assert not d.issubdtype(d.float0, np.floating) and d.issubdtype(d.float0, d.float0)
    assert tf8.float0 == np.dtype([("float0", "V")]) and tf8.float0.itemsize == 0
    assert d.canonicalize_dtype(float) == np.float64
    with pytest.raises(d.TypePromotionError):
        d.canonicalize_dtype(np.int8)


def test_custom_derivatives_module_gathers_the_rule_api():
    cd = tf8.custom_derivatives
    assert cd.custom_vjp is tf8.custom_vjp and cd.custom_jvp is tf8.custom_jvp
    assert cd.custom_gradient is tf8.custom_gradient and cd.closure_convert is tf8.closure_convert


def test_no_tracing_refuses_a_new_trace_and_runs_cached_programs():
    f = tf8.jit(lambda x: x * 3.0)
    f(np.ones(2))
    with tf8.no_tracing():
        np.testing.assert_array_equal(f(np.ones(2)), [3.0, 3.0])
        with pytest.raises(tf8.errors.TracingError, match="no_tracing"):
            f(np.ones(3))
    np.testing.assert_array_equal(f(np.ones(3)), [3.0, 3.0, 3.0])  # allowed again


def test_print_environment_info_names_the_packages(capsys):
    text = tf8.print_environment_info(return_string=True)
    for name in ("tf8:", "numpy:", "scipy:", "python:", "tf8_default_engine"):
        assert name in text
    assert tf8.print_environment_info() is None and "numpy:" in capsys.readouterr().out


def test_named_scopes_name_the_ops_in_the_program_text():
    def f(x):
        with tf8.named_scope("outer"):
            y = tnp.tanh(x)
            with tf8.named_scope("inner"):
                z = tnp.exp(y)
        return z - 3.0

    lines = str(tf8.make_jaxpr(f)(np.ones(3))).splitlines()
    assert any("tanh(" in line and line.endswith("# outer") for line in lines)
    assert any("exp(" in line and line.endswith("# outer/inner") for line in lines)
    assert any("sub(" in line and "#" not in line for line in lines)
    named = tf8.named_call(lambda x: tnp.cosh(x), name="hyper")
    assert any(
        "cosh(" in line and line.endswith("# hyper")
        for line in str(tf8.make_jaxpr(named)(1.0)).splitlines()
    )
    np.testing.assert_allclose(tf8.jit(f)(np.ones(3)), np.exp(np.tanh(1.0)) - 3.0)
    assert (
        tf8.make_program(f)(np.ones(3)).fingerprint
        == tf8.make_program(lambda x: tnp.exp(tnp.tanh(x)) - 3.0)(np.ones(3)).fingerprint
    )  # names are metadata, outside the program's identity
    with pytest.raises(ParameterError, match="str"):
        tf8.named_scope(3).__enter__()
