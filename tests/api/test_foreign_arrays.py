"""Arrays of other libraries are accepted wherever a numpy array is: through `__array__`,
`__array_interface__`, a CPU `__dlpack__` or the buffer protocol (stub classes stand in for
JAX arrays and friends; the tests never need those libraries)."""

from __future__ import annotations

import array

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp


class WithArray:
    """Like a JAX array: numpy reads it through __array__."""

    def __init__(self, data):
        self._data = np.asarray(data)

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)


class WithInterface:
    """Only the array interface (a dict describing the memory)."""

    def __init__(self, data):
        self._data = np.ascontiguousarray(data)
        self.__array_interface__ = self._data.__array_interface__


class WithDLPack:
    """Only DLPack, as a CPU tensor of another framework."""

    def __init__(self, data):
        self._data = np.ascontiguousarray(data)

    def __dlpack__(self, *args, **kwargs):
        return self._data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()


DATA = np.array([0.5, 1.5, -2.0])
KINDS = {
    "__array__": lambda: WithArray(DATA),
    "__array_interface__": lambda: WithInterface(DATA),
    "__dlpack__": lambda: WithDLPack(DATA),
    "buffer (array.array)": lambda: array.array("d", DATA.tolist()),
    "buffer (memoryview)": lambda: memoryview(array.array("d", DATA.tolist())),
}


@pytest.mark.parametrize("kind", KINDS)
def test_a_foreign_array_is_accepted_everywhere(kind):
    make = KINDS[kind]
    f = lambda x: tnp.sum(tnp.sin(x) * x)  # noqa: E731
    expected = np.sum(np.sin(DATA) * DATA)
    np.testing.assert_allclose(float(f(tf8.tensor(make()))), expected)
    np.testing.assert_allclose(float(tnp.sum(tnp.sin(tnp.asarray(make())) * make())), expected)
    np.testing.assert_allclose(tf8.jit(f)(make()), expected)
    np.testing.assert_allclose(tf8.grad(f)(make()), np.cos(DATA) * DATA + np.sin(DATA))
    jitted = tf8.jit(f)
    jitted(make())
    jitted(make())
    assert jitted.trace_count == 1, "a foreign array is keyed by its shape and dtype"


def test_a_foreign_array_of_ints_keeps_its_dtype():
    out = tf8.jit(lambda x: x * 2)(array.array("q", [1, 2, 3]))
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [2, 4, 6])


def test_an_object_that_is_no_array_is_still_refused():
    with pytest.raises(tf8.errors.TracingError, match="is not an array"):
        tf8.jit(lambda x: x)(object())
