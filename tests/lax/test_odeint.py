"""odeint: values against scipy.integrate.odeint, adjoint gradients against central
differences, jit, pytree states, closures and input errors."""

import numpy as np
import pytest
import scipy.integrate

import tf8
import tf8.numpy as tnp
from tf8.errors import DTypeError, ShapeError, TreeStructureError
from tf8.experimental.ode import odeint

# Global error after a few steps at rtol = atol = 1.4e-8 stays well under 1e-6.
TOL = {"rtol": 1e-6, "atol": 1e-6}


def decay(y, t, k):
    return -k * y


def oscillator(y, t, w, c):
    """A damped oscillator, y = (position, velocity)."""
    return tnp.stack([y[1], -w * w * y[0] - c * y[1]])


def lotka_volterra(y, t, params):
    a, b, c, d = params[0], params[1], params[2], params[3]
    return tnp.stack([a * y[0] - b * y[0] * y[1], d * y[0] * y[1] - c * y[1]])


def scipy_reference(func, y0, ts, *args):
    """scipy's LSODA at tight tolerances, on numpy (func written with tnp stays numpy-able)."""

    def numpy_func(y, t, *a):
        return np.asarray(func(y, t, *a), dtype=float)

    return scipy.integrate.odeint(numpy_func, y0, ts, args=args, rtol=1e-12, atol=1e-12)


def central_differences(loss, args, eps=1e-6):
    """d loss / d args by central differences, one scalar entry at a time."""
    grads = []
    for i, arg in enumerate(args):
        arg = np.asarray(arg, dtype=float)
        grad = np.zeros_like(arg)
        for index in np.ndindex(arg.shape):
            step = np.zeros_like(arg)
            step[index] = eps
            plus = [a if j != i else arg + step for j, a in enumerate(args)]
            minus = [a if j != i else arg - step for j, a in enumerate(args)]
            grad[index] = (float(loss(*plus)) - float(loss(*minus))) / (2 * eps)
        grads.append(grad)
    return grads


TS = np.linspace(0.0, 2.0, 5)
CASES = [
    (decay, np.array([1.0, -2.0, 0.5]), (0.7,)),
    (oscillator, np.array([1.0, 0.0]), (2.0, 0.3)),
    (lotka_volterra, np.array([1.0, 0.5]), (np.array([1.1, 0.4, 0.4, 0.1]),)),
]


@pytest.mark.parametrize("func,y0,args", CASES, ids=["decay", "oscillator", "lotka_volterra"])
def test_values_match_scipy(func, y0, args):
    got = odeint(func, y0, TS, *args)
    assert got.shape == (len(TS), len(y0))
    np.testing.assert_allclose(np.asarray(got), scipy_reference(func, y0, TS, *args), **TOL)


def test_decay_matches_the_exact_solution():
    ts = np.linspace(0.0, 5.0, 11)
    got = np.asarray(odeint(decay, np.array([1.0, 3.0]), ts, 0.9))
    np.testing.assert_allclose(got, np.exp(-0.9 * ts)[:, None] * [1.0, 3.0], rtol=1e-7)


@pytest.mark.parametrize("func,y0,args", CASES, ids=["decay", "oscillator", "lotka_volterra"])
def test_gradients_match_central_differences(func, y0, args):
    weights = np.random.default_rng(0).normal(size=(len(TS), len(y0)))

    def loss(y0, ts, *args):
        return (odeint(func, y0, ts, *args) * weights).sum()

    argnums = tuple(range(2 + len(args)))
    got = tf8.grad(loss, argnums)(y0, TS, *args)
    expected = central_differences(loss, [y0, TS, *args])
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-5, atol=1e-5)


def test_jit_values_and_gradients():
    def final(y0, w):
        return odeint(oscillator, y0, TS, w, 0.3)[-1, 0]

    y0 = np.array([1.0, 0.0])
    np.testing.assert_allclose(tf8.jit(final)(y0, 2.0), final(y0, 2.0), rtol=1e-12)
    got = tf8.jit(tf8.grad(final, (0, 1)))(y0, 2.0)
    for g, e in zip(got, tf8.grad(final, (0, 1))(y0, 2.0)):
        np.testing.assert_allclose(g, e, rtol=1e-10)


def test_pytree_state():
    def func(state, t, w):
        return {"x": state["v"][0], "v": (-w * w * state["x"], -state["v"][1])}

    state = {"x": np.array([1.0, 0.5]), "v": (np.array([0.0, 0.1]), np.array(2.0))}
    out = odeint(func, state, TS, 2.0)
    assert out["x"].shape == (len(TS), 2) and out["v"][1].shape == (len(TS),)
    np.testing.assert_allclose(np.asarray(out["v"][1]), 2.0 * np.exp(-TS), **TOL)
    g = tf8.grad(lambda w: odeint(func, state, TS, w)["x"][-1].sum())(2.0)
    (fd,) = central_differences(lambda w: odeint(func, state, TS, w)["x"][-1].sum(), [2.0])
    np.testing.assert_allclose(g, fd, rtol=1e-5)


