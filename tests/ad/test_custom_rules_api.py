"""JAX's custom-rule API details (issue 15): defjvps, nondiff_argnums, keyword and pytree
arguments, None cotangents from bwd (JAX's clip_gradient example), non-array aux with
has_aux, and check_grads(modes=("rev",)) on a custom_vjp function."""

import functools

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import TreeStructureError


@tf8.custom_vjp
def clip_gradient(lo, hi, x):
    return x  # identity function


def clip_gradient_fwd(lo, hi, x):
    return x, (lo, hi)  # save bounds as residuals


def clip_gradient_bwd(res, g):
    lo, hi = res
    return (None, None, tnp.clip(g, lo, hi))  # None: zero cotangents for lo and hi


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)


def test_jax_clip_gradient_example():
    # JAX's documentation: the gradient through sin(x) * 3 is clipped to [-0.75, 0.75]
    grad = tf8.grad(lambda x: clip_gradient(-0.75, 0.75, tnp.sin(x) * 3.0))(0.1)
    assert grad == pytest.approx(0.75 * 3 * np.cos(0.1))
    assert tf8.grad(lambda x: clip_gradient(-0.75, 0.75, 0.2 * x))(0.1) == pytest.approx(0.15)
    # lo's own cotangent is the None (zero) plus what flows through x
    assert tf8.grad(lambda lo: clip_gradient(lo, 0.75, 3.0 * lo))(0.1) == pytest.approx(2.25)
    xs = np.array([0.1, 1.0, 2.0])
    batched = tf8.vmap(tf8.grad(lambda x: clip_gradient(-0.75, 0.75, 2.0 * x)))(xs)
    np.testing.assert_allclose(batched, [1.5, 1.5, 1.5])


def test_check_grads_reverse_mode_needs_no_jvp():
    @tf8.custom_vjp
    def square(x):
        return x**2

    square.defvjp(lambda x: (x**2, x), lambda x, g: (2 * x * g,))
    tf8.check_grads(square, (np.array([0.3, -0.5]),), order=1, modes=("rev",))
    tf8.check_grads(square, (np.array([0.3, -0.5]),), order=2, modes=("rev",))
    square.defvjp(lambda x: (x**2, x), lambda x, g: (3 * x * g,))  # a wrong rule is caught
    with pytest.raises(AssertionError, match="central differences"):
        tf8.check_grads(square, (np.array([0.3, -0.5]),), order=1, modes=("rev",))


def test_check_grads_takes_pytree_arguments_as_jax_does():
    params = {"w": np.array([[0.3, -0.2], [0.1, 0.4]]), "b": (np.array([0.1, -0.3]),)}

    def loss(p, x):
        return tnp.sum(tnp.tanh(x @ p["w"] + p["b"][0]) ** 2)

    x = np.array([[1.0, 2.0], [-0.5, 0.25]])
    tf8.check_grads(loss, (params, x), order=2, modes=("fwd", "rev"))

    @tf8.custom_vjp
    def scaled(p):
        return p["a"] * p["c"]

    scaled.defvjp(lambda p: (p["a"] * p["c"], p), lambda p, g: ({"a": g * p["c"], "c": g},))
    with pytest.raises(AssertionError, match="central differences"):  # d/dc is wrong
        tf8.check_grads(scaled, ({"a": np.array([2.0]), "c": np.array([3.0])},), 1, ("rev",))


def test_defjvps_and_keyword_arguments():
    @tf8.custom_jvp
    def f(x, y):
        return tnp.sin(x) * y

    f.defjvps(
        lambda x_dot, out, x, y: tnp.cos(x) * x_dot * y,
        lambda y_dot, out, x, y: tnp.sin(x) * y_dot,
    )
    gx, gy = tf8.grad(f, (0, 1))(2.0, 3.0)
    assert gx == pytest.approx(np.cos(2.0) * 3) and gy == pytest.approx(np.sin(2.0))
    assert float(f(2.0, y=3.0)) == pytest.approx(np.sin(2.0) * 3)
    assert tf8.grad(lambda a: f(x=a, y=3.0))(2.0) == pytest.approx(np.cos(2.0) * 3)
    tf8.check_grads(f, (np.array([0.5, 1.0]), np.array([2.0, -1.0])), order=2)

    @tf8.custom_jvp
    def only_x(x, y):
        return x * y

    only_x.defjvps(lambda t, out, x, y: t * y, None)  # y contributes nothing
    assert tf8.grad(only_x, 1)(2.0, 3.0) == 0.0


def test_nondiff_argnums():
    @functools.partial(tf8.custom_jvp, nondiff_argnums=(0,))
    def app(g, x):
        return g(x)

    @app.defjvp
    def app_jvp(g, primals, tangents):
        (x,), (t,) = primals, tangents
        return g(x), 3.0 * t

    assert tf8.grad(lambda x: app(tnp.sin, x))(1.0) == 3.0

    @functools.partial(tf8.custom_vjp, nondiff_argnums=(1,))
    def scale(p, k):
        return p["w"] * k

    scale.defvjp(lambda p, k: (scale(p, k), None), lambda k, res, g: ({"w": g * k * 10},))
    assert tf8.grad(lambda w: scale({"w": w}, 2.0))(1.0) == 20.0
    np.testing.assert_allclose(tf8.vmap(tf8.grad(lambda w: scale({"w": w}, 2.0)))(np.ones(3)), 20.0)


def test_pytree_arguments():
    @tf8.custom_jvp
    def energy(p):
        return p["a"] ** 2 + tnp.sum(p["b"][0])

    @energy.defjvp
    def energy_jvp(primals, tangents):
        (p,), (t,) = primals, tangents
        return energy(p), 2 * p["a"] * t["a"] + tnp.sum(t["b"][0])

    grad = tf8.grad(energy)({"a": 3.0, "b": (np.ones(2),)})
    assert grad["a"] == 6.0
    np.testing.assert_array_equal(grad["b"][0], [1.0, 1.0])

    @tf8.custom_vjp
    def dot(p):
        return tnp.sum(p[0] * p[1])

    dot.defvjp(lambda p: (dot(p), p), lambda p, g: ((g * p[1], None),))  # None inside a tree
    u, v = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    gu, gv = tf8.grad(dot)((u, v))
    np.testing.assert_array_equal(gu, v)
    np.testing.assert_array_equal(gv, 0.0)
    dot.defvjp(lambda p: (dot(p), p), lambda p, g: ((g * p[1],),))
    with pytest.raises(TreeStructureError, match="1 leaves, its argument 2"):
        tf8.grad(dot)((u, v))


def test_has_aux_with_non_array_aux():
    def f(x):
        return (x**2).sum(), {"name": "loss", "steps": 3, "rate": 0.5, "scaled": 2 * x}

    grad, aux = tf8.grad(f, has_aux=True)(np.ones(2))
    np.testing.assert_array_equal(grad, [2.0, 2.0])
    assert aux["name"] == "loss" and aux["steps"] == 3 and aux["rate"] == 0.5
    np.testing.assert_array_equal(aux["scaled"], [2.0, 2.0])
    (value, aux), _ = tf8.value_and_grad(f, has_aux=True)(np.ones(2))
    assert value == 2.0 and aux["name"] == "loss"
    assert tf8.vjp(f, np.ones(2), has_aux=True)[2]["steps"] == 3
    assert tf8.jacrev(f, has_aux=True)(np.ones(2))[1]["name"] == "loss"
    assert tf8.jacfwd(f, has_aux=True)(np.ones(2))[1]["rate"] == 0.5
