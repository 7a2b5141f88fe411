"""arctan2, logaddexp and logaddexp2 on complex operands, and logaddexp's derivatives at a tie,
checked against numbers JAX 0.10.2 (x64) computes."""

import numpy as np
import pytest
import scipy.special

import tf8
import tf8.numpy as tnp

Y = np.array([1 + 2j, -1 + 0.5j, 3 - 1j])
X = np.array([0.5 - 1j, 2 + 0j, 0j])
A = np.array([1 + 3j, -2 + 1j, 0.5 - 3j])
B = np.array([2 - 3j, -2 - 1j, 4 + 2j])


def test_arctan2_of_complex_operands_is_jaxs():
    expected = [1.9081667979066728 + 0.3790868723420225j, -0.4842544903299662 + 0.2005866181312345j]
    expected.append(1.5707963267948966 + 0j)
    for fn in (tnp.arctan2, tf8.jit(tnp.arctan2)):
        np.testing.assert_allclose(fn(Y, X), expected, rtol=1e-13)
    assert tnp.arctan2(Y.astype(np.complex64), X.astype(np.complex64)).dtype == np.complex64
    # d/dy arctan2(y, x) = x / (x² + y²), holomorphic (JAX's JVP, no conjugate)
    _, tangent = tf8.jvp(tnp.arctan2, (Y, X), (np.ones(3, complex), np.zeros(3, complex)))
    jax_tangent = [
        -0.2113821138211382 + 0.09756097560975609j,
        0.4031830238726791 + 0.0848806366047745j,
    ]
    np.testing.assert_allclose(tangent[:2], jax_tangent, rtol=1e-12)
    np.testing.assert_allclose(tangent, X / (X * X + Y * Y), rtol=1e-12)


def test_complex_logaddexp_is_jaxs_principal_branch():
    out = tnp.logaddexp(A, B)
    np.testing.assert_allclose(
        out,
        [
            2.305368718136678 - 3.075814483757404j,
            -1.922479289826069 + 0j,
            4.0089413699609615 + 2.0287031839286147j,
        ],
        rtol=1e-13,
    )
    np.testing.assert_allclose(np.exp(out), np.exp(A) + np.exp(B), rtol=1e-12)
    assert np.all(np.abs(np.imag(out)) <= np.pi)
    out2 = tf8.jit(tnp.logaddexp2)(A, B)
    np.testing.assert_allclose(
        out2,
        [
            1.7673566553853686 - 3.7550143353065284j,
            -1.378496371489632 + 0j,
            3.8744380919978783 + 2.044313982126515j,
        ],
        rtol=1e-13,
    )
    # d/da = exp(a - out) (JAX's JVP)
    _, tangent = tf8.jvp(tnp.logaddexp, (A, B), (np.ones(3, complex), np.zeros(3, complex)))
    np.testing.assert_allclose(tangent, np.exp(A - out), rtol=1e-12)


@pytest.mark.parametrize("name, expected", [("logaddexp", 0.25), ("logaddexp2", np.log(2) / 4)])
def test_logaddexp_second_derivative_at_a_tie(name, expected):
    # d²/dx² log(e^x + e^c) = p (1 - p), p = e^(x - out) = 1/2 at x = c (JAX: 0.25 and
    # 0.17328679513998632); a kink in max or |x - c| would give 0
    fn = getattr(tnp, name)
    second = tf8.grad(tf8.grad(lambda x: fn(x, 1.5)))(1.5)
    assert float(second) == pytest.approx(expected, rel=1e-12)


def test_python_bool_is_strong():
    # JAX: cos(True) and jit(cos)(True) are strong float32, so a float16 operand promotes to
    # float32 (a weak float32 would give float16)
    assert tf8.jit(tnp.log2)(True).dtype == np.float32
    half = np.ones(2, np.float16)
    assert tf8.jit(lambda b: tnp.cos(b) + half)(True).dtype == np.float32
    assert (tnp.cos(True) + tnp.asarray(half)).dtype == np.float32


def test_fmax_fmin_send_a_tie_to_x2():
    # JAX: where(x1 > x2 or isnan(x2), x1, x2), so a tie's derivative goes to x2
    x, y = np.array([2.0, 1.0, -0.0, 0.0, 5.5]), np.array([2.0, 3.0, 0.0, -0.0, -2.0])
    np.testing.assert_array_equal(tf8.grad(lambda a: tnp.fmax(a, y).sum())(x), [0, 0, 0, 0, 1])
    np.testing.assert_array_equal(tf8.grad(lambda a: tnp.fmin(a, y).sum())(x), [0, 1, 0, 0, 0])


