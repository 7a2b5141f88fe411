"""The elementwise lax functions added with the inverse hyperbolic functions: values against
numpy, scipy and Python references, derivatives to second order, vmap and jit, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special

import tf8
from tf8 import lax
from tf8.errors import DifferentiationError, DTypeError, ParameterError

RNG = np.random.default_rng(5)
ANALYTIC = {  # name: (reference, low, high)
    "asinh": (np.arcsinh, -30.0, 30.0),
    "acosh": (np.arccosh, 1.01, 30.0),
    "atanh": (np.arctanh, -0.99, 0.99),
    "cbrt": (np.cbrt, -30.0, 30.0),
    "erfc": (scipy.special.erfc, -5.0, 20.0),
    "exp2": (np.exp2, -14.0, 14.0),  # inside float16's range
    "reciprocal": (np.reciprocal, 0.5, 30.0),
}


@pytest.mark.parametrize("name", sorted(ANALYTIC))
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_analytic_functions_match_numpy(name, dtype):
    reference, low, high = ANALYTIC[name]
    x = RNG.uniform(low, high, (4, 5)).astype(dtype)
    got = getattr(lax, name)(x)
    assert got.dtype == np.dtype(dtype)
    tight = {np.float64: 1e-14, np.float32: 2e-6, np.float16: 2e-3}[dtype]
    if name == "exp2":  # JAX's exp(x ln 2), x and ln 2 in the operand's dtype
        ln2 = np.asarray(np.log(2.0), dtype)
        reference = lambda v: np.exp((v.astype(dtype) * ln2).astype(np.float64))  # noqa: E731
    np.testing.assert_allclose(got, reference(x.astype(np.float64)).astype(dtype), rtol=tight)


def test_special_values():
    inf, nan = np.inf, np.nan
    np.testing.assert_array_equal(lax.atanh(np.array([1.0, -1.0, 2.0])), [inf, -inf, nan])
    np.testing.assert_array_equal(lax.acosh(np.array([1.0, 0.5, inf])), [0.0, nan, inf])
    np.testing.assert_array_equal(lax.cbrt(np.array([-8.0, -0.0, inf, 27.0])), [-2.0, -0.0, inf, 3])
    assert np.signbit(lax.cbrt(-0.0))
    assert float(lax.erfc(20.0)) == pytest.approx(5.3958656116079e-176, rel=1e-12)  # not 1 - erf
    np.testing.assert_array_equal(lax.is_finite(np.array([0.0, inf, -inf, nan])), [1, 0, 0, 0])
    np.testing.assert_array_equal(lax.exp2(np.array([-inf, 0.0])), [0.0, 1.0])


def test_complex_inverse_hyperbolic_functions():
    z = RNG.uniform(-2.0, 2.0, 6) + 1j * RNG.uniform(-0.5, 0.5, 6)
    for name, reference in (("asinh", np.arcsinh), ("acosh", np.arccosh), ("atanh", np.arctanh)):
        np.testing.assert_allclose(getattr(lax, name)(z), reference(z), rtol=1e-13)
    np.testing.assert_allclose(lax.exp2(z), np.exp(z * math.log(2.0)), rtol=1e-14)


@pytest.mark.parametrize("name", sorted(ANALYTIC))
def test_derivatives_to_second_order(name):
    _, low, high = ANALYTIC[name]
    low, high = max(low, -3.0), min(high, 3.0)
    x = RNG.uniform(low, high, (2, 3))
    if name == "cbrt":
        x = np.where(np.abs(x) < 0.3, 0.5, x)  # its slope is infinite at 0
    tf8.check_grads(getattr(lax, name), [x], order=2)


def test_cbrt_derivative_at_zero_is_infinite_as_jax():
    assert float(tf8.grad(lax.cbrt)(0.0)) == np.inf
    assert float(tf8.grad(lax.cbrt)(8.0)) == pytest.approx(1.0 / 12.0, rel=1e-15)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.uint32])
def test_bit_counts_match_python(dtype):
    info = np.iinfo(dtype)
    x = np.concatenate([RNG.integers(info.min, info.max, 50, dtype=dtype, endpoint=True),
                        np.array([0, 1, info.min, info.max], dtype)])  # fmt: skip
    width = 8 * x.dtype.itemsize
    bits = [int(v) % (1 << width) for v in x.tolist()]
    count = lax.population_count(x)
    zeros = lax.clz(x)
    assert count.dtype == zeros.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(count, [bin(b).count("1") for b in bits])
    np.testing.assert_array_equal(zeros, [width - b.bit_length() for b in bits])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.uint32])
def test_mulhi_is_the_high_half_of_the_wide_product(dtype):
    info = np.iinfo(dtype)
    x, y = (np.concatenate([RNG.integers(info.min, info.max, 60, dtype=dtype, endpoint=True),
                            np.array([info.min, info.max, 0, -1 % (info.max + 1)], dtype)])
            for _ in range(2))  # fmt: skip
    width = 8 * x.dtype.itemsize
    expected = [(int(a) * int(b)) >> width for a, b in zip(x.tolist(), y.tolist())]
    got = lax.mulhi(x, y)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.array(expected, np.int64).astype(dtype))
    np.testing.assert_array_equal(tf8.jit(lax.mulhi)(x, y), got)


def test_nextafter_steps_one_ulp_and_has_no_derivative():
    x = np.array([1.0, 1.0, 0.0, -0.0, np.inf])
    y = np.array([2.0, 0.0, 1.0, -1.0, 0.0])
    np.testing.assert_array_equal(lax.nextafter(x, y), np.nextafter(x, y))
    f32 = lax.nextafter(np.float32(1.0), np.float32(2.0))
    assert f32.dtype == np.float32 and float(f32) == 1.0 + 2.0**-23
    with pytest.raises(DifferentiationError, match="nextafter"):
        tf8.grad(lambda v: lax.nextafter(v, 2.0))(1.0)
    with pytest.raises(DTypeError, match="nextafter"):
        lax.nextafter(np.array([1], np.int32), np.array([2], np.int32))


@pytest.mark.parametrize("narrow,bits", [(np.float32, (8, 23)), (np.float16, (5, 10))])
def test_reduce_precision_to_a_numpy_format_is_numpys_rounding(narrow, bits):
    """Inside the narrow format's normal range, rounding to it is numpy's cast (to nearest,
    ties to even); beyond it XLA's: ±inf above, ±0 below (no subnormals)."""
    info = np.finfo(narrow)
    signs = RNG.choice([-1.0, 1.0], 200)
    x = signs * RNG.uniform(1.0, 2.0, 200) * np.exp2(RNG.integers(-12, 12, 200))
    got = lax.reduce_precision(x, *bits)
    np.testing.assert_array_equal(got, x.astype(narrow).astype(np.float64))
    edges = np.array([float(info.max) * 4, -float(info.max) * 4, float(info.tiny) / 4, -1e-300])
    np.testing.assert_array_equal(lax.reduce_precision(edges, *bits), [np.inf, -np.inf, 0, -0.0])
    assert np.signbit(lax.reduce_precision(edges, *bits)[3])
    nan = lax.reduce_precision(np.array([np.nan, np.inf]), bits[0], 0)
    assert np.isnan(nan[0]) and nan[1] == np.inf


