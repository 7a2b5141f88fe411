"""tf8's ten dtypes and JAX's promotion lattice: Python scalars are weak.

The promotion of every pair of tf8 dtypes and weak Python scalars is compared with a table
recorded from JAX 0.10.2 (x64 on), through `tf8.ops.dtypes.promote_types` and through the
traced operators users write (`x + 1.5`). Dtypes are known at trace time, so nothing here
needs evaluating. (tests/conformance checks the same lattice function by function.)
"""

from __future__ import annotations

import operator

import numpy as np
import pytest
import scipy.special

import tf8
import tf8.numpy as tnp
from tf8.errors import DTypeError
from tf8.ops import dtypes as dt

DTYPES = [np.dtype(t) for t in ("bool", "uint8", "uint32", "int32", "int64", "float16")] + [
    np.dtype("float32"),
    np.dtype("float64"),
    np.dtype("complex64"),
    np.dtype("complex128"),
]
SCALARS = [True, 3, -2, 1.5, 2j]
OPERATORS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "**": operator.pow,
    "<": operator.lt,
    "==": operator.eq,
}


# jax.dtypes.result_type(a, b, return_weak_type_flag=True), recorded from JAX 0.10.2 with x64:
# row a, column b, in the order of LATTICE_OPERANDS; "*" marks a weakly typed result, and
# dtypes are abbreviated (b bool, u8 uint8, i32 int32, f16 float16, c64 complex64, ...).
SHORT = {"b": "bool", "u8": "uint8", "u32": "uint32", "i32": "int32", "i64": "int64"}
SHORT |= {"f16": "float16", "f32": "float32", "f64": "float64", "c64": "complex64"}
SHORT |= {"c128": "complex128"}
LATTICE_OPERANDS = [str(d) for d in DTYPES] + ["py-bool", "py-int", "py-float", "py-complex"]
PY = {"py-bool": True, "py-int": 3, "py-float": 1.5, "py-complex": 2j}
JAX_LATTICE = {
    "bool": "b u8 u32 i32 i64 f16 f32 f64 c64 c128 b i64* f64* c128*",
    "uint8": "u8 u8 u32 i32 i64 f16 f32 f64 c64 c128 u8 u8 f64* c128*",
    "uint32": "u32 u32 u32 i64 i64 f16 f32 f64 c64 c128 u32 u32 f64* c128*",
    "int32": "i32 i32 i64 i32 i64 f16 f32 f64 c64 c128 i32 i32 f64* c128*",
    "int64": "i64 i64 i64 i64 i64 f16 f32 f64 c64 c128 i64 i64 f64* c128*",
    "float16": "f16 f16 f16 f16 f16 f16 f32 f64 c64 c128 f16 f16 f16 c64",
    "float32": "f32 f32 f32 f32 f32 f32 f32 f64 c64 c128 f32 f32 f32 c64",
    "float64": "f64 f64 f64 f64 f64 f64 f64 f64 c128 c128 f64 f64 f64 c128",
    "complex64": "c64 c64 c64 c64 c64 c64 c64 c128 c64 c128 c64 c64 c64 c64",
    "complex128": "c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128",
    "py-bool": "b u8 u32 i32 i64 f16 f32 f64 c64 c128 b i64* f64* c128*",
    "py-int": "i64* u8 u32 i32 i64 f16 f32 f64 c64 c128 i64* i64* f64* c128*",
    "py-float": "f64* f64* f64* f64* f64* f16 f32 f64 c64 c128 f64* f64* f64* c128*",
    "py-complex": "c128* c128* c128* c128* c128* c64 c64 c128 c64 c128 c128* c128* c128* c128*",
}  # fmt: skip


def _operand(name: str):
    return PY[name] if name in PY else np.dtype(name)


def _value(name: str):
    return PY[name] if name in PY else tf8.tensor(np.ones(2, name))


def test_the_ten_dtypes():
    assert dt.DTYPES == tuple(DTYPES)
    assert set(dt.NUMERIC) == set(DTYPES) - {dt.bool_}
    assert tnp.float32 == np.float32 and tnp.complex128 == np.complex128 and tnp.bool == np.bool_


@pytest.mark.parametrize(
    "name",
    ["bool", "uint8", "uint32", "int32", "int64", "float16", "float32", "float64", "complex64"],
)
def test_as_dtype_takes_names_types_and_dtypes(name):
    assert dt.as_dtype(name) == dt.as_dtype(np.dtype(name)) == dt.as_dtype(np.dtype(name).type)


@pytest.mark.parametrize("bad", ["uint16", "int8", np.longdouble, "U3", object, "nope"])
def test_as_dtype_refuses_what_tf8_does_not_have(bad):
    with pytest.raises(DTypeError, match=r"(not supported|not a dtype).*float64"):
        dt.as_dtype(bad)


@pytest.mark.parametrize(
    ("incoming", "canonical"),
    [
        ("uint8", "uint8"),
        ("int8", "int64"),
        ("int16", "int64"),
        ("uint16", "int64"),
        ("uint32", "uint32"),
        ("float16", "float16"),
        ("float32", "float32"),
        ("complex64", "complex64"),
    ],
)
def test_canonical_dtype_widens_numpy_dtypes_as_jax_does(incoming, canonical):
    assert dt.canonical_dtype(np.dtype(incoming)) == np.dtype(canonical)
    leaf = tf8.tensor(np.ones(2, incoming))
    assert leaf.dtype == np.dtype(canonical)
    assert np.asarray(leaf).dtype == np.dtype(canonical)


@pytest.mark.parametrize("bad", [np.longdouble, np.clongdouble, "U2", "M8[s]", object])
def test_canonical_dtype_refuses_the_rest(bad):
    with pytest.raises(DTypeError, match=r"not supported"):
        tf8.tensor(np.zeros(2, dtype=bad))


