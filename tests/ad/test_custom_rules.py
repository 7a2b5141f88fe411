"""stop_gradient, custom_jvp and custom_vjp: JAX's semantics, to higher order, and misuse."""

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import DifferentiationError, TreeStructureError

X = np.array([0.3, -1.2, 2.0])


def test_stop_gradient_blocks_derivative_but_keeps_value():
    f = lambda x: tnp.sum(tf8.stop_gradient(x) * x)  # noqa: E731
    np.testing.assert_allclose(tf8.grad(f)(X), X)  # d/dx (c * x) with c = x held constant
    np.testing.assert_allclose(tf8.jit(lambda x: tf8.stop_gradient(x) * 2)(X), 2 * X)


def test_stop_gradient_on_a_pytree():
    out = tf8.grad(lambda p: tnp.sum(tf8.stop_gradient(p)["a"] * p["a"] + p["b"]))({"a": X, "b": X})
    np.testing.assert_allclose(out["a"], X)
    np.testing.assert_allclose(out["b"], np.ones(3))


def _clipped_sin():
    @tf8.custom_jvp
    def f(x):
        return tnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), 3.0 * tnp.cos(x) * t  # deliberately 3x the true derivative

    return f


def test_custom_jvp_rule_used_in_both_modes():
    f = _clipped_sin()
    np.testing.assert_allclose(f(X), np.sin(X))
    _, t = tf8.jvp(f, (X,), (np.ones(3),))
    np.testing.assert_allclose(t, 3 * np.cos(X))
    np.testing.assert_allclose(tf8.grad(lambda x: tnp.sum(f(x)))(X), 3 * np.cos(X))


def test_custom_jvp_second_order_differentiates_the_rule():
    f = _clipped_sin()
    second = tf8.grad(tf8.grad(lambda x: f(x)))(0.7)
    np.testing.assert_allclose(second, -3 * np.sin(0.7))


def _scaled_vjp(bwd_factor=10.0):
    @tf8.custom_vjp
    def g(x):
        return tnp.sin(x)

    def g_fwd(x):
        return g(x), tnp.cos(x)

    def g_bwd(res, ct):
        return (ct * res * bwd_factor,)

    g.defvjp(g_fwd, g_bwd)
    return g


def test_custom_vjp_used_by_grad_and_jit_grad():
    g = _scaled_vjp()
    expected = 10 * np.cos(X)
    np.testing.assert_allclose(tf8.grad(lambda x: tnp.sum(g(x)))(X), expected)
    np.testing.assert_allclose(tf8.jit(tf8.grad(lambda x: tnp.sum(g(x))))(X), expected)
    np.testing.assert_allclose(g(X), np.sin(X))


def test_custom_vjp_second_order():
    g = _scaled_vjp()
    np.testing.assert_allclose(tf8.grad(tf8.grad(lambda x: g(x)))(1.0), -10 * np.sin(1.0))


def test_custom_vjp_bwd_with_wrong_structure_is_a_clear_error():
    @tf8.custom_vjp
    def g(x):
        return tnp.sin(x)

    g.defvjp(lambda x: (g(x), x), lambda res, ct: (ct, ct))
    with pytest.raises(TreeStructureError, match="2 cotangent.*1 argument"):
        tf8.grad(lambda x: tnp.sum(g(x)))(X)


def test_custom_vjp_forward_mode_is_refused():
    g = _scaled_vjp()
    with pytest.raises(DifferentiationError, match="forward mode"):
        tf8.jvp(g, (X,), (np.ones(3),))


def test_custom_functions_without_rules_are_errors():
    f = tf8.custom_jvp(lambda x: x)
    with pytest.raises(DifferentiationError, match="defjvp"):
        f(X)
    g = tf8.custom_vjp(lambda x: x)
    with pytest.raises(DifferentiationError, match="defvjp"):
        g(X)