def test_reduce_precision_ties_go_to_even_and_bfloat16_keeps_float32_range():
    one = 1.0
    ulp = 2.0**-7  # bfloat16: 7 mantissa bits
    x = np.array([one + ulp / 2, one + 3 * ulp / 2, one + ulp / 2 + 2.0**-30, 1e38, 1e-37])
    got = lax.reduce_precision(x, 8, 7)
    np.testing.assert_array_equal(got[:3], [one, one + 2 * ulp, one + ulp])
    assert np.isfinite(got[3]) and got[4] != 0
    np.testing.assert_array_equal(lax.reduce_precision(x, 11, 52), x)  # float64's own format


def test_reduce_precision_is_linear_for_derivatives_as_jax():
    x = np.array([1.0 + 2.0**-20, 3.0])
    tangent = np.array([1.0 + 2.0**-12, 0.1])
    _, out = tf8.jvp(lambda v: lax.reduce_precision(v, 8, 7), (x,), (tangent,))
    np.testing.assert_array_equal(out, lax.reduce_precision(tangent, 8, 7))
    grad = tf8.grad(lambda v: (lax.reduce_precision(v, 8, 7) * tangent).sum())(x)
    np.testing.assert_array_equal(grad, lax.reduce_precision(tangent, 8, 7))
    with pytest.raises(ParameterError, match="exponent_bits"):
        lax.reduce_precision(x, 0, 7)
    with pytest.raises(ParameterError, match="mantissa_bits"):
        lax.reduce_precision(x, 8, -1)
    with pytest.raises(DTypeError, match="reduce_precision"):
        lax.reduce_precision(np.array([1, 2], np.int32), 8, 7)


def test_vmap_and_jit_match_eager():
    x = RNG.uniform(1.5, 3.0, (3, 4))
    for fn in (lax.asinh, lax.acosh, lax.cbrt, lax.erfc, lax.exp2, lax.is_finite,
               lambda v: lax.reduce_precision(v, 5, 10)):  # fmt: skip
        np.testing.assert_array_equal(tf8.vmap(fn)(x), np.stack([fn(r) for r in x]))
        np.testing.assert_array_equal(tf8.jit(fn)(x), fn(x))
    ints = RNG.integers(-1000, 1000, (3, 4)).astype(np.int32)
    for fn in (lax.population_count, lax.clz, lambda v: lax.mulhi(v, v)):
        np.testing.assert_array_equal(tf8.vmap(fn)(ints), np.stack([fn(r) for r in ints]))


def test_float_functions_refuse_integers_and_weak_scalars_stay_weak():
    ints = np.array([1, 2], np.int32)
    for fn in (lax.asinh, lax.acosh, lax.atanh, lax.cbrt, lax.erfc, lax.exp2, lax.is_finite):
        with pytest.raises(DTypeError):
            fn(ints)
    with pytest.raises(DTypeError, match="reciprocal|integer_pow"):
        lax.reciprocal(ints)
    with pytest.raises(DTypeError, match="population_count"):
        lax.population_count(np.array([1.0]))
    with pytest.raises(DTypeError, match="mulhi"):
        lax.mulhi(np.array([1.0]), np.array([2.0]))
    assert lax.exp2(1.5)._weak and lax.is_finite(1.5)._weak and not lax.exp2(np.ones(2))._weak
    assert lax.cbrt(np.float32(8.0)).dtype == np.float32
