"""Gradient programs: what they compile to, how big they are, and how they are cached (issue 5).

Gradients are graphs that go through the ordinary compile/prepare pipeline, so CSE merges
duplicated rule outputs and the forward values the backward pass does not need are never
computed; jit(grad(f)) traces once per signature and grad(f) reuses prepared programs.
"""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.api import default_runtime
from tf8.errors import ConcretizationError


def _names(program) -> list[str]:
    return [op.name for op in program.ops]


# --- the reference example --------------------------------------------------------------------


def test_grad_of_sum_of_squares_compiles_to_three_ops():
    program = tf8.make_program(tf8.grad(lambda x: tnp.sum(x * x)))(np.ones(3))
    assert len(program.ops) <= 3, program.pretty()
    assert "reduce_sum" not in _names(program), program.pretty()
    # the forward x * x is not computed: no mul reads the placeholder x twice
    x_slot = 0
    for inst in program.program.instructions:
        assert not (inst.op.name == "mul" and inst.inputs == (x_slot, x_slot)), program.pretty()
    np.testing.assert_array_equal(tf8.jit(tf8.grad(lambda x: tnp.sum(x * x)))(np.ones(3)), 2.0)


def test_unused_forward_values_are_not_computed():
    """grad of sum(sin(x)) needs cos(x) only: sin(x) is not in the program."""
    program = tf8.make_program(tf8.grad(lambda x: tnp.sum(tnp.sin(x))))(np.ones(3))
    assert "sin" not in _names(program) and "cos" in _names(program), program.pretty()


def test_residuals_merge_with_the_users_own_computations():
    """value_and_grad of sum(exp(x)): the forward exp(x) is also the residual, computed once."""
    program = tf8.make_program(tf8.value_and_grad(lambda x: tnp.sum(tnp.exp(x))))(np.ones(3))
    assert _names(program).count("exp") == 1, program.pretty()


# --- program size: grad at most 3x the forward program ----------------------------------------


def chain(x):
    acc = x
    for _ in range(20):
        acc = acc * x + x
    return tnp.sum(acc)


def mlp_loss(params, x, y):
    hidden = x
    layers = len(params) // 2
    for i in range(layers):
        hidden = hidden @ params[f"w{i}"] + params[f"b{i}"]
        if i < layers - 1:
            hidden = tnp.tanh(hidden)
    return tnp.sum((hidden - y) ** 2)


def mlp_args(layers: int, width: int = 8, batch: int = 5):
    rng = np.random.default_rng(layers)
    params = {}
    for i in range(layers):
        params[f"w{i}"] = rng.standard_normal((width, width))
        params[f"b{i}"] = rng.standard_normal(width)
    return params, rng.standard_normal((batch, width)), rng.standard_normal((batch, width))


def _size_ratio(f, *args) -> tuple[int, int]:
    forward = len(tf8.make_program(f)(*args).ops)
    backward = len(tf8.make_program(tf8.grad(f))(*args).ops)
    return forward, backward


def test_grad_program_of_the_dispatch_chain_is_at_most_3x():
    forward, backward = _size_ratio(chain, np.linspace(0.1, 0.4, 16))
    assert forward == 41
    assert backward <= 3 * forward, (forward, backward)


@pytest.mark.parametrize("layers", [2, 3])
def test_grad_program_of_the_mlp_is_at_most_3x(layers):
    forward, backward = _size_ratio(mlp_loss, *mlp_args(layers))
    assert backward <= 3 * forward, (forward, backward)


def test_grad_of_the_chain_is_right():
    x = np.linspace(0.1, 0.4, 16)
    acc, dacc = x, np.ones_like(x)
    for _ in range(20):
        acc, dacc = acc * x + x, dacc * x + acc + 1.0
    np.testing.assert_allclose(tf8.jit(tf8.grad(chain))(x), dacc, rtol=1e-13)
    np.testing.assert_allclose(tf8.grad(chain)(x), dacc, rtol=1e-13)


# --- tracing and caching ----------------------------------------------------------------------


def test_jit_of_grad_traces_once_per_signature():
    traces = []

    def f(x):
        traces.append(x.shape)
        return tnp.sum(tnp.tanh(x) ** 2)

    x = np.arange(3.0)
    expected = 2 * np.tanh(x) * (1 - np.tanh(x) ** 2)
    g = tf8.jit(tf8.grad(f))
    for shift in (0.0, 0.0, 1.0):
        np.testing.assert_allclose(g(x + shift), 2 * np.tanh(x + shift) / np.cosh(x + shift) ** 2)
    assert traces == [(3,)]
    np.testing.assert_allclose(g(x), expected)
    g(np.ones(4))
    g(np.ones(4))
    assert traces == [(3,), (4,)]
    assert g.cache_info()["misses"] == 2


def test_repeated_grad_calls_prepare_no_program():
    """No-jit grad on concrete arguments computes op by op while it records: repeated calls
    never compile or prepare a program (the prepare cache sees neither hits nor misses)."""
    g = tf8.grad(lambda x: tnp.sum(tnp.sin(x) * x))
    x = np.arange(3.0)
    g(x)
    stats = default_runtime.cache_stats
    hits, misses = stats.hits, stats.misses
    for i in range(3):
        np.testing.assert_allclose(g(x + i), np.cos(x + i) * (x + i) + np.sin(x + i))
    assert stats.hits == hits
    assert stats.misses == misses


# --- Python control flow ----------------------------------------------------------------------


def branchy(x):
    if x > 0:
        return x * x
    return -tnp.sin(x)


def test_python_control_flow_under_grad_of_concrete_arguments():
    assert tf8.grad(branchy)(3.0) == 6.0
    assert tf8.grad(branchy)(-1.0) == pytest.approx(-np.cos(-1.0))
    assert tf8.grad(tf8.grad(branchy))(3.0) == 2.0


def test_python_control_flow_under_jit_of_grad_raises():
    with pytest.raises(ConcretizationError, match="jit|placeholder"):
        tf8.jit(tf8.grad(branchy))(3.0)


def test_python_loop_bounds_from_concrete_values():
    def power_by_loop(x):
        out = x
        for _ in range(int(tnp.round(x))):  # int() of a concrete primal works (as in JAX)
            out = out * x
        return out

    # at x = 2: x**3, derivative 3x² = 12 (the loop count is a constant)
    assert tf8.grad(power_by_loop)(2.0) == 12.0
