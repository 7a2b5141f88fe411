"""The tapes' derived numpy rules and check_grads' shortcuts give what the general paths give.

- Forward tangents computed by the derived numpy functions (elementwise rows, matrix
  products of every kind, sums, reshapes) against the graph path and closed forms.
- Tapes leave no reference cycles: a finished tape is freed by reference counting.
- check_grads still catches wrong derivatives in every mode and order, and its scalar
  comparison is numpy's isclose.
"""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import lax
from tf8.ad import tape as tape_module
from tf8.testing import _isclose, check_vjp

RNG = np.random.default_rng(7)
X = RNG.uniform(-1.0, 1.0, (4, 3))
T = RNG.uniform(-1.0, 1.0, (4, 3))
M = RNG.standard_normal((3, 3))


def _dot(contracting, batch=((), ())):
    return lambda a, b: lax.dot_general(a, b, (contracting, batch))


# (function of x, closed-form tangent along t): each exercises one forward fast path
FORWARD = {
    "matmul": (lambda x: x @ M, lambda x, t: t @ M),
    "matmul_both": (lambda x: x @ x.T, lambda x, t: t @ x.T + x @ t.T),
    "vector_matrix": (lambda x: x[0] @ M, lambda x, t: t[0] @ M),
    "matrix_vector": (lambda x: x @ x[0], lambda x, t: t @ x[0] + x @ t[0]),
    "vector_vector": (lambda x: x[0] @ x[1], lambda x, t: t[0] @ x[1] + x[0] @ t[1]),
    "contract_first": (lambda x: _dot(((0,), (0,)))(x, x), lambda x, t: t.T @ x + x.T @ t),
    "negative_axes": (lambda x: _dot(((-1,), (-2,)))(x, M), lambda x, t: t @ M),
    "batched": (
        lambda x: _dot(((1,), (1,)), ((0,), (0,)))(x, x * 2.0),
        lambda x, t: 4.0 * np.sum(x * t, axis=1),
    ),
    "sum_keepdims": (
        lambda x: tnp.sum(tnp.sin(x), axis=0, keepdims=True) * x,
        lambda x, t: (
            np.sum(np.cos(x) * t, axis=0, keepdims=True) * x
            + np.sum(np.sin(x), axis=0, keepdims=True) * t
        ),
    ),
    "reshape": (
        lambda x: tnp.reshape(tnp.tanh(x), (3, 4)),
        lambda x, t: ((1 - np.tanh(x) ** 2) * t).reshape(3, 4),
    ),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_fast_paths_match_the_closed_form_and_the_graph_path(name, monkeypatch):
    f, closed = FORWARD[name]
    value, tangent = tf8.jvp(f, (X,), (T,))
    with tape_module.graph_path_only():
        value_graph, tangent_graph = tf8.jvp(f, (X,), (T,))
    np.testing.assert_allclose(tangent, closed(X, T), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tangent, tangent_graph, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(value, value_graph, rtol=1e-12, atol=1e-12)
    assert np.asarray(tangent).dtype == np.float64


def test_forward_fast_path_keeps_float32_tangents_float32():
    x, t = X.astype(np.float32), T.astype(np.float32)
    m = M.astype(np.float32)
    _, tangent = tf8.jvp(lambda a: tnp.sin(a @ m), (x,), (t,))
    assert tangent.dtype == np.float32
    np.testing.assert_allclose(tangent, np.cos(x @ m) * (t @ m), rtol=1e-5)


def test_finished_tapes_leave_no_reference_cycles():
    def f(x):
        return tnp.sum(tnp.tanh(x @ M) * x)

    def run():
        tf8.grad(f)(X)
        _, pullback = tf8.vjp(lambda x: tnp.sin(x) * x, X)
        pullback(T)
        tf8.jvp(lambda x: tf8.grad(f)(x), (X,), (T,))
        tf8.grad(lambda x: tnp.sum(tf8.vjp(f, x)[1](1.0)[0] ** 2))(X)
        tf8.check_grads(lambda x: tnp.cos(x) @ M, (X,), order=2)

    run()  # first calls fill caches
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        run()
        assert gc.collect() == 0  # everything was freed by reference counting
    finally:
        if enabled:
            gc.enable()


def test_a_pullback_still_works_after_its_inputs_are_gone():
    # the tape is held by the pullback, and weakly by what its values name (the handle)
    def make():
        x = X.copy()
        return tf8.vjp(lambda a: tnp.exp(a) * a, x)[1]

    pullback = make()
    gc.collect()
    (ct,) = pullback(T)
    np.testing.assert_allclose(ct, (np.exp(X) * X + np.exp(X)) * T, rtol=1e-12)


@pytest.mark.parametrize(
    "got, expected",
    [
        (1.0, 1.0),
        (1.0, 1.0 + 1e-6),
        (1.0, 1.1),
        (0.0, -0.0),
        (1e-9, 0.0),
        (0.0, 1e-4),
        (-3.0, 3.0),
        (math.inf, math.inf),
        (math.inf, -math.inf),
        (1.0, math.inf),
        (math.inf, 1.0),
        (math.nan, math.nan),
        (math.nan, 1.0),
        (1.0, math.nan),
        (1e308, -1e308),
        (5e-324, 0.0),
    ],
)
@pytest.mark.parametrize("atol, rtol", [(1e-5, 1e-5), (0.0, 0.0), (1e-2, 0.0), (0, 1e-5)])
def test_the_scalar_comparison_is_numpys_isclose(got, expected, atol, rtol):
    with np.errstate(all="ignore"):
        want = bool(np.isclose(got, expected, atol=atol, rtol=rtol))
    assert _isclose(got, expected, atol, rtol) is want


def test_check_vjp_returns_the_output():
    out = check_vjp(lambda x: tnp.sin(x) @ M, [X], 1e-5, 1e-5, np.random.default_rng(0))
    np.testing.assert_allclose(out, np.sin(X) @ M, rtol=1e-12)


def _cube_with_rule(first_order_only: bool):
    """x³ with a custom JVP; `first_order_only`: the rule is right at first order but its
    own derivative is wrong (the 3x² factor does not depend on x as seen by a second
    derivative)."""

    @tf8.custom_jvp
    def cube(x):
        return x**3

    def rule(primals, tangents):
        (x,), (t,) = primals, tangents
        slope = 3.0 * (tf8.stop_gradient(x) if first_order_only else x) ** 2
        return x**3, slope * t

    cube.defjvp(rule)
    return cube


@pytest.mark.parametrize("modes", [("fwd",), ("fwd", "rev")])
def test_check_grads_catches_a_wrong_second_derivative(modes):
    # (reverse mode alone checks vjp against jvp, both from the rule: it cannot see this)
    x = np.array([0.3, -0.7, 1.1])
    tf8.check_grads(_cube_with_rule(False), (x,), order=2, modes=modes)
    wrong = _cube_with_rule(True)
    tf8.check_grads(wrong, (x,), order=1, modes=modes)  # right at first order
    with pytest.raises(AssertionError):
        tf8.check_grads(wrong, (x,), order=2, modes=modes)


def _sin_with_a_wrong_jvp():
    """sin whose custom jvp rule says sin(x)·t instead of cos(x)·t."""

    @tf8.custom_jvp
    def f(a):
        return tnp.sin(a)

    f.defjvp(lambda primals, tangents: (tnp.sin(primals[0]), tnp.sin(primals[0]) * tangents[0]))
    return f


def test_check_grads_catches_a_wrong_first_derivative_in_each_mode():
    x = np.array([0.3, -0.7, 1.1])

    f = _sin_with_a_wrong_jvp()
    with pytest.raises(AssertionError, match="JVP vs central differences"):
        tf8.check_grads(f, (x,), order=1, modes=("fwd",))

    @tf8.custom_vjp
    def g(a):
        return tnp.sin(a)

    g.defvjp(lambda a: (tnp.sin(a), a), lambda a, ct: (tnp.sin(a) * ct,))
    with pytest.raises(AssertionError, match="central differences"):
        tf8.check_grads(g, (x,), order=1, modes=("rev",))
    with pytest.raises(AssertionError, match="central differences"):
        tf8.check_grads(g, (x,), order=2, modes=("rev",))


def test_a_wrong_jvp_rule_fails_the_reverse_check_alone_as_in_jax():
    """modes=("rev",) compares the vjp with central differences (JAX's reverse check): the
    adjoint identity alone would pass a wrong jvp rule, since the vjp transposes it."""
    x = np.array([0.3, -0.7, 1.1])

    f = _sin_with_a_wrong_jvp()
    with pytest.raises(AssertionError, match="VJP vs central differences"):
        tf8.check_grads(f, (x,), order=1, modes=("rev",))
    with pytest.raises(AssertionError, match="JVP vs central differences"):
        tf8.check_grads(f, (x,), order=1)  # both modes: the forward check catches it first
    tf8.check_grads(tnp.sin, (x,), order=2, modes=("rev",))  # a right rule passes


def test_with_both_modes_the_vjp_is_checked_against_the_jvp(monkeypatch):
    """A deliberate difference (README): with modes ("fwd", "rev") check_grads compares the
    VJP with the JVP it has just checked (the exact adjoint identity); JAX, and tf8 with
    modes=("rev",), compare it with central differences."""
    real_vjp = tf8.testing.vjp

    def doubled_vjp(f, *args):
        out, pull = real_vjp(f, *args)
        return out, lambda ct: tuple(2.0 * c for c in pull(ct))

    monkeypatch.setattr(tf8.testing, "vjp", doubled_vjp)
    x = np.array([0.3, -0.7, 1.1])
    with pytest.raises(AssertionError, match=r"VJP vs JVP \(adjoint identity\)"):
        tf8.check_grads(tnp.sin, (x,), order=1)
    with pytest.raises(AssertionError, match="VJP vs central differences"):
        tf8.check_grads(tnp.sin, (x,), order=1, modes=("rev",))
