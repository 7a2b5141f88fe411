"""tf8.lax: JAX's lax names on the primitives, checked against numpy and under grad/jit."""

import numpy as np
import pytest

import tf8
import tf8.lax as lax
from tf8.errors import DTypeError, ParameterError, ShapeError


def test_dynamic_slice_takes_traced_starts_under_jit():
    x = np.arange(20.0).reshape(4, 5)

    @tf8.jit
    def f(x, i):
        return lax.dynamic_slice(x, (i, 1), (2, 3))

    for i in range(4):
        start = min(i, 2)  # clamped so the block fits, as in JAX
        np.testing.assert_array_equal(f(x, np.int64(i)), x[start : start + 2, 1:4])
    assert f.trace_count == 1


def test_dynamic_update_slice_and_its_gradient():
    x, u = np.zeros((4, 3)), np.ones((2, 3))
    out = lax.dynamic_update_slice(tf8.tensor(x), tf8.tensor(u), (1, 0))
    expected = x.copy()
    expected[1:3] = u
    np.testing.assert_array_equal(np.asarray(out), expected)
    g = tf8.grad(lambda u: lax.reduce_sum(lax.dynamic_update_slice(x, u, (3, 0)) ** 2, (0, 1)))
    np.testing.assert_allclose(g(u * 3.0), 2 * 3.0 * np.ones((2, 3)))


def test_dot_general_matches_einsum_and_differentiates():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 5))
    out = lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))))
    np.testing.assert_allclose(np.asarray(out), np.einsum("bij,bjk->bik", a, b))
    tf8.check_grads(lambda a: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))), (a,), order=2)


def test_elementwise_names_and_weak_scalars():
    x = np.linspace(0.1, 0.9, 5).astype(np.float32)
    assert lax.add(x, 1.0).dtype == np.float32  # a Python scalar is weakly typed
    np.testing.assert_allclose(np.asarray(lax.max(x, 0.5)), np.maximum(x, 0.5))
    np.testing.assert_allclose(np.asarray(lax.clamp(0.2, x, 0.6)), np.clip(x, 0.2, 0.6))
    np.testing.assert_array_equal(np.asarray(lax.lt(x, 0.5)), x < 0.5)
    np.testing.assert_allclose(np.asarray(lax.rsqrt(x)), 1 / np.sqrt(x), rtol=1e-6)
    assert lax.convert_element_type(x, np.float64).dtype == np.float64


def test_structural_names():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(lax.transpose(x, (1, 0))), x.T)
    np.testing.assert_array_equal(np.asarray(lax.reshape(x, (3, 2))), x.reshape(3, 2))
    np.testing.assert_array_equal(np.asarray(lax.rev(x, (1,))), x[:, ::-1])
    b = lax.broadcast_in_dim(np.arange(3.0), (2, 3), (1,))
    np.testing.assert_array_equal(np.asarray(b), np.broadcast_to(np.arange(3.0), (2, 3)))
    np.testing.assert_array_equal(
        np.asarray(lax.broadcasted_iota("int64", (2, 3), 1))[1], [0, 1, 2]
    )
    padded = lax.pad(np.ones(2), 0.0, [(1, 2, 1)])
    np.testing.assert_array_equal(np.asarray(padded), [0, 1, 0, 1, 0, 0])
    np.testing.assert_array_equal(np.asarray(lax.slice(x, (0, 1), (2, 3))), x[:, 1:3])
    np.testing.assert_array_equal(np.asarray(lax.concatenate([x, x], 0)), np.vstack([x, x]))


def test_lax_refuses_promotion_and_bad_dimension_numbers():
    with pytest.raises(DTypeError):
        lax.add(np.ones(2, np.float32), np.ones(2, np.float64))
    with pytest.raises(ShapeError):
        lax.add(np.ones(2), np.ones(3))
    with pytest.raises(ParameterError, match="dimension_numbers"):
        lax.dot_general(np.ones((2, 2)), np.ones((2, 2)), (1, 0))
    with pytest.raises(DTypeError, match="start indices"):
        lax.dynamic_slice(np.ones(3), (tf8.tensor(np.float64(1.0)),), (1,))


