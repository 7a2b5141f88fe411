"""jacfwd / jacrev / hessian over pytrees, argnums tuples and has_aux (JAX's nesting)."""

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import DifferentiationError

RNG = np.random.default_rng(7)
PARAMS = {"a": RNG.standard_normal(2), "b": RNG.standard_normal((2, 3))}


def model(p):
    return {"u": tnp.sum(p["a"]) * tnp.sin(p["b"]), "v": p["a"] ** 3}


def _numeric_jacobian(f, x, eps=1e-6):
    """d f / d x by central differences: shape f(x).shape + x.shape."""
    x = np.asarray(x, dtype=float)
    cols = []
    for i in range(x.size):
        step = np.zeros(x.size)
        step[i] = eps
        step = step.reshape(x.shape)
        cols.append((np.asarray(f(x + step)) - np.asarray(f(x - step))) / (2 * eps))
    out_shape = np.asarray(f(x)).shape
    return np.stack(cols, axis=-1).reshape(out_shape + x.shape)


@pytest.mark.parametrize("jacobian", [tf8.jacfwd, tf8.jacrev], ids=["jacfwd", "jacrev"])
def test_pytree_in_pytree_out_structure_and_values(jacobian):
    jac = jacobian(model)(PARAMS)
    assert set(jac) == {"u", "v"} and set(jac["u"]) == {"a", "b"}
    assert jac["u"]["a"].shape == (2, 3, 2)
    assert jac["u"]["b"].shape == (2, 3, 2, 3)
    assert jac["v"]["b"].shape == (2, 2, 3)
    np.testing.assert_array_equal(jac["v"]["b"], 0.0)
    np.testing.assert_allclose(jac["v"]["a"], np.diag(3 * PARAMS["a"] ** 2), rtol=1e-12)
    numeric = _numeric_jacobian(lambda b: np.sum(PARAMS["a"]) * np.sin(b), PARAMS["b"])
    np.testing.assert_allclose(jac["u"]["b"], numeric, rtol=1e-6, atol=1e-8)


def test_jacfwd_equals_jacrev_on_pytrees():
    fwd, rev = tf8.jacfwd(model)(PARAMS), tf8.jacrev(model)(PARAMS)
    for a, b in zip(tf8.tree.tree_leaves(fwd), tf8.tree.tree_leaves(rev), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_argnums_tuple_gives_a_tuple_per_output():
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    jx, jy = tf8.jacrev(lambda x, y: x * tnp.exp(y), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(jx, np.diag(np.exp(y)))
    np.testing.assert_allclose(jy, np.diag(x * np.exp(y)))


def test_has_aux_and_hessian_of_a_dict():
    def loss(p):
        value = tnp.sum(p["a"] ** 2) * tnp.sum(p["b"])
        return value, {"value": value}

    hess, aux = tf8.hessian(loss, has_aux=True)(PARAMS)
    s = np.sum(PARAMS["b"])
    np.testing.assert_allclose(hess["a"]["a"], 2 * s * np.eye(2))
    np.testing.assert_allclose(
        hess["a"]["b"], np.broadcast_to(2 * PARAMS["a"][:, None, None], (2, 2, 3))
    )
    np.testing.assert_allclose(aux["value"], np.sum(PARAMS["a"] ** 2) * s)


def test_jacobian_of_an_integer_input_is_an_error():
    with pytest.raises(DifferentiationError, match="integer"):
        tf8.jacrev(lambda x: x * 2.0)(np.arange(3))
