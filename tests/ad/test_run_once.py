"""grad, vjp, jvp and value_and_grad call the user's function exactly once, whatever it
contains: loops, branches, custom rules, vmap, jit, checkpoint, the jacobians, linearize and
nested transforms run inside the one op-by-op run (a side effect is counted), and the results are
the graph path's and the closed forms'."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import lax
from tf8.ad import tape as tape_module
from tf8.errors import DifferentiationError

RNG = np.random.default_rng(3)
X = RNG.uniform(-1.0, 1.0, 3)
W = RNG.uniform(-1.0, 1.0, (3, 3))


@tf8.custom_vjp
def _clip_grad(a):
    return tnp.sin(a)


_clip_grad.defvjp(lambda a: (tnp.sin(a), a), lambda a, g: (g * tnp.cos(a),))


@tf8.custom_jvp
def _soft(a):
    return tnp.log1p(tnp.exp(a))


_soft.defjvp(lambda p, t: (_soft(p[0]), t[0] / (1.0 + tnp.exp(-p[0]))))

BODIES = {
    "fori_loop": lambda x: lax.fori_loop(0, 4, lambda i, c: tnp.tanh(tnp.sin(W) @ c + x), x),
    "scan": lambda x: lax.scan(lambda c, a: (tnp.tanh(W @ c) * a, c * 2.0), x, tnp.ones((3, 3)))[0],
    "cond": lambda x: lax.cond(tnp.sum(x) > 0, lambda v: W @ v, lambda v: tnp.sin(v), x),
    "switch": lambda x: lax.switch(1, [lambda v: v, lambda v: W @ v * x], x),
    "custom_vjp": lambda x: _clip_grad(x) * x,
    "custom_jvp": lambda x: _soft(x) * x,
    "vmap": lambda x: tf8.vmap(lambda r: tnp.sin(r @ x) * r)(W),
    "vmap in_axes": lambda x: tf8.vmap(lambda r, v: tnp.tanh(r * v), in_axes=(0, None))(W, x),
    "jit": lambda x: tf8.jit(lambda v: tnp.sin(v) * v)(x),
    "checkpoint": lambda x: tf8.checkpoint(lambda v: tnp.exp(v) * v)(x),
    "grad": lambda x: tf8.grad(lambda v: tnp.sum(tnp.sin(v) * x))(x),
    "jacfwd": lambda x: tf8.jacfwd(lambda v: tnp.sin(v) * x)(x),
    "jacrev": lambda x: tf8.jacrev(lambda v: tnp.sin(v) * x)(x),
    "hessian": lambda x: tf8.hessian(lambda v: tnp.sum(tnp.sin(v) * v))(x),
    "vjp inside": lambda x: tf8.vjp(lambda v: tnp.sin(v) * v, x)[1](x)[0],
    "linearize": lambda x: tf8.linearize(lambda v: tnp.sin(v) * v * x, x)[1](x * 0.5),
    "map of a loop": lambda x: lax.map(lambda v: lax.fori_loop(0, 2, lambda i, c: c * v, v), x),
}

MODES = {
    "grad": lambda f: tf8.grad(f)(X),
    "value_and_grad": lambda f: tf8.value_and_grad(f)(X),
    "vjp": lambda f: tf8.vjp(f, X)[1](np.float64(1.0)),
    "jvp": lambda f: tf8.jvp(f, (X,), (np.full(3, 0.5),)),
}


def _counted(body):
    calls = []

    def f(x):
        calls.append(1)
        return tnp.sum(body(x))

    return f, calls


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("name", sorted(BODIES))
def test_the_function_runs_once_and_matches_the_graph_path(name, mode):
    f, calls = _counted(BODIES[name])
    if (name, mode) == ("custom_vjp", "jvp"):  # JAX raises too: forward mode needs custom_jvp
        with pytest.raises(DifferentiationError, match="custom_jvp"):
            MODES[mode](f)
        assert len(calls) == 1
        return
    got = MODES[mode](f)
    assert len(calls) == 1, f"{mode} of a function using {name} ran it {len(calls)} times"
    with tape_module.graph_path_only():  # the graph path traces the whole function
        expected = MODES[mode](f)
    for a, b in zip(tf8.tree.tree_leaves(got), tf8.tree.tree_leaves(expected)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-12)


def test_gradients_through_loops_match_closed_forms():
    # d/dx sum(fori_loop(0, 3, c * x, x)) = d/dx sum(x**4) = 4 x**3
    f, calls = _counted(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, x))
    np.testing.assert_allclose(tf8.grad(f)(X), 4 * X**3, rtol=1e-12)
    # a captured weight: d/dW sum(vmap(r -> sin(r @ x))(W)) = cos(W @ x) x^T
    g = tf8.grad(lambda w: tnp.sum(tf8.vmap(lambda r: tnp.sin(r @ X))(w)))(W)
    np.testing.assert_allclose(g, np.outer(np.cos(W @ X), X), rtol=1e-12)
    assert len(calls) == 1


def test_a_vjp_function_called_under_jit_does_not_run_the_function_again():
    f, calls = _counted(lambda v: tnp.sin(v) * v)
    _, pull = tf8.vjp(f, X)
    jitted = tf8.jit(lambda ct: pull(ct)[0])
    np.testing.assert_allclose(jitted(np.float64(1.0)), np.cos(X) * X + np.sin(X), rtol=1e-12)
    np.testing.assert_allclose(tf8.vmap(pull)(np.ones(2))[0][1], np.cos(X) * X + np.sin(X))
    assert len(calls) == 1


def test_a_function_that_records_inside_grad_runs_twice():
    """The deliberate exception (README, Differences from JAX): `tf8.recording()` inside grad
    builds a graph the tape cannot run op by op, so the function is traced again."""

    def body(v):
        with tf8.recording():
            return tnp.sin(v) * v

    f, calls = _counted(body)
    np.testing.assert_allclose(tf8.grad(f)(X), np.cos(X) * X + np.sin(X), rtol=1e-12)
    assert len(calls) == 2
