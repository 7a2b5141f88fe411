"""tf8.flatten_util.ravel_pytree against jax.flatten_util.ravel_pytree (expected values recorded
by hand from jax 0.10.2 with JAX_ENABLE_X64=1; tf8's default dtypes are 64-bit)."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import tree
from tf8.errors import DTypeError, ShapeError
from tf8.flatten_util import ravel_pytree

Pair = namedtuple("Pair", "a b")

# (pytree, flat values, flat dtype, leaf dtypes after unravel): from jax 0.10.2
CASES = [
    (
        {"a": np.ones((2, 2), np.float32), "b": np.arange(3, dtype=np.int32)},
        [1, 1, 1, 1, 0, 1, 2],
        np.float32,
        [np.float32, np.int32],
    ),
    ([1, 2.5], [1.0, 2.5], np.float64, [np.int64, np.float64]),
    ({"x": np.float32(1), "y": 2}, [1.0, 2.0], np.float32, [np.float32, np.int64]),
    ([np.array([1, 2], np.int64), True], [1, 2, 1], np.int64, [np.int64, np.bool_]),
    ([np.zeros(2, np.float32), 1j], [0, 0, 1j], np.complex128, [np.float32, np.complex128]),
    ((np.zeros((0,)),), [], np.float64, [np.float64]),
    ([], [], np.float32, []),
]


@pytest.mark.parametrize(("pytree", "values", "dtype", "leaf_dtypes"), CASES)
def test_values_and_dtypes_as_jax(pytree: Any, values: list, dtype: Any, leaf_dtypes: list) -> None:
    flat, unravel = ravel_pytree(pytree)
    assert flat.dtype == dtype and flat.shape == (len(values),)
    np.testing.assert_array_equal(np.asarray(flat), np.asarray(values, dtype))
    back = unravel(flat)
    assert tree.structure(back) == tree.structure(pytree)
    for got, orig, want_dtype in zip(tree.leaves(back), tree.leaves(pytree), leaf_dtypes):
        assert got.dtype == want_dtype and got.shape == np.shape(orig)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(orig))


def test_unravel_checks_dtype_and_length() -> None:
    _, mixed = ravel_pytree([np.ones(2, np.float32), np.arange(2)])
    with pytest.raises(DTypeError, match="expected dtype float32"):
        mixed(np.ones(4, np.float64))
    _, single = ravel_pytree([np.ones(2, np.float32)])
    assert single(np.ones(2, np.float64))[0].dtype == np.float64  # one dtype: polymorphic (jax)
    with pytest.raises(ShapeError, match=r"expected a vector of shape \(2,\)"):
        single(np.ones(3, np.float32))


def test_unravel_is_hashable_by_content() -> None:
    _, u1 = ravel_pytree({"a": np.ones(2), "b": Pair(1.0, np.zeros((2, 1)))})
    _, u2 = ravel_pytree({"a": np.zeros(2), "b": Pair(5.0, np.ones((2, 1)))})
    _, u3 = ravel_pytree({"a": np.zeros(3), "b": Pair(5.0, np.ones((2, 1)))})
    assert u1 == u2 and hash(u1) == hash(u2) and u1 != u3


def test_grad_through_ravel_and_unravel() -> None:
    params = {"w": np.arange(4.0).reshape(2, 2), "b": np.array([1.0, -1.0])}

    def loss(p: Any) -> Any:
        flat, _ = ravel_pytree(p)
        return tnp.sum(flat**2)

    g = tf8.grad(loss)(params)
    np.testing.assert_allclose(np.asarray(g["w"]), 2 * params["w"])
    np.testing.assert_allclose(np.asarray(g["b"]), 2 * params["b"])

    flat0, unravel = ravel_pytree(params)

    def loss_flat(flat: Any) -> Any:
        p = unravel(flat)
        return tnp.sum(p["w"] @ p["b"])

    # d/dflat of sum(w @ b): flat is [b0, b1, w00, w01, w10, w11]
    w, b = params["w"], params["b"]
    want = np.concatenate([w.sum(axis=0), np.outer(np.ones(2), b).ravel()])
    np.testing.assert_allclose(np.asarray(tf8.grad(loss_flat)(flat0)), want)


def test_under_jit_and_vmap() -> None:
    params = {"w": np.ones((2, 3), np.float32), "n": np.arange(2)}

    @tf8.jit
    def roundtrip(p: Any) -> Any:
        flat, unravel = ravel_pytree(p)
        return flat, unravel(flat * 2)

    flat, back = roundtrip(params)
    assert flat.dtype == np.float32 and flat.shape == (8,)
    np.testing.assert_array_equal(np.asarray(back["n"]), [0, 2])
    assert back["n"].dtype == np.int64 and back["w"].shape == (2, 3)

    batch = {"a": np.arange(6.0).reshape(3, 2), "b": np.arange(3.0)}
    flats = tf8.vmap(lambda p: ravel_pytree(p)[0])(batch)
    np.testing.assert_array_equal(np.asarray(flats), [[0, 1, 0], [2, 3, 1], [4, 5, 2]])
