"""`jax_enable_x64` (issue #29): tf8 computes in 64 bits by default; with the option off it
follows JAX's 32-bit default — canonical dtypes, weak Python scalars, creation defaults,
promotion, jit/grad/vmap arguments and tf8.random's draws — as jax 0.10.2 does with x64 off
(the values in x64_jax_values.py were recorded from jax itself)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from x64_jax_values import JAX_X64_OFF, RANDOM_X64_OFF

import tf8
import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import ParameterError
from tf8.ops import dtypes as dt

F64 = np.array([1.5, 2.5, -3.25])
I64 = np.array([1, 2, 3], dtype=np.int64)
G64 = np.array([3.5, -1.0, 2.0])  # the second table's operand
key = tf8.random.PRNGKey


@pytest.fixture
def x64_off():
    """The option off for one test, and back on (the default) after it."""
    tf8.config.update("jax_enable_x64", False)
    try:
        yield
    finally:
        tf8.config.update("jax_enable_x64", True)


EXPRESSIONS = {
    "ones": lambda: tnp.ones(3),
    "zeros": lambda: tnp.zeros((2,)),
    "ones_int": lambda: tnp.ones(2, dtype=int),
    "full_float": lambda: tnp.full(2, 1.5),
    "full_int": lambda: tnp.full(2, 7),
    "arange_int": lambda: tnp.arange(3),
    "arange_float": lambda: tnp.arange(3.0),
    "arange_step": lambda: tnp.arange(0, 1, 0.25),
    "linspace": lambda: tnp.linspace(0, 1, 5),
    "eye": lambda: tnp.eye(2),
    "array_list_float": lambda: tnp.array([1.0, 2.0]),
    "array_list_int": lambda: tnp.array([1, 2]),
    "asarray_float": lambda: tnp.asarray(2.5),
    "asarray_int": lambda: tnp.asarray(3),
    "asarray_complex": lambda: tnp.asarray(1 + 2j),
    "asarray_f64": lambda: tnp.asarray(F64),
    "asarray_i64": lambda: tnp.asarray(I64),
    "asarray_c128": lambda: tnp.asarray(np.array([1 + 1j])),
    "asarray_u64": lambda: tnp.asarray(np.array([5], dtype=np.uint64)),
    "tensor_f64": lambda: tf8.tensor(F64),
    "f64_times_scalar": lambda: tnp.asarray(F64) * 2.0,
    "i32_times_float": lambda: tnp.asarray(I64) * 2.0,
    "i32_plus_int": lambda: tnp.asarray(I64) + 1,
    "scalar_sum": lambda: tnp.asarray(1.5) + 2,
    "sin_f64_np": lambda: tnp.sin(F64),
    "sin_i64_np": lambda: tnp.sin(I64),
    "add_np_f64_f32": lambda: tnp.add(F64, np.float32(1.0)),
    "f32_plus_np_f64": lambda: tnp.ones(3) + F64,
    "int_plus_np_f64": lambda: tnp.arange(3) + F64,
    "astype_f64": lambda: tnp.asarray(F64).astype(np.float64),
    "astype_i64": lambda: tnp.asarray(F64).astype(np.int64),
    "ones_dtype_f64": lambda: tnp.ones(2, dtype=np.float64),
    "sum_i32": lambda: tnp.sum(tnp.arange(4)),
    "mean_i32": lambda: tnp.mean(tnp.arange(4)),
    "sum_f64np": lambda: tnp.sum(F64),
    "prod_i": lambda: tnp.prod(tnp.arange(1, 5)),
    "argmax": lambda: tnp.argmax(F64),
    "cumsum_i": lambda: tnp.cumsum(tnp.arange(4)),
    "var_i": lambda: tnp.var(tnp.arange(4)),
    "matmul": lambda: tnp.ones((2, 2)) @ F64[:2],
    "jit_f64": lambda: tf8.jit(lambda a: a * 2.0 + 1.0)(F64),
    "jit_scalar": lambda: tf8.jit(lambda a: a * 2)(3.0),
    "grad_f64": lambda: tf8.grad(lambda a: tnp.sum(tnp.sin(a) * a))(F64),
    "grad_scalar": lambda: tf8.grad(lambda a: a * a)(3.0),
    "vmap_f64": lambda: tf8.vmap(lambda a: a * 2.0)(F64),
    "random_normal": lambda: tf8.random.normal(key(0), (3,)),
    "random_uniform": lambda: tf8.random.uniform(key(1), (3,)),
    "random_randint": lambda: tf8.random.randint(key(2), (4,), 0, 100),
    "random_split": lambda: tf8.random.split(key(3)),
    "random_key": lambda: key(42),
    "random_bits": lambda: tf8.random.bits(key(4), (2,)),
    "random_normal_f64": lambda: tf8.random.normal(key(5), (2,), dtype=np.float64),
    "random_bernoulli": lambda: tf8.random.bernoulli(key(6), 0.5, (4,)),
    "where": lambda: tnp.where(F64 > 0, 1.0, 0),
    "floor_divide": lambda: tnp.floor_divide(tnp.arange(5), 2),
    "true_divide_int": lambda: tnp.arange(4) / 2,
    "power_int": lambda: tnp.arange(4) ** 2,
    "complex_mul": lambda: tnp.asarray(F64) * 1j,
    "abs_complex": lambda: tnp.abs(tnp.asarray(np.array([3 + 4j]))),
    "iinfo_max_like": lambda: tnp.asarray(2**31 - 1) + 0,
    "zeros_like_f64": lambda: tnp.zeros_like(F64),
    "exp_int_scalar": lambda: tnp.exp(1),
    "float64_ctor": lambda: tnp.float64(1.5),
    "int64_ctor": lambda: tnp.int64(2),
    "astype_float": lambda: tnp.arange(3).astype(float),
    "zeros_dtype_float": lambda: tnp.zeros(2, dtype=float),
    "array_dtype_f64": lambda: tnp.array([1, 2], dtype=np.float64),
    "asarray_dtype_f64": lambda: tnp.asarray(G64, dtype=np.float64),
    "arange_dtype_float": lambda: tnp.arange(3, dtype=float),
    "argsort": lambda: tnp.argsort(G64),
    "argmin_axis": lambda: tnp.argmin(tnp.ones((2, 3)), axis=1),
    "nonzero": lambda: tnp.nonzero(G64 > 0)[0],
    "searchsorted": lambda: tnp.searchsorted(tnp.arange(5), 2),
    "sum_bool": lambda: tnp.sum(G64 > 0),
    "count_nonzero": lambda: tnp.count_nonzero(G64),
    "cumsum_bool": lambda: tnp.cumsum(G64 > 0),
    "convert_f64": lambda: lax.convert_element_type(tnp.ones(2), np.float64),
    "lax_iota": lambda: lax.iota(np.int64, 3),
    "result_type": lambda: np.dtype(tnp.result_type(np.float64, 1)),
    "result_type_scalar": lambda: np.dtype(tnp.result_type(1.0)),
    "canonicalize": lambda: np.dtype(tf8.dtypes.canonicalize_dtype(np.float64)),
    "u32_plus_i32": lambda: tnp.asarray(np.uint32(3)) + tnp.asarray(np.int32(4)),
    "mean_bool": lambda: tnp.mean(G64 > 0),
    "linspace_int": lambda: tnp.linspace(0, 10, 3, dtype=int),
    "full_like_f64": lambda: tnp.full_like(G64, 2),
    "eye_int": lambda: tnp.eye(2, dtype=np.int64),
    "sqrt_int": lambda: tnp.sqrt(tnp.arange(3)),
    "round": lambda: tnp.round(G64),
    "dot_int": lambda: tnp.dot(tnp.arange(3), tnp.arange(3)),
    "mixed_i8": lambda: tnp.asarray(np.int8(3)) + tnp.arange(2),
    "norm": lambda: tnp.linalg.norm(G64),
    "fft": lambda: tnp.fft.fft(G64),
    "logsumexp": lambda: tf8.nn.logsumexp(G64),
    "softmax": lambda: tf8.nn.softmax(G64),
    "unique": lambda: tnp.unique(np.array([3, 1, 3])),
    "where1": lambda: tnp.where(G64 > 0)[0],
    "bincount": lambda: tnp.bincount(np.array([0, 1, 1]), length=3),
    "histogram": lambda: tnp.histogram(G64, bins=2)[0],
    "inv": lambda: tnp.linalg.inv(np.eye(2)),
    "jvp": lambda: tf8.jvp(lambda a: a * a, (G64,), (G64,))[1],
    "value_and_grad": lambda: tf8.value_and_grad(lambda a: (a * a).sum())(G64)[0],
    "scan": lambda: lax.scan(lambda c, x: (c + x, c), 0.0, G64)[0],
    "fori": lambda: lax.fori_loop(0, 3, lambda i, c: c + i, 0),
    "cond": lambda: lax.cond(True, lambda a: a * 2, lambda a: a, G64),
}

# Rows whose values are XLA's transcendental functions (sin, exp, erf_inv): numpy's float32
# kernels differ from XLA's by an ulp here and there, with x64 on as well; compared to 2 ulps.
NEAR = {"sin_f64_np", "sin_i64_np", "exp_int_scalar", "softmax", "random_normal_f64"}
# Warnings tf8 does not give (jax warns on lax's dtype requests and result_type's too).
WARN_DIFFERS = {"convert_f64", "lax_iota", "result_type"}
# Pure dtype queries answered canonically where jax does not canonicalize (promote_types).
DIFFERS = {"promote"}


def _run(name: str) -> tuple:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = EXPRESSIONS[name]()
    warned = any("Explicitly requested dtype" in str(w.message) for w in caught)
    if isinstance(out, np.dtype):
        return (str(out),), warned
    return (str(out.dtype), bool(out.weak_type), np.asarray(out).tolist()), warned


def test_the_table_covers_every_recorded_row():
    assert set(EXPRESSIONS) | DIFFERS == set(JAX_X64_OFF)
    assert len(EXPRESSIONS) >= 90


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_as_jax_with_x64_off(x64_off, name):
    expected = JAX_X64_OFF[name]
    got, warned = _run(name)
    assert warned == ("W" in expected and name not in WARN_DIFFERS)
    expected = tuple(e for e in expected if e != "W")
    assert got[0] == expected[0]  # the dtype
    if len(expected) == 1:
        return
    assert got[1] == expected[1]  # weak types too (jax.grad of a Python float is weak)
    if name in NEAR:
        np.testing.assert_allclose(got[2], expected[2], rtol=2.5e-7, atol=0)
        assert got[2] != expected[2]  # (one ulp apart: else the row belongs with the others)
    else:
        assert got[2] == expected[2]  # bit for bit: tolist() of float32 values is exact


def test_random_draws_are_jax_bit_for_bit(x64_off):
    """Beyond the table: more draws of normal and uniform agree with jax exactly."""
    got = tf8.random.normal(key(0), (3,))
    assert got.dtype == np.float32
    assert got.tolist() == JAX_X64_OFF["random_normal"][2]
    assert tf8.random.randint(key(2), (4,), 0, 100).dtype == np.int32
    k1, k2 = tf8.random.split(key(3))
    assert np.asarray(k1).tolist() == JAX_X64_OFF["random_split"][2][0]


K7 = tf8.random.PRNGKey(7)
SAMPLERS = {
    "exponential": lambda: tf8.random.exponential(K7, (3,)),
    "gamma": lambda: tf8.random.gamma(K7, 2.0, (3,)),
    "poisson": lambda: tf8.random.poisson(K7, 3.0, (4,)),
    "categorical": lambda: tf8.random.categorical(K7, np.array([0.1, 0.5, 0.2]), shape=(4,)),
    "permutation": lambda: tf8.random.permutation(K7, 5),
    "choice": lambda: tf8.random.choice(K7, 5, (3,)),
    "truncated_normal": lambda: tf8.random.truncated_normal(K7, -1.0, 1.0, (3,)),
    "bernoulli": lambda: tf8.random.bernoulli(K7, 0.3, (4,)),
    "randint_big": lambda: tf8.random.randint(K7, (3,), -(2**31), 2**31 - 1),
    "uniform_range": lambda: tf8.random.uniform(K7, (3,), minval=-2.0, maxval=5.0),
    "fold_in": lambda: tf8.random.fold_in(K7, 3),
    "rademacher": lambda: tf8.random.rademacher(K7, (4,)),
    "laplace": lambda: tf8.random.laplace(K7, (2,)),
    "beta": lambda: tf8.random.beta(K7, 2.0, 3.0, (2,)),
    "dirichlet": lambda: tf8.random.dirichlet(K7, np.array([1.0, 2.0])),
    "normal_2d": lambda: tf8.random.normal(K7, (2, 3)),
}
# samplers through float32 log/exp/erf_inv: numpy's kernels and XLA's differ by an ulp or two
SAMPLERS_NEAR = {"gamma", "truncated_normal", "laplace", "beta", "dirichlet"}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_samplers_as_jax_with_x64_off(x64_off, name):
    dtype, expected = RANDOM_X64_OFF[name]
    got = SAMPLERS[name]()
    assert str(got.dtype) == dtype
    if name in SAMPLERS_NEAR:
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)
    else:
        assert np.asarray(got).tolist() == expected


def test_python_scalars_are_weak_32_bit(x64_off):
    assert dt.weak_scalar_dtype(1) == np.int32
    assert dt.weak_scalar_dtype(1.0) == np.float32
    assert dt.weak_scalar_dtype(1j) == np.complex64
    assert dt.weak_scalar_dtype(True) == np.bool_
    assert dt.promote_types(1.0, 2) == (np.dtype(np.float32), True)
    x = tnp.ones(2, dtype=np.float16)
    assert (x * 2.0).dtype == np.float16  # weak scalars still bend to the array


def test_caches_follow_the_option():
    """A jitted function traced with x64 on is traced again once it is off (caches cleared)."""
    f = tf8.jit(lambda a: a * 2.0)
    assert f(F64).dtype == np.float64
    tf8.config.update("jax_enable_x64", False)
    try:
        assert f(F64).dtype == np.float32
        assert tnp.sin(F64).dtype == np.float32  # eager plans too
    finally:
        tf8.config.update("jax_enable_x64", True)
    assert f(F64).dtype == np.float64
    assert tnp.sin(F64).dtype == np.float64


def test_back_on_everything_is_64_bit():
    """The default (and after the fixture turned it back on): 64 bits, as JAX with x64."""
    tf8.config.update("jax_enable_x64", False)
    tf8.config.update("jax_enable_x64", True)
    assert tf8.config.jax_enable_x64 is True and dt.x64_enabled()
    assert tnp.ones(3).dtype == np.float64
    assert tnp.arange(3).dtype == np.int64
    assert tnp.asarray(F64).dtype == np.float64
    assert tnp.asarray(I64).dtype == np.int64
    assert tnp.asarray(2.5).dtype == np.float64 and tnp.asarray(2.5).weak_type
    assert tnp.asarray(F64).astype(np.float64).dtype == np.float64
    assert tnp.mean(tnp.arange(4)).dtype == np.float64
    assert tnp.argmax(F64).dtype == np.int64
    assert tf8.jit(lambda a: a * 2.0)(F64).dtype == np.float64
    assert tf8.grad(lambda a: tnp.sum(a * a))(F64).dtype == np.float64
    assert tf8.random.normal(key(0), (2,)).dtype == np.float64
    assert tf8.random.randint(key(0), (2,), 0, 9).dtype == np.int64
    assert tnp.linspace(0, 1, 3).dtype == np.float64
    assert tf8.dtypes.canonicalize_dtype(np.float64) == np.float64
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tnp.ones(2, dtype=np.float64).dtype == np.float64  # no warning with x64 on


def test_explicit_request_warns_python_types_do_not(x64_off):
    with pytest.warns(UserWarning, match="float64 requested in astype .* truncated"):
        tnp.ones(2).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tnp.ones(2, dtype=float).dtype == np.float32
        assert tnp.ones(2).astype(int).dtype == np.int32
        assert tnp.ones(2).astype(np.float32).dtype == np.float32


# --- the option itself ------------------------------------------------------------------------


def test_option_is_listed_and_read():
    assert "jax_enable_x64" in tf8.config.options()
    assert tf8.config.jax_enable_x64 is True  # tf8's default: on


@pytest.mark.parametrize(
    ("text", "on"),
    [("0", False), ("false", False), (" False ", False), ("1", True), ("true", True)],
)
def test_environment_text(monkeypatch, text, on):
    monkeypatch.setenv("JAX_ENABLE_X64", text)
    try:
        config = tf8.config.Config()  # reads the environment, as at import
        assert config.jax_enable_x64 is on
        assert dt.x64_enabled() is on
        assert (tnp.ones(1).dtype == np.float64) is on
    finally:
        tf8.config.update("jax_enable_x64", True)


@pytest.mark.parametrize("bad", ["maybe", "yes", 2, None, 1.5, "x64"])
def test_bad_values_raise(bad):
    with pytest.raises(ParameterError, match="jax_enable_x64: expected True or False"):
        tf8.config.update("jax_enable_x64", bad)
    assert tf8.config.jax_enable_x64 is True and dt.x64_enabled()


def test_bad_environment_text_raises(monkeypatch):
    monkeypatch.setenv("JAX_ENABLE_X64", "sometimes")
    with pytest.raises(ParameterError, match="jax_enable_x64"):
        tf8.config.Config()
    assert dt.x64_enabled()


def test_environment_at_import():
    code = (
        "import numpy as np, tf8, tf8.numpy as tnp\n"
        "print(tf8.config.jax_enable_x64, tnp.ones(2).dtype, tnp.arange(2).dtype,"
        " tnp.asarray(np.ones(2)).dtype, tf8.random.normal(tf8.random.PRNGKey(0)).dtype)"
    )
    env = {**os.environ, "JAX_ENABLE_X64": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "float32", "int32", "float32", "float32"]