def test_float_remainder_and_floor_divide_are_jaxs():
    a, b = np.array([5.5, -5.5, 0.0, -0.0, 7.0]), np.array([-2.0, 2.0, -1.0, 1.0, 0.0])
    rem = np.asarray(tnp.remainder(a, b))
    np.testing.assert_array_equal(rem, [-0.5, 0.5, 0.0, -0.0, np.nan])
    assert list(np.signbit(rem[2:4])) == [False, True]  # JAX: 0 % -1 = +0, -0 % 1 = -0
    quotient = np.asarray(tnp.floor_divide(a, b))
    np.testing.assert_array_equal(quotient, [-3.0, -3.0, -0.0, 0.0, np.inf])
    assert list(np.signbit(quotient[2:4])) == [True, False]
    q, m = tnp.divmod(a, b)
    np.testing.assert_array_equal(q, quotient)
    np.testing.assert_array_equal(m, rem)
    # d/dy (x mod y) = -trunc(x / y) + 1 where the sign is moved: 5.5 mod -2 (JAX: 3.0)
    assert float(tf8.grad(lambda q: tnp.remainder(5.5, q))(-2.0)) == 3.0
    # bools compute as int32, as JAX's promote_args_numeric
    assert tnp.floor_divide(np.array([True]), np.array([True])).dtype == np.int32
    assert tnp.left_shift(np.array([True]), np.array([True])).tolist() == [2]


def test_i0_and_its_derivative_at_zero():
    x = np.array([0.0, 1.5, -2.0])
    np.testing.assert_allclose(tnp.i0(x), scipy.special.i0(x), rtol=1e-14)
    np.testing.assert_allclose(tnp.i0(x), [1.0, 1.6467231897728904, 2.2795853023360673])
    assert float(tf8.grad(tnp.i0)(0.0)) == 0.0  # JAX's: 0 at 0
    assert float(tf8.grad(tnp.i0)(1.5)) == pytest.approx(scipy.special.i1(1.5), rel=1e-13)
    with pytest.raises(tf8.errors.DTypeError):
        tnp.i0(np.array([1j]))


def test_signs_of_zeros_and_slopes_at_zero():
    assert np.signbit(tnp.arcsinh(np.float64(-0.0)))  # JAX: -0
    assert float(tf8.grad(tnp.arcsinh)(0.0)) == 1.0  # 1/sqrt(1 + x²) at 0 (was 0)
    assert np.signbit(tnp.sign(np.array([-0.0]))[0])  # JAX's sign(-0.0) is -0.0
    # sinc'' at 0 = -pi²/3 (JAX: -3.2898681336964524), from its Maclaurin polynomial
    assert float(tf8.grad(tf8.grad(tnp.sinc))(0.0)) == pytest.approx(-(np.pi**2) / 3, rel=1e-14)
    assert float(tf8.grad(lambda u: tnp.hypot(u, 0.0))(0.0)) == 0.5  # JAX: 0.5, not NaN


def test_integer_and_bool_dtypes_are_jaxs():
    int32 = np.array([1, 2], np.int32)
    assert tnp.angle(int32).dtype == np.float64  # JAX: default float
    assert tnp.angle(np.float32(1)).dtype == np.float64
    assert tnp.rint(int32).dtype == np.float64
    np.testing.assert_array_equal(tnp.reciprocal(np.array([2], np.int32)), [0.5])
    assert tnp.reciprocal(np.array([2], np.int32)).dtype == np.float32
    assert tnp.square(np.array([True])).dtype == np.int32
    assert tnp.power(np.array([True]), 3).dtype == np.int32
    assert not tnp.power(2.0, int32)._weak  # JAX: weak_type False
    assert tnp.cumsum(int32).dtype == np.int32 and tnp.cumprod(int32).dtype == np.int32
    assert tnp.cumsum(np.array([True, True])).dtype == np.int64
    assert tnp.dot(np.array([True, False]), np.array([False, True])).tolist() is False
    assert tnp.convolve(int32, int32).dtype == np.float32
    with pytest.raises(tf8.errors.ParameterError):
        tnp.cumsum(int32, keepdims=True)


def test_weak_types_of_scalar_predicates_and_logs():
    # JAX 0.10 (x64): these functions of Python scalars are (not) weakly typed
    assert not tnp.log2(2.0)._weak and not tnp.log10(2)._weak
    assert not tnp.isinf(1.0)._weak and not tnp.signbit(1.0)._weak
    assert not tnp.isposinf(1.0)._weak and not tnp.nan_to_num(1.0)._weak
    assert tnp.isnan(3)._weak and tnp.isreal(1.5)._weak and tnp.iscomplex(2)._weak
    assert tnp.logical_and(True, 2.0)._weak and not tnp.logical_and(True, False)._weak
    assert not tnp.logical_or(np.array([True]), 2.0)._weak
    assert not tnp.imag(True)._weak
    with pytest.raises(tf8.errors.DTypeError):
        tnp.round(np.array([True]))


