"""einsum as an extension op: values against numpy, derivatives, one op in the program, errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp
from tf8.errors import ParameterError, ShapeError
from tf8.lax.einsum import einsum
from tf8.ops.extension.einsum import Einsum

CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii->", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->ij", [(3, 3, 2)]),
    ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (5, 3, 4)]),
    ("...ij,jk", [(5, 2, 3), (3, 4)]),
    ("i,i", [(3,), (3,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)]),
    ("i,i,i->", [(4,), (4,), (4,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,jk", [(2, 1), (3, 3)]),  # size-1 axes broadcast, as numpy
    ("...j,j", [(1, 3), (3,)]),
    ("i...,i...", [(2, 1), (2, 3)]),
]


@pytest.mark.parametrize("subscripts,shapes", CASES)
def test_einsum_matches_numpy_and_its_derivatives_check(subscripts, shapes):
    rng = np.random.default_rng(0)
    ops = [rng.standard_normal(s) for s in shapes]
    got = np.asarray(einsum(subscripts, *ops))
    expected = np.einsum(subscripts, *ops)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    tf8.check_grads(lambda *a: einsum(subscripts, *a), ops, order=2)


def test_einsum_complex_and_promotion():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    b = rng.standard_normal((4, 2)).astype(np.float32)
    got = np.asarray(einsum("ij,jk->ki", a, b))
    np.testing.assert_allclose(got, np.einsum("ij,jk->ki", a, b), rtol=1e-6)
    assert got.dtype == np.complex128
    c = rng.standard_normal((4, 2)) + 1j * rng.standard_normal((4, 2))
    tf8.check_grads(lambda x, y: einsum("ij,jk->ki", x, y), [a, c], order=1)


def test_einsum_records_one_op_with_a_path_chosen_once():
    a, b, c = np.ones((2, 3)), np.ones((3, 40)), np.ones((40, 5))
    ops = tf8.make_program(lambda x, y, z: einsum("ij,jk,kl->il", x, y, z))(a, b, c).ops
    assert len(ops) == 1 and isinstance(ops[0], Einsum)
    assert ops[0].payload[2] is not None  # the path is part of the op


def test_einsum_gradient_is_einsum():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    g = tf8.grad(lambda x: tf8.numpy.sum(einsum("ij,jk->ik", x, b)))(a)
    np.testing.assert_allclose(g, np.ones((2, 4)) @ b.T)


def test_einsum_mismatch_names_the_letter_and_sizes():
    with pytest.raises(ShapeError, match=r"subscript 'j' has size 3 .* size 4"):
        einsum("ij,jk->ik", np.ones((2, 3)), np.ones((4, 5)))
    with pytest.raises(ShapeError, match="'i'"):
        einsum("ii->i", np.ones((2, 3)))
    with pytest.raises(ShapeError, match="subscripts"):
        einsum("ij->i", np.ones(3))
    with pytest.raises(ParameterError):
        einsum("ij,jk->ik", np.ones((2, 3)))
    with pytest.raises(ParameterError):
        einsum("ij->iz", np.ones((2, 3)))


@given(seed=st.integers(0, 2**20))
def test_random_einsums_along_their_path_match_numpy(seed):
    """The kernel runs each pairwise step on tensordot where it can: any spec matches numpy."""
    rng = np.random.default_rng(seed)
    letters = "abcde"
    sizes = {c: int(rng.integers(1, 4)) for c in letters}
    inputs = [
        "".join(rng.choice(list(letters), size=int(rng.integers(0, 4))))
        for _ in range(int(rng.integers(1, 5)))
    ]
    present = sorted(set("".join(inputs)))
    output = "".join(c for c in present if rng.random() < 0.4)
    spec = ",".join(inputs) + "->" + output
    arrays = [rng.standard_normal([sizes[c] for c in s]) for s in inputs]
    np.testing.assert_allclose(
        np.asarray(tnp.einsum(spec, *arrays)), np.einsum(spec, *arrays), rtol=1e-10, atol=1e-12
    )
