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
