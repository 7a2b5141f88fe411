"""jax.numpy behaviours a ported program needs (#29): `isscalar` and einsum's sublist form,
against values recorded from jax 0.10.2 (x64)."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import ParameterError, UnsupportedOperationError

A = np.arange(6.0).reshape(2, 3)
B = np.arange(12.0).reshape(3, 4)


def test_isscalar_counts_zero_d_arrays_as_jax_does():
    # jax: True True False True True False True False
    cases = [2.0, tnp.asarray(2.0), np.ones(2), np.float32(1), "a", [1], np.array(3), None]
    assert [tnp.isscalar(c) for c in cases] == [True, True, False, True, True, False, True, False]
    seen = []
    tf8.jit(lambda x: seen.append(tnp.isscalar(x)) or x)(3.0)  # a traced 0-d value too
    assert seen == [True]


def test_einsum_sublist_form_matches_jax():
    out = tnp.einsum(A, [0, 1], B, [1, 2], [0, 2])
    np.testing.assert_array_equal(out, [[20.0, 23.0, 26.0, 29.0], [56.0, 68.0, 80.0, 92.0]])
    np.testing.assert_array_equal(tnp.einsum(A, [0, 1], B, [1, 2]), A @ B)  # implicit output
    np.testing.assert_array_equal(tnp.einsum(A, [Ellipsis, 1], [Ellipsis]), [3.0, 12.0])
    grad = tf8.grad(lambda a: tnp.einsum(a, [0, 1], B, [1, 2], [0, 2]).sum())(A)
    np.testing.assert_array_equal(grad, np.broadcast_to(B.sum(axis=1), (2, 3)))


def test_einsum_takes_jax_keywords():
    a32, b32 = A.astype(np.float32), B.astype(np.float32)
    out = tnp.einsum("ij,jk", a32, b32, preferred_element_type=np.float64)
    assert out.dtype == np.float64  # jax: float64
    np.testing.assert_array_equal(
        tnp.einsum("ij,jk", A, B, optimize="greedy", precision=None), A @ B
    )
    with pytest.raises(UnsupportedOperationError, match="out="):
        tnp.einsum("ij,jk", A, B, out=np.zeros((2, 4)))
    with pytest.raises(ParameterError, match="sublist"):
        tnp.einsum(A, [0, "x"], B, [1, 2])


@pytest.mark.parametrize(
    "name", ["sum", "prod", "max", "min", "mean", "std", "var", "argmax", "cumsum", "cumprod"]
)
def test_reductions_of_weak_values_are_strong_as_jax(name):
    fn = getattr(tnp, name)  # jax 0.10.2: jnp.<name>(0.75).weak_type is False, for each
    weak = tnp.asarray(0.75)
    assert weak.weak_type and not fn(weak).weak_type and weak.weak_type  # input unchanged
    assert not tf8.jit(fn)(0.75).weak_type
    assert not fn(tnp.asarray([0.5, 2.0])).weak_type
