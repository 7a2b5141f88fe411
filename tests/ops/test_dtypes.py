"""tf8's nine dtypes and numpy ≥ 2 (NEP 50) promotion: Python scalars are weak.

The promotion of every pair of tf8 dtypes, and of every dtype against every kind of Python
scalar, is compared with numpy's on the same operands, through `tf8.ops.dtypes.result_type`
and through the traced operators users write (`x + 1.5`). Dtypes are known at trace time,
so nothing here needs evaluating.
"""

from __future__ import annotations

import itertools
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


def _numpy_dtype(op, *operands):
    """numpy's result dtype on these operands, canonicalised to tf8's set (None if it refuses).

    bool ** bool is left out: numpy computes it in int8, tf8 refuses bool powers (as its
    `pow` row does)."""
    if op is operator.pow and all(np.asarray(v).dtype == np.bool_ for v in operands):
        return None
    try:
        with np.errstate(all="ignore"):
            return dt.canonical_dtype(np.asarray(op(*operands)).dtype)
    except (TypeError, ValueError):
        return None


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


@pytest.mark.parametrize(("a", "b"), list(itertools.combinations_with_replacement(DTYPES, 2)))
def test_array_pairs_promote_as_numpy(a, b):
    expected = dt.canonical_dtype(np.result_type(a, b))
    assert dt.result_type(a, b) == dt.result_type(b, a) == expected
    x, y = tf8.tensor(np.ones(2, a)), tf8.tensor(np.ones(2, b))
    for symbol, op in OPERATORS.items():
        want = _numpy_dtype(op, np.ones(2, a), np.ones(2, b))
        if want is not None:
            assert op(x, y).dtype == want, f"{a} {symbol} {b}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_python_scalars_are_weak(dtype, scalar):
    """float32 * 2.0 stays float32, int32 + 1.5 is float64, as numpy ≥ 2 computes."""
    array = np.ones(2, dtype)
    if dtype.kind == "u" and scalar == -2:  # numpy would compare it; tf8 refuses, as JAX does
        with pytest.raises(DTypeError, match="out of bounds"):
            dt.result_type(dtype, scalar)
        return
    assert dt.result_type(dtype, scalar) == dt.canonical_dtype(np.result_type(array, scalar))
    x = tf8.tensor(array)
    for symbol, op in OPERATORS.items():
        for operands, traced in (((array, scalar), (x, scalar)), ((scalar, array), (scalar, x))):
            want = _numpy_dtype(op, *operands)
            if want is not None:
                assert op(*traced).dtype == want, f"{operands[0]!r} {symbol} {operands[1]!r}"


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
    ],
)
def test_promotion_examples(dtype, scalar, expected):
    x = tf8.tensor(np.ones(3, dtype))
    assert (x * scalar).dtype == np.dtype(expected)
    assert np.asarray(x * scalar).dtype == np.dtype(expected)


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
    assert dt.float_dtype(dt.int32) == dt.float64 and dt.float_dtype(dt.float32) == dt.float32
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
    assert np.asarray(tnp.sin(np.arange(3, dtype=np.uint8))).dtype == np.float16  # as numpy
    assert np.asarray(tf8.lax.complex(x[:2], x[:2])).dtype == np.complex64
    assert dt.result_type(np.float16, 2.5) == np.float16  # weak scalars keep it
    assert dt.result_type(np.float16, np.float32) == np.float32


def test_linear_algebra_refuses_float16():
    with pytest.raises(DTypeError, match="cholesky: LAPACK has no float16"):
        tnp.linalg.cholesky(np.eye(2, dtype=np.float16))
