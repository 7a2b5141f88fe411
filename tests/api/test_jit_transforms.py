"""Transforms called in jit's trace: `jit(grad(f))` hands grad its placeholders as the
differentiated leaves; grad & co. called on jit's arguments inside a function trace on fresh
leaves and substitute the arguments back (a closure over an argument stays a constant).
Every result is checked against the eager transform or a closed form, on the first call
(lean tier) and on later ones (optimised tier)."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import UnboundPlaceholder

X = np.linspace(0.1, 0.9, 5)


def f(x):
    return (tnp.sin(x) * x + x).sum()


def f_grad(x):
    return np.cos(x) * x + np.sin(x) + 1.0


def calls(jitted, *args, times=3):
    """The results of calling `jitted` `times` times (first call lean, then optimised)."""
    return [jitted(*args) for _ in range(times)]


def test_jit_of_grad_matches_the_closed_form_on_every_call():
    for result in calls(tf8.jit(tf8.grad(f)), X):
        np.testing.assert_allclose(result, f_grad(X), rtol=1e-12)


def test_jit_of_grad_program_reads_only_the_argument():
    compiled = tf8.jit(tf8.grad(f)).lower(X)
    assert len(compiled.placeholders) == 1
    assert compiled.program.input_avals[0].shape == X.shape
    prepared = tf8.Runtime().prepare(compiled)
    assert "tier: lean" in prepared.pretty()
    np.testing.assert_allclose(prepared.run(X)[0], f_grad(X), rtol=1e-12)


def test_closure_over_the_jit_argument_is_a_constant_to_grad():
    # d/dy sum(x * y**2) = 2 x y, at y = x: 2 x**2 (x itself is not differentiated)
    g = tf8.jit(lambda x: tf8.grad(lambda y: (x * y**2).sum())(x))
    for result in calls(g, X):
        np.testing.assert_allclose(result, 2 * X**2, rtol=1e-12)


def test_value_and_gradient_beside_the_primal_on_the_argument():
    def h(x):
        value, gradient = tf8.value_and_grad(f)(x)
        return f(x) + value, gradient * x

    for total, scaled in calls(tf8.jit(h), X):
        expected = 2 * np.sum(np.sin(X) * X + X)
        np.testing.assert_allclose(total, expected, rtol=1e-12)
        np.testing.assert_allclose(scaled, f_grad(X) * X, rtol=1e-12)


def test_grad_with_respect_to_one_argument_passed_twice():
    g = tf8.jit(tf8.grad(lambda a, b: (a * tnp.sin(b)).sum(), argnums=(0, 1)))
    for da, db in calls(g, X, X):
        np.testing.assert_allclose(da, np.sin(X), rtol=1e-12)
        np.testing.assert_allclose(db, X * np.cos(X), rtol=1e-12)


def test_grad_of_one_argument_closing_over_another():
    g = tf8.jit(lambda x, y: tf8.grad(lambda a: (a * y).sum())(x) + y)
    for result in calls(g, X, 2 * X):
        np.testing.assert_allclose(result, 4 * X, rtol=1e-12)


def test_gradient_that_reads_no_argument():
    g = tf8.jit(tf8.grad(lambda x: (3.0 * x).sum()))
    assert tf8.jit(tf8.grad(lambda x: (3.0 * x).sum())).lower(X).placeholders == ()
    for result in calls(g, X):
        np.testing.assert_allclose(result, np.full_like(X, 3.0))


def test_nested_grad_in_jit():
    g = tf8.jit(tf8.grad(tf8.grad(lambda x: tnp.sin(x) * x)))
    for x in (0.3, 1.7):
        for result in calls(g, x):
            np.testing.assert_allclose(result, 2 * np.cos(x) - x * np.sin(x), rtol=1e-12)


def test_hessian_in_jit_matches_eager():
    def r(x):
        return ((1.0 - x[:-1]) ** 2 + 10.0 * (x[1:] - x[:-1] ** 2) ** 2).sum()

    expected = tf8.hessian(r)(X)
    for result in calls(tf8.jit(tf8.hessian(r)), X):
        np.testing.assert_allclose(result, expected, rtol=1e-10)


def test_vmap_of_grad_in_jit():
    xs = np.stack([X, 2 * X])
    g = tf8.jit(tf8.vmap(tf8.grad(f)))
    for result in calls(g, xs):
        np.testing.assert_allclose(result, f_grad(xs), rtol=1e-12)


def test_grad_of_a_vmapped_function_in_jit():
    g = tf8.jit(tf8.grad(lambda x: tf8.vmap(lambda v: tnp.sin(v) * v)(x).sum()))
    for result in calls(g, X):
        np.testing.assert_allclose(result, np.cos(X) * X + np.sin(X), rtol=1e-12)


def test_vjp_jvp_and_linearize_in_jit():
    ct = np.linspace(1.0, 2.0, 5)

    def pulled(x, c):
        out, vjp_fun = tf8.vjp(lambda v: tnp.sin(v) * v, x)
        return out, vjp_fun(c)[0]

    for out, back in calls(tf8.jit(pulled), X, ct):
        np.testing.assert_allclose(out, np.sin(X) * X, rtol=1e-12)
        np.testing.assert_allclose(back, ct * (np.cos(X) * X + np.sin(X)), rtol=1e-12)

    def pushed(x, t):
        return tf8.jvp(lambda v: tnp.sin(v) * v, (x,), (t,))[1]

    for result in calls(tf8.jit(pushed), X, ct):
        np.testing.assert_allclose(result, ct * (np.cos(X) * X + np.sin(X)), rtol=1e-12)

    def linear(x, t):
        _, f_jvp = tf8.linearize(lambda v: tnp.sin(v) * v, x)
        return f_jvp(t)

    for result in calls(tf8.jit(linear), X, ct):
        np.testing.assert_allclose(result, ct * (np.cos(X) * X + np.sin(X)), rtol=1e-12)


def test_grad_has_aux_in_jit():
    g = tf8.jit(tf8.grad(lambda x: (f(x), {"x": x, "sin": tnp.sin(x)}), has_aux=True))
    for gradient, aux in calls(g, X):
        np.testing.assert_allclose(gradient, f_grad(X), rtol=1e-12)
        np.testing.assert_array_equal(aux["x"], X)
        np.testing.assert_allclose(aux["sin"], np.sin(X), rtol=1e-15)


def test_a_vjp_function_leaked_from_another_trace_still_fails_clearly():
    kept = []

    @tf8.jit
    def first(x):
        out, vjp_fun = tf8.vjp(lambda v: tnp.sin(v) * v, x)
        kept.append(vjp_fun)
        return out

    first(X)
    with pytest.raises(UnboundPlaceholder, match="leaked"):
        tf8.jit(lambda c: kept[0](c)[0])(X)


def test_grad_on_the_jit_argument_inside_another_grad():
    def g(x):
        def h(y):
            inner = tf8.grad(lambda z: (z * y * x).sum())(x)  # = y * x
            return (inner * y).sum()  # sum(x y**2)

        return tf8.grad(h)(x)

    for result in calls(tf8.jit(g), X):
        np.testing.assert_allclose(result, 2 * X**2, rtol=1e-12)


def test_the_first_call_runs_lean_and_the_second_optimised():
    tf8.api.default_runtime.clear_cache()
    g = tf8.jit(tf8.grad(f))
    np.testing.assert_allclose(g(X), f_grad(X), rtol=1e-12)
    prepared = tf8.api.default_runtime.prepare(g.lower(X))  # the cached program g ran
    assert prepared.prepared.tier == "lean" and prepared.prepared.lean_runs == 1
    np.testing.assert_allclose(g(X), f_grad(X), rtol=1e-12)
    assert prepared.prepared.tier == "optimised"
    assert "tier: optimised (lean runs: 2)" in prepared.pretty()


def test_an_output_that_is_the_fresh_leaf_itself_is_a_fresh_array():
    g = tf8.jit(lambda x: (tf8.vjp(lambda y: y, x)[0], x))
    for same, x in calls(g, X):
        np.testing.assert_array_equal(same, X)
        np.testing.assert_array_equal(x, X)
        assert not np.shares_memory(same, X) and not np.shares_memory(same, x)


def test_jit_of_grad_differentiates_its_placeholders_without_a_rebuild(monkeypatch):
    import tf8.ad.arguments as arguments

    rebuilt = []

    def substitute(results, mapping, same_values=False):
        rebuilt.append(len(mapping))
        return list(results) if not mapping else original(results, mapping, same_values)

    original = arguments.substitute
    monkeypatch.setattr(arguments, "substitute", substitute)
    for transform in (tf8.grad, tf8.value_and_grad):
        g = tf8.jit(transform(lambda x, y: (tnp.sin(x) * y).sum(), argnums=(0, 1)))
        found = g(X, 2 * X)
        grads = found if transform is tf8.grad else found[1]
        np.testing.assert_allclose(grads[0], 2 * X * np.cos(X), rtol=1e-12)
        np.testing.assert_allclose(grads[1], np.sin(X), rtol=1e-12)
    assert rebuilt and not any(rebuilt)  # every finish had nothing to substitute
    # called inside a function, grad cannot know what the function closes over: it rebuilds
    tf8.jit(lambda x: tf8.grad(lambda y: (x * y).sum())(x))(X)
    assert rebuilt[-1] == 1