def test_gradient_reaches_closed_over_values():
    def final(k):
        return odeint(lambda y, t: -k * y, 1.0, TS)[-1]

    np.testing.assert_allclose(tf8.grad(final)(0.5), -2.0 * np.exp(-1.0), rtol=1e-6)


def test_step_limits_and_dtypes():
    ts = np.linspace(0.0, 10.0, 3)
    exact = np.cos(2.0 * ts[-1])
    capped = odeint(oscillator, np.array([1.0, 0.0]), ts, 2.0, 0.0, mxstep=3)
    assert abs(float(capped[-1, 0]) - exact) > 1e-2  # three steps cannot reach t = 5
    small = odeint(oscillator, np.array([1.0, 0.0]), ts, 2.0, 0.0, hmax=0.01)
    np.testing.assert_allclose(float(small[-1, 0]), exact, atol=1e-8)
    single = odeint(oscillator, np.array([1.0, 0.0], np.float32), ts, 2.0, 0.0)
    assert single.dtype == np.float32
    np.testing.assert_allclose(float(single[-1, 0]), exact, atol=1e-5)


def test_integer_args_and_a_single_time():
    def final(k):
        return odeint(lambda y, t, k, n: -k * n * y, 1.0, TS, k, np.int64(2))[-1]

    np.testing.assert_allclose(tf8.grad(final)(0.25), -2.0 * TS[-1] * np.exp(-1.0), rtol=1e-6)
    assert float(tf8.grad(lambda y0: odeint(decay, y0, TS[:1], 1.0)[-1])(1.0)) == 1.0


def test_scipy_integrate_is_the_same_function():
    import tf8.scipy.integrate
    from tf8.scipy.integrate import odeint as scipy_odeint

    assert tf8.scipy.integrate.odeint is scipy_odeint is tf8.experimental.ode.odeint is odeint


def test_bad_inputs_raise():
    with pytest.raises(ShapeError, match="1-d"):
        odeint(decay, 1.0, np.zeros((2, 2)), 0.5)
    with pytest.raises(DTypeError, match="floats"):
        odeint(decay, 1.0, np.arange(3), 0.5)
    with pytest.raises(DTypeError, match="floating"):
        odeint(decay, np.array([1, 2]), TS, 0.5)
    with pytest.raises(DTypeError, match="args"):
        odeint(decay, 1.0, TS, "fast")
    with pytest.raises(TreeStructureError, match="func returned"):
        odeint(lambda y, t: (y, y), 1.0, TS)
    with pytest.raises(ShapeError, match="func returned shape"):
        odeint(lambda y, t: y[:1], np.ones(2), TS)


def test_adjoint_steps_as_jax_at_loose_tolerance():
    """A plain constant in func (the 0.1 of the damping) is not hoisted into the adjoint's
    state, as JAX's closure_convert leaves it: the backward steps, and so the gradient at
    rtol 1e-6, equal JAX 0.10.2's to rounding (numbers recorded from JAX, x64), not only to
    the solver's tolerance."""
    ts = np.linspace(0.0, 1.0, 4)

    def f(y0, w):
        dynamics = lambda y, t, w: tnp.stack([y[1], -(w**2) * y[0] - 0.1 * y[1]])  # noqa: E731
        return odeint(dynamics, y0, ts, w, rtol=1e-6, atol=1e-8)

    out, pullback = tf8.vjp(f, np.array([1.0, 0.0]), np.array(2.0))
    y0_bar, w_bar = pullback(np.full(out.shape, 0.25))
    np.testing.assert_allclose(y0_bar, [-0.7904648242468844, 0.6880605565784634], rtol=1e-12)
    np.testing.assert_allclose(w_bar, -1.0414816474503623, rtol=1e-12)


def test_second_reverse_derivative_differentiates_the_adjoint():
    """grad(grad(.)) runs the adjoint of the adjoint: y = y0 exp(-k t), so the second
    derivatives of sum(w * y) in k, and in k then y0, have closed forms."""
    ts = np.linspace(0.0, 2.0, 5)
    w = np.array([0.5, -1.0, 2.0, 0.3, 1.0])

    def loss(y0, k):
        return (odeint(decay, y0, ts, k, rtol=1e-10, atol=1e-10) * w).sum()

    y0, k = 1.5, 0.7
    d_kk = tf8.grad(tf8.grad(loss, 1), 1)(y0, k)
    d_k_y0 = tf8.grad(tf8.grad(loss, 1), 0)(y0, k)
    np.testing.assert_allclose(d_kk, (w * y0 * ts**2 * np.exp(-k * ts)).sum(), rtol=1e-7)
    np.testing.assert_allclose(d_k_y0, -(w * ts * np.exp(-k * ts)).sum(), rtol=1e-7)