def test_lax_structure_edge_cases_follow_jax():
    """JAX's answers (0.10.2, x64): the identity of an empty max/min, bool reductions and
    contractions, refusals of a negative argmax axis, a 0-d cumsum and an out-of-range
    expand_dims, and preferred_element_type contracting in the wider dtype."""
    from tf8.errors import AxisError

    empty = np.zeros((0, 3))
    np.testing.assert_array_equal(np.asarray(lax.reduce_max(empty, (0,))), [-np.inf] * 3)
    lo = np.asarray(lax.reduce_min(np.zeros((0, 2), np.int32), (0,)))
    assert lo.dtype == np.int32 and (lo == np.iinfo(np.int32).max).all()
    b = np.array([[True, False], [False, False]])
    np.testing.assert_array_equal(np.asarray(lax.reduce_max(b, (0,))), [True, False])
    np.testing.assert_array_equal(np.asarray(lax.reduce_min(b, (1,))), [False, False])
    np.testing.assert_array_equal(np.asarray(lax.argmax(b, 1, "int32")), [0, 0])
    assert np.asarray(lax.dot(np.array([True, False]), np.array([True, True]))).item() is True
    for refused in (
        lambda: lax.argmax(np.ones((3, 4)), -1, "int32"),
        lambda: lax.cumsum(np.float64(1.0)),
        lambda: lax.expand_dims(np.ones((3, 4)), (5,)),
    ):
        with pytest.raises(AxisError):
            refused()
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(2, 3, 4)).astype(np.float32), rng.normal(size=(2, 4, 5))
    y = y.astype(np.float32)
    dims = (((2,), (1,)), ((0,), (0,)))
    out = lax.dot_general(x, y, dims, preferred_element_type=np.float64)
    exact = np.einsum("bij,bjk->bik", x.astype(np.float64), y.astype(np.float64))
    np.testing.assert_allclose(np.asarray(out), exact, rtol=1e-13)
    v = lax.dot(
        np.array([[1, 2], [3, 4]], np.int32),
        np.array([1, 1], np.int32),
        preferred_element_type="float32",
    )
    assert np.asarray(v).dtype == np.float32 and np.asarray(v).tolist() == [3.0, 7.0]


def test_lax_fft_strings_and_lengths():
    """lax.fft(x, 'FFT' | 'IFFT' | 'RFFT' | 'IRFFT', fft_lengths) against numpy's n-d fft."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 6))
    z = x + 1j * rng.normal(size=(2, 6))
    np.testing.assert_allclose(np.asarray(lax.fft(z, "FFT", (2, 6))), np.fft.fftn(z))
    np.testing.assert_allclose(np.asarray(lax.fft(z, "ifft", (6,))), np.fft.ifft(z))
    np.testing.assert_allclose(np.asarray(lax.fft(x, "RFFT", (2, 6))), np.fft.rfftn(x))
    back = lax.fft(np.fft.rfftn(x), "IRFFT", (2, 6))
    np.testing.assert_allclose(np.asarray(back), x, atol=1e-12)
    assert np.asarray(lax.fft(x.astype(np.float32), "RFFT", (6,))).dtype == np.complex64
    assert np.asarray(lax.fft(x, "FFT", (6,))).dtype == np.complex128
    with pytest.raises(tf8.errors.ShapeError):
        lax.fft(z, "FFT", (5,))


def test_convert_element_type_saturates_floats_into_integers():
    """XLA's convert (JAX 0.10.2): NaN gives 0 and out-of-range floats the nearest bound,
    where numpy's cast wraps; integer to integer still wraps."""
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.7, -2.7, 300.0, -1.0])
    expected = {
        "int32": [0, 2**31 - 1, -(2**31), 2**31 - 1, -(2**31), 2, -2, 300, -1],
        "uint8": [0, 255, 0, 255, 0, 2, 0, 255, 0],
        "int64": [0, 2**63 - 1, -(2**63), 3 * 10**9, -3 * 10**9, 2, -2, 300, -1],
    }
    for dtype, want in expected.items():
        for convert in (
            lax.convert_element_type,
            tf8.jit(lax.convert_element_type, static_argnums=1),
        ):
            out = np.asarray(convert(x, dtype))
            assert out.dtype == np.dtype(dtype) and out.tolist() == want
    assert np.asarray(lax.convert_element_type(np.array([300, -1]), "uint8")).tolist() == [44, 255]
