"""tf8.lax.stop_gradient (JAX's lax.stop_gradient), the same function as tf8.stop_gradient."""

from __future__ import annotations

import numpy as np

import tf8
import tf8.numpy as tnp


def test_lax_stop_gradient_is_tf8s_and_blocks_every_transform():
    assert tf8.lax.stop_gradient is tf8.stop_gradient
    x = np.linspace(0.5, 2.0, 5)

    def f(v):
        return tnp.sum(v * tf8.lax.stop_gradient(v) ** 2)

    np.testing.assert_allclose(tf8.grad(f)(x), x**2)  # only the first factor differentiates
    np.testing.assert_allclose(tf8.jit(tf8.grad(f))(x), x**2)
    _, tangent = tf8.jvp(f, (x,), (np.ones_like(x),))
    np.testing.assert_allclose(tangent, np.sum(x**2))
    per_row = tf8.vmap(tf8.grad(f))(np.stack([x, 2 * x]))
    np.testing.assert_allclose(per_row, np.stack([x**2, 4 * x**2]))


def test_lax_stop_gradient_takes_pytrees_and_keeps_values():
    tree = {"a": np.arange(3.0), "b": (2.0, np.ones((2, 2)))}
    out = tf8.lax.stop_gradient(tree)
    assert set(out) == {"a", "b"} and len(out["b"]) == 2
    np.testing.assert_array_equal(np.asarray(out["a"]), tree["a"])
    assert float(out["b"][0]) == 2.0
    np.testing.assert_array_equal(np.asarray(out["b"][1]), np.ones((2, 2)))
