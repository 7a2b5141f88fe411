"""tf8.numpy's dtype objects and type queries (issue 15): tnp.float32 is a dtype and a
constructor, as jnp.float32 is."""

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp

SCALAR_TYPES = [
    tnp.bool_,
    tnp.uint8,
    tnp.uint32,
    tnp.int32,
    tnp.int64,
    tnp.float32,
    tnp.float64,
    tnp.complex64,
    tnp.complex128,
]


@pytest.mark.parametrize("scalar_type", SCALAR_TYPES, ids=lambda t: t.dtype.name)
def test_scalar_type_builds_zero_d_array_and_is_the_dtype(scalar_type):
    value = scalar_type(1)
    assert isinstance(value, tnp.ndarray)
    assert value.shape == () and value.dtype == scalar_type.dtype
    assert np.dtype(scalar_type) == scalar_type.dtype
    assert value.dtype == scalar_type and scalar_type == value.dtype
    assert tnp.zeros(2, scalar_type).dtype == scalar_type.dtype
    assert np.zeros(2, scalar_type).dtype == scalar_type.dtype
    assert {scalar_type.dtype: "found"}[scalar_type] == "found"


def test_scalar_type_call_matches_numpy_and_converts_traced_values():
    assert float(tnp.float32(1.5)) == 1.5
    np.testing.assert_array_equal(tnp.int32([1.7, -2.2]), np.int32([1.7, -2.2]))
    out = tf8.jit(lambda x: tnp.int32(x) * 2)(np.array([1.5, 2.5]))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [2, 4])
    assert tf8.grad(lambda x: tnp.float64(x) ** 2)(3.0) == 6.0


def test_type_queries_are_numpys():
    assert tnp.finfo(tnp.float32).eps == np.finfo(np.float32).eps
    assert tnp.finfo(tnp.asarray(1.0).dtype).max == np.finfo(np.float64).max
    assert tnp.iinfo(tnp.int32).max == 2**31 - 1
    assert tnp.issubdtype(tnp.float32, tnp.floating)
    assert tnp.issubdtype(tnp.asarray([1]).dtype, tnp.integer)
    assert not tnp.issubdtype(tnp.complex64, tnp.floating)
    assert tnp.dtype("float32") == tnp.float32
    assert tnp.result_type(tnp.float32, 2.0) == np.float32
    assert tnp.result_type(tnp.int32, tnp.float64) == np.float64
    assert tnp.promote_types(tnp.int32, tnp.uint32) == np.int64
    assert isinstance(np.float32(1), tnp.float32) and not isinstance(1.0, tnp.float32)
    assert tnp.finfo is np.finfo and tnp.iinfo is np.iinfo and tnp.ndarray is tf8.TracedTensor


def test_dtype_objects_stay_out_of_numpys_dispatch_table():
    for name in ("float32", "dtype", "finfo", "ndarray", "issubdtype", "can_cast"):
        assert name not in tnp.__all__


def test_the_default_precision_is_64_bit():
    """A deliberate difference (README): tf8's defaults are numpy's 64-bit ones, as JAX's with
    jax_enable_x64 (JAX without it gives 32-bit)."""
    assert tnp.int_ is tnp.int64 and tnp.float_ is tnp.float64
    assert tnp.asarray(1.0).dtype == np.float64 and tnp.asarray(1).dtype == np.int64
    assert tnp.arange(3).dtype == np.int64 and tnp.zeros(2).dtype == np.float64
    assert tnp.fft.fftfreq(4).dtype == np.float64
    assert tf8.nn.one_hot(np.array([0, 2]), 3).dtype == np.float64
    assert tf8.random.normal(tf8.random.key(0), (2,)).dtype == np.float64