def test_inverse_hyperbolic_derivatives_at_the_domain_edges_are_jaxs_limits():
    # jax 0.10.2: grad(arccosh)(1.0) = inf, grad(arctanh)(1.0) = inf = grad(arctanh)(-1.0)
    assert float(tf8.grad(tnp.arccosh)(1.0)) == np.inf
    assert float(tf8.grad(tnp.arctanh)(1.0)) == np.inf == float(tf8.grad(tnp.arctanh)(-1.0))
    xs = np.array([-0.9, -1e-9, 0.0, 0.3, 0.99])
    np.testing.assert_allclose(tnp.arctanh(xs), np.arctanh(xs), rtol=1e-15)
    np.testing.assert_allclose(tf8.vmap(tf8.grad(tnp.arctanh))(xs), 1 / (1 - xs**2), rtol=1e-14)
    ys = np.array([1.0 + 1e-12, 1.5, 10.0, 1e9])
    np.testing.assert_allclose(tnp.arccosh(ys), np.arccosh(ys), rtol=1e-15)
    np.testing.assert_allclose(
        tf8.vmap(tf8.grad(tnp.arccosh))(ys), 1 / np.sqrt(ys**2 - 1), rtol=1e-9
    )


def test_cbrt_keeps_the_sign_of_zero_and_has_jaxs_infinite_slope_there():
    out = tnp.cbrt(np.array([-0.0, 0.0, -8.0, 27.0]))
    np.testing.assert_array_equal(out, [-0.0, 0.0, -2.0, 3.0])
    assert list(np.signbit(np.asarray(out))) == [True, False, True, False]
    grads = tf8.grad(lambda x: tnp.sum(tnp.cbrt(x)))(np.array([-0.0, 0.0, -8.0]))
    np.testing.assert_allclose(grads, [np.inf, np.inf, 1 / 12])  # jax: inf at both zeros


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("name", ["floor_divide", "remainder"])
def test_float_divmod_at_once_equals_its_traced_composition_bit_for_bit(name, dtype):
    # eager values take floor_divide/remainder in numpy at once; jit runs the op composition
    vals = np.array([1.5, -1.5, 0.0, -0.0, np.inf, -np.inf, np.nan, 3.0, -3.0, 1e-300, 7.0])
    a, b = (v.astype(dtype) for v in np.meshgrid(vals, vals))
    fn = getattr(tnp, name)
    eager, traced = np.asarray(fn(tnp.asarray(a), tnp.asarray(b))), np.asarray(tf8.jit(fn)(a, b))
    assert eager.dtype == traced.dtype == dtype
    np.testing.assert_array_equal(eager, traced)
    np.testing.assert_array_equal(np.signbit(eager), np.signbit(traced))
    assert fn(tnp.asarray(7.0), 2.0).weak_type and not fn(np.float32(7.0), 2.0).weak_type


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_at_once_equals_its_traced_composition_bit_for_bit(name, dtype):
    vals = np.array([1.5, -1.5, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, 700.0, -700.0, 88.0])
    a, b = (v.astype(dtype) for v in np.meshgrid(vals, vals))
    fn = getattr(tnp, name)
    eager, traced = np.asarray(fn(tnp.asarray(a), tnp.asarray(b))), np.asarray(tf8.jit(fn)(a, b))
    assert eager.dtype == traced.dtype == dtype
    np.testing.assert_array_equal(eager, traced)
    np.testing.assert_array_equal(np.signbit(eager), np.signbit(traced))
    assert fn(2.0, 3.0).weak_type == tf8.jit(fn)(2.0, 3.0).weak_type


def test_sinc_of_float32_is_computed_in_float64():
    """sinc'(x) = (cos(pi x) - sinc(x)) / x cancels near 0: float32 computes in float64 and
    rounds once (value and derivatives), keeping the result's dtype and weak type."""
    x = np.array([0.020389594, 0.7975, -0.2223], np.float32)
    wide = x.astype(np.float64)
    slope = (np.cos(np.pi * wide) - np.sinc(wide)) / wide
    found = tf8.grad(lambda v: tnp.sum(tnp.sinc(v)))(x)
    assert found.dtype == np.float32
    np.testing.assert_allclose(found, slope, rtol=1e-7)  # float32's own loses 5e-5 at 0.02
    assert tnp.sinc(x).dtype == np.float32 and not tnp.sinc(x).weak_type
    assert tnp.sinc(0.5).weak_type and tnp.sinc(0.5).dtype == np.float64
