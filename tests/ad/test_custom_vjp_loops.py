"""custom_vjp inside loops, and loops inside its bwd: the residuals are operands of the call's
tangent map, so a scan's transposed body reads each iteration's residuals and a second
derivative differentiates bwd's use of them (JAX's numbers, closed forms)."""

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import DifferentiationError

X = np.array([0.3, 1.2, -0.7])
W = np.array([0.5, -1.0, 2.0])


def _sin_with_cos_residual():
    @tf8.custom_vjp
    def f(x):
        return tnp.sin(x)

    f.defvjp(lambda x: (tnp.sin(x), tnp.cos(x)), lambda c, g: (c * g,))
    return f


def _thrice(f):
    """f applied three times by a scan: f(f(f(x)))."""
    return lambda x: lax.scan(lambda c, _: (f(c), None), x, None, length=3)[0]


def _sin_thrice_derivative(x):
    s1, s2 = np.sin(x), np.sin(np.sin(x))
    return np.cos(s2) * np.cos(s1) * np.cos(x)


@pytest.mark.parametrize("jit", [False, True])
def test_grad_through_a_custom_vjp_in_a_scan_reads_each_iterations_residual(jit):
    loop = _thrice(_sin_with_cos_residual())
    grad = tf8.jit(tf8.grad(loop)) if jit else tf8.grad(loop)
    x = np.array(0.3)
    np.testing.assert_allclose(grad(x), _sin_thrice_derivative(x), rtol=1e-13)  # jax: 0.87543739
    hessian = tf8.jit(tf8.grad(tf8.grad(loop))) if jit else tf8.grad(tf8.grad(loop))
    np.testing.assert_allclose(hessian(x), -0.7652481093311246, rtol=1e-12)  # jax's


def test_custom_gradient_in_a_scan_reads_each_iterations_closure():
    @tf8.custom_gradient
    def f(x):
        c = tnp.cos(x)
        return tnp.sin(x), lambda g: (c * g,)

    x = np.array(0.3)
    for grad in (tf8.grad(_thrice(f)), tf8.jit(tf8.grad(_thrice(f)))):
        np.testing.assert_allclose(grad(x), _sin_thrice_derivative(x), rtol=1e-13)


def _quartic(bwd_loop):
    """x**4 whose bwd computes 4 x**3 g by a loop that closes over the residual x."""

    @tf8.custom_vjp
    def quartic(x):
        return x**4

    def bwd_scan(x, g):
        p, _ = lax.scan(lambda p, _: (p * x, None), 4.0 * g, None, length=3)
        return (p,)

    def bwd_while(x, g):
        _, p = lax.while_loop(lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] * x), (0, 4.0 * g))
        return (p,)

    quartic.defvjp(lambda x: (x**4, x), bwd_scan if bwd_loop == "scan" else bwd_while)
    return quartic


def _loss(quartic):
    """sum(quartic(x) * W), with the call inside a scan too."""
    return lambda x: lax.scan(lambda c, _: (c, tnp.sum(quartic(x) * W)), 0.0, None, length=1)[1][0]


def _finite_difference_hessian(loss, x, eps=1e-5):
    grad = tf8.grad(loss)
    columns = []
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = eps
        columns.append((np.asarray(grad(x + e)) - np.asarray(grad(x - e))) / (2 * eps))
    return np.stack(columns, axis=1)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("second", ["hessian", "jacrev(jacrev)", "jacfwd(jacrev)"], ids=lambda s: s)
def test_hessian_of_a_custom_vjp_whose_bwd_scans_over_its_residual(second, jit):
    loss = _loss(_quartic("scan"))
    make = {
        "hessian": tf8.hessian,
        "jacrev(jacrev)": lambda f: tf8.jacrev(tf8.jacrev(f)),
        "jacfwd(jacrev)": lambda f: tf8.jacfwd(tf8.jacrev(f)),
    }[second]
    fun = tf8.jit(make(loss)) if jit else make(loss)
    got = np.asarray(fun(X))
    np.testing.assert_allclose(got, np.diag(12 * X**2 * W), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, _finite_difference_hessian(loss, X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("jit", [False, True])
def test_forward_over_reverse_through_a_bwd_while_loop(jit):
    loss = _loss(_quartic("while"))
    for make in (tf8.hessian, lambda f: tf8.jacfwd(tf8.jacrev(f))):
        fun = tf8.jit(make(loss)) if jit else make(loss)
        np.testing.assert_allclose(fun(X), np.diag(12 * X**2 * W), rtol=1e-12, atol=1e-14)
    # reverse over the bwd's while_loop: its trip count is unknown (JAX refuses too)
    with pytest.raises(DifferentiationError, match="while_loop"):
        tf8.jacrev(tf8.jacrev(loss))(X)