@pytest.mark.parametrize(
    ("value", "dtype"), [(True, "bool"), (3, "int64"), (1.5, "float64"), (2j, "complex128")]
)
def test_lone_python_scalars_take_the_default_x64_dtypes(value, dtype):
    assert dt.result_type(value) == np.dtype(dtype)
    assert tf8.tensor(value).dtype == np.dtype(dtype)
    assert tnp.add(value, value).dtype == np.add(value, value).dtype


@pytest.mark.parametrize("a", LATTICE_OPERANDS)
def test_every_pair_promotes_as_jax_does(a):
    for b, cell in zip(LATTICE_OPERANDS, JAX_LATTICE[a].split()):
        want, weak = np.dtype(SHORT[cell.rstrip("*")]), cell.endswith("*")
        assert dt.promote_types(_operand(a), _operand(b)) == (want, weak), f"{a} with {b}"
        if a in PY and b in PY:
            continue
        for symbol in ("+", "*", "-"):  # what users write; bool - bool is refused, as in JAX
            if symbol == "-" and want == np.bool_:
                continue
            out = OPERATORS[symbol](_value(a), _value(b))
            assert out.dtype == want, f"{a} {symbol} {b}: {out.dtype}, JAX {want}"
            assert out._weak == weak, f"{a} {symbol} {b}: weak {out._weak}, JAX {weak}"


@pytest.mark.parametrize(
    ("dtype", "scalar", "expected"),
    [
        ("float32", 2.0, "float32"),
        ("float32", 3, "float32"),
        ("float32", 1j, "complex64"),
        ("int32", 1, "int32"),
        ("int32", 1.5, "float64"),
        ("int32", 1j, "complex128"),
        ("bool", 1, "int64"),
        ("bool", True, "bool"),
        ("complex64", 2.5, "complex64"),
        ("uint8", 1.5, "float64"),
    ],
)
def test_promotion_examples(dtype, scalar, expected):
    x = tf8.tensor(np.ones(3, dtype))
    assert (x * scalar).dtype == np.dtype(expected)
    assert np.asarray(x * scalar).dtype == np.dtype(expected)


def test_mixed_widths_join_on_jax_lattice_not_numpys():
    i32, f32 = tf8.tensor(np.ones(2, np.int32)), tf8.tensor(np.ones(2, np.float32))
    assert (i32 + f32).dtype == np.float32  # numpy: float64
    assert tnp.sin(i32).dtype == np.float32  # numpy: float64
    assert tnp.sin(np.arange(3, dtype=np.uint8)).dtype == np.float32  # numpy: float16
    assert tnp.sin(np.arange(3)).dtype == np.float64  # int64 → float64
    assert (tf8.tensor(np.ones(2, np.int64)) + np.ones(2, np.float16)).dtype == np.float16
    assert (tf8.tensor(np.ones(2, np.uint32)) + np.ones(2, np.int32)).dtype == np.int64
    assert (tnp.exp(2.0) * f32).dtype == np.float32  # a function of a Python scalar stays weak


def test_out_of_range_python_int_is_a_dtype_error_naming_both():
    x = tf8.tensor(np.ones(2, np.int32))
    with pytest.raises(DTypeError, match=r"Python integer 1099511627776 .*int32"):
        x + 2**40
    with pytest.raises(DTypeError, match=r"out of bounds for int64"):
        tnp.add(2**70, 1)
    assert (tf8.tensor(np.ones(2)) + 2**70).dtype == np.float64  # fine as a float


def test_dtype_helpers():
    assert dt.real_dtype(dt.complex64) == dt.float32 and dt.real_dtype(dt.int32) == dt.int32
    assert dt.complex_dtype(dt.float32) == dt.complex64
    assert dt.complex_dtype(dt.int32) == dt.complex128
    assert dt.float_dtype(dt.int32) == dt.float32 and dt.float_dtype(dt.int64) == dt.float64
    assert dt.float_dtype(dt.float32) == dt.float32 and dt.float_dtype(dt.uint8) == dt.float32
    assert [d for d in DTYPES if dt.is_inexact(d)] == list(dt.INEXACT)


def test_float16_stays_float16_through_kernels_jit_and_reductions():
    """scipy.special has no float16 loops (it answers in float32/64); tf8 rounds back, as JAX."""
    x = np.linspace(-0.9, 0.9, 70_000).astype(np.float16)  # large enough for jit's regions
    for fn in (tnp.sin, tnp.exp, tf8.lax.erf, tf8.lax.erf_inv, tf8.lax.logistic, tnp.cumsum):
        for run in (fn, tf8.jit(fn)):
            out = np.asarray(run(x))
            assert out.dtype == np.float16, fn
    np.testing.assert_array_equal(
        np.asarray(tf8.lax.erf_inv(x)), scipy.special.erfinv(x).astype(np.float16)
    )
    assert np.asarray(tnp.mean(x)).dtype == np.float16
    np.testing.assert_array_equal(np.asarray(tnp.mean(x[:300])), np.mean(x[:300]))  # f32 sum
    assert np.asarray(tnp.sin(np.arange(3, dtype=np.uint8))).dtype == np.float32  # as JAX
    assert np.asarray(tf8.lax.complex(x[:2], x[:2])).dtype == np.complex64
    assert dt.result_type(np.float16, 2.5) == np.float16  # weak scalars keep it
    assert dt.result_type(np.float16, np.float32) == np.float32


def test_linear_algebra_refuses_float16():
    with pytest.raises(DTypeError, match="cholesky: LAPACK has no float16"):
        tnp.linalg.cholesky(np.eye(2, dtype=np.float16))
