"""Top-level reverse mode op by op (tf8.ad.tape): the same numbers as the graph path, and the
graph path wherever the tape cannot follow (nested transforms, control flow, custom rules)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scaling_timer import assert_linear, wall

import tf8
import tf8.numpy as tnp
from tf8.ad import graph_path, transforms
from tf8.ad import tape as tape_module
from tf8.errors import ConcretizationError, DifferentiationError

MATRIX = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.3], [-0.6, 0.2, 0.1]])

# Unary steps on a (4, 3) value (kept bounded), and binary steps with the argument x.
UNARY = {
    "sin": tnp.sin,
    "cos": tnp.cos,
    "tanh": tnp.tanh,
    "exp": lambda v: tnp.exp(v / 10.0),
    "log1p_sq": lambda v: tnp.log1p(v * v),
    "sqrt": lambda v: tnp.sqrt(v * v + 1.0),
    "square": lambda v: v**2,
    "pow": lambda v: (v * v + 1.0) ** 1.5,
    "abs": tnp.abs,
    "matmul": lambda v: v @ MATRIX,
    "transpose": lambda v: (v.T @ np.ones((4, 4))).T / 4.0,
    "sum0": lambda v: tnp.broadcast_to(tnp.sum(v, axis=0), (4, 3)),
    "max1": lambda v: tnp.broadcast_to(tnp.max(v, axis=1, keepdims=True), (4, 3)),
    "mean": lambda v: v - tnp.mean(v),
    "slice": lambda v: tnp.concatenate([v[1:], v[:1] * 2.0], axis=0),
    "where": lambda v: tnp.where(v > 0.1, v, -v * 0.5),
    "reshape": lambda v: tnp.reshape(tnp.reshape(v, (3, 4)) * 1.5, (4, 3)),
    "logistic": tf8.nn.sigmoid,
    "softmax": lambda v: tf8.nn.softmax(v, axis=1),
    "clip": lambda v: tnp.clip(v, -0.5, 0.5),
    "cast": lambda v: v.astype(np.float32).astype(v.dtype),
}
BINARY = {
    "mul": lambda v, x: v * x,
    "add": lambda v, x: v + x,
    "sub": lambda v, x: v - x,
    "div": lambda v, x: v / (x * x + 1.0),
    "maximum": tnp.maximum,
    "row": lambda v, x: v + x[0],
}

programs = st.lists(
    st.one_of(st.sampled_from(sorted(UNARY)), st.sampled_from(sorted(BINARY))),
    min_size=1,
    max_size=12,
)


def build(steps):
    def f(x):
        v = x
        for step in steps:
            v = UNARY[step](v) if step in UNARY else BINARY[step](v, x)
        return tnp.sum(v * v)

    return f


@pytest.fixture
def graph_only(monkeypatch):
    """Switch the tape off: transforms run on the graph path."""
    with tape_module.graph_path_only():
        yield


def _forbid_the_graph_path(monkeypatch):
    """Make every graph-path trace fail (transforms' own fallbacks, and graph_vjp wherever it
    is called from: vjp, a tape's pullback, the tape's rule for an op without one)."""

    def no_graph(*args, **kwargs):
        raise AssertionError("the graph path ran")

    monkeypatch.setattr(transforms, "trace_on_fresh_leaves", no_graph)
    monkeypatch.setattr(graph_path, "trace_on_fresh_leaves", no_graph)


def _graph(fn, *args):
    with tape_module.graph_path_only():
        return fn(*args)


@given(steps=programs, seed=st.integers(0, 2**16), f32=st.booleans())
def test_tape_gradients_match_the_graph_path(steps, seed, f32):
    x = np.random.default_rng(seed).uniform(-1.0, 1.0, (4, 3))
    x = x.astype(np.float32) if f32 else x
    f = build(steps)
    value, g = tf8.value_and_grad(f)(x)
    value_graph, g_graph = _graph(tf8.value_and_grad(f), x)
    assert g.dtype == g_graph.dtype == x.dtype
    assert type(value) is type(value_graph)
    tol = 1e-4 if f32 else 1e-10
    np.testing.assert_allclose(value, value_graph, rtol=tol)
    np.testing.assert_allclose(g, g_graph, rtol=tol, atol=tol)


@given(steps=programs, seed=st.integers(0, 2**16))
def test_tape_vjp_matches_numerical_differences(steps, seed):
    x = np.random.default_rng(seed).uniform(-1.0, 1.0, (4, 3))
    # a float32 round trip ("cast") rounds at 6e-8: differences need a larger step there
    step = {"eps": 1e-3, "atol": 1e-3, "rtol": 1e-3} if "cast" in steps else {}
    tf8.check_grads(build(steps), (x,), order=1, modes=("rev",), **step)


def test_the_tape_runs_without_the_graph_path(monkeypatch):
    _forbid_the_graph_path(monkeypatch)
    x = np.linspace(0.1, 1.0, 5)
    np.testing.assert_allclose(
        tf8.grad(lambda a: tnp.sum(tnp.sin(a) * a))(x), np.cos(x) * x + np.sin(x), rtol=1e-12
    )
    out, pullback = tf8.vjp(lambda a: tnp.exp(a) * 2.0, x)
    np.testing.assert_allclose(pullback(np.ones(5))[0], 2.0 * np.exp(x), rtol=1e-12)


def test_a_plain_function_runs_once(monkeypatch):
    calls = []

    def f(x):
        calls.append(1)
        return tnp.sum(x * x)

    np.testing.assert_allclose(tf8.grad(f)(np.arange(3.0)), [0.0, 2.0, 4.0])
    assert len(calls) == 1


# --- where the tape hands over to the graph path ------------------------------------------------


def _nested(x):
    return tnp.sum(tf8.grad(lambda a: tnp.sum(tnp.sin(a) ** 2))(x) * x)


def _scanned(x):
    def step(carry, row):
        carry = tnp.tanh(carry * 0.5 + row)
        return carry, tnp.sum(carry)

    carry, sums = tf8.lax.scan(step, tnp.zeros(3), tnp.reshape(x, (2, 3)))
    return tnp.sum(sums) + tnp.sum(carry * carry)


def _conditioned(x):
    return tf8.lax.cond(tnp.sum(x) > 0, lambda a: tnp.sum(tnp.sin(a)), lambda a: tnp.sum(a), x)


@tf8.jit
def _jitted_inner(a):
    return tnp.sin(a) * a


@tf8.custom_vjp
def _clipped(a):
    return a * 1.0


_clipped.defvjp(lambda a: (a * 1.0, None), lambda _, g: (tnp.clip(g, -0.1, 0.1),))


CASES = {
    "nested grad": (_nested, None),
    "scan": (_scanned, None),
    "cond": (_conditioned, None),
    "jit inside": (lambda x: tnp.sum(_jitted_inner(x)), lambda x: np.cos(x) * x + np.sin(x)),
    "checkpoint": (
        tf8.checkpoint(lambda x: tnp.sum(tnp.exp(x) * x)),
        lambda x: np.exp(x) * (1 + x),
    ),
    "custom_vjp": (lambda x: tnp.sum(_clipped(x) * 3.0), lambda x: np.full_like(x, 0.1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_functions_the_tape_cannot_follow_match_the_graph_path(name):
    f, closed_form = CASES[name]
    x = np.array([0.3, -0.2, 0.5, 0.1, 0.4, 0.7])
    g = tf8.grad(f)(x)
    np.testing.assert_allclose(g, _graph(tf8.grad(f), x), rtol=1e-12)
    if closed_form is not None:
        np.testing.assert_allclose(g, closed_form(x), rtol=1e-12)
    if name != "custom_vjp":
        tf8.check_grads(f, (x,), order=1, modes=("rev",))


def test_user_code_swallowing_the_signal_still_gets_the_graph_path():
    def f(x):
        try:
            inner = tf8.grad(lambda a: tnp.sum(a**3))(x)
        except BaseException:  # noqa: BLE001 - what careless user code does
            inner = tnp.zeros_like(x)
        return tnp.sum(inner * x)

    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(tf8.grad(f)(x), 9.0 * x**2, rtol=1e-12)  # d/dx sum(3x² · x)


def test_vjp_function_called_inside_jit_uses_the_graph_path():
    x = np.array([0.2, 0.4, 0.6])
    _, pullback = tf8.vjp(lambda a: tnp.sin(a) * a, x)
    jitted = tf8.jit(lambda ct: pullback(ct)[0])
    np.testing.assert_allclose(jitted(np.ones(3)), np.cos(x) * x + np.sin(x), rtol=1e-12)
    np.testing.assert_allclose(pullback(np.ones(3))[0], np.cos(x) * x + np.sin(x), rtol=1e-12)


def test_concretizing_a_taped_value_raises_and_branching_works():
    def bad(x):
        return x * float(x)

    with pytest.raises(ConcretizationError, match=r"argument 0 of grad\(bad\)"):
        tf8.grad(bad)(3.0)

    def branchy(x):
        return tnp.sin(x) if x > 0 else x * x

    assert tf8.grad(branchy)(0.5) == pytest.approx(np.cos(0.5))
    assert tf8.grad(branchy)(-0.5) == pytest.approx(-1.0)


def test_integer_results_and_unused_arguments_get_zero_gradients():
    def f(x, y):
        index = int(tnp.argmax(x))
        return x[index] * 2.0 + tnp.sum(tnp.floor(x))

    gx, gy = tf8.grad(f, argnums=(0, 1))(np.array([0.1, 0.9, 0.3]), np.ones(2))
    np.testing.assert_array_equal(gx, [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(gy, [0.0, 0.0])


def test_complex_arguments_follow_the_graph_convention():
    z = np.array([1.0 + 2.0j, -0.5 + 0.3j])

    def f(a):
        return tnp.sum(tnp.real(a * tnp.conj(a) * tnp.sin(a)))

    np.testing.assert_allclose(tf8.grad(f)(z), _graph(tf8.grad(f), z), rtol=1e-12)


def test_tape_grad_cost_is_linear_in_the_number_of_ops():
    def chain(n):
        def f(x):
            for _ in range(n):
                x = tnp.sin(x) * 0.999
            return tnp.sum(x)

        return f

    x = np.linspace(0.1, 0.5, 8)

    grads = {n: tf8.grad(chain(n)) for n in (400, 3200)}
    assert_linear(wall(lambda n: grads[n](x)), 400, 3200)  # linear: 8x, with a 3x margin


# --- forward mode op by op ------------------------------------------------------------------------


@given(steps=programs, seed=st.integers(0, 2**16), f32=st.booleans())
def test_forward_tangents_match_the_graph_path(steps, seed, f32):
    rng = np.random.default_rng(seed)
    x, t = rng.uniform(-1.0, 1.0, (2, 4, 3))
    x, t = (x.astype(np.float32), t.astype(np.float32)) if f32 else (x, t)
    f = build(steps)
    value, tangent = tf8.jvp(f, (x,), (t,))
    value_graph, tangent_graph = _graph(tf8.jvp, f, (x,), (t,))
    assert np.asarray(tangent).dtype == np.asarray(tangent_graph).dtype == np.asarray(value).dtype
    tol = 1e-4 if f32 else 1e-10
    np.testing.assert_allclose(value, value_graph, rtol=tol)
    np.testing.assert_allclose(tangent, tangent_graph, rtol=tol, atol=tol)


def test_forward_mode_runs_without_the_graph_path(monkeypatch):
    _forbid_the_graph_path(monkeypatch)
    x, t = np.linspace(0.1, 1.0, 5), np.linspace(1.0, 2.0, 5)
    value, tangent = tf8.jvp(lambda a: (tnp.sin(a) * a, tnp.sum(a)), (x,), (t,))
    np.testing.assert_allclose(value[0], np.sin(x) * x, rtol=1e-12)
    np.testing.assert_allclose(tangent[0], (np.cos(x) * x + np.sin(x)) * t, rtol=1e-12)
    np.testing.assert_allclose(tangent[1], t.sum(), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_mode_where_the_tape_cannot_follow(name):
    f, _ = CASES[name]
    x = np.array([0.3, -0.2, 0.5, 0.1, 0.4, 0.7])
    t = np.linspace(-1.0, 1.0, 6)
    if name == "custom_vjp":  # as in JAX, on both paths
        for run in (tf8.jvp, lambda *a: _graph(tf8.jvp, *a)):
            with pytest.raises(DifferentiationError, match="custom_vjp"):
                run(f, (x,), (t,))
        return
    _, tangent = tf8.jvp(f, (x,), (t,))
    _, expected = _graph(tf8.jvp, f, (x,), (t,))
    np.testing.assert_allclose(tangent, expected, rtol=1e-12)


def test_an_integer_primal_carries_no_tangent_on_either_path():
    def f(x, n):
        return x * n.astype(np.float64) + tnp.sum(n)

    args = (np.array([1.0, 2.0]), np.array([3, 4]))
    tangents = (np.array([1.0, 1.0]), np.array([5, 5]))
    _, tangent = tf8.jvp(f, args, tangents)
    _, expected = _graph(tf8.jvp, f, args, tangents)
    np.testing.assert_array_equal(tangent, expected)
    np.testing.assert_array_equal(tangent, [3.0, 4.0])


def test_has_aux_on_the_tape_returns_what_the_graph_path_returns():
    def f(x):
        y = tnp.sum(tnp.sin(x))
        return y, {"y": y, "note": "kept", "twice": x * 2.0}

    x = np.array([0.1, 0.2])
    (value, aux), g = tf8.value_and_grad(f, has_aux=True)(x)
    (value_g, aux_g), g_graph = _graph(tf8.value_and_grad(f, has_aux=True), x)
    assert aux["note"] == aux_g["note"] == "kept"
    np.testing.assert_allclose(aux["twice"], aux_g["twice"])
    np.testing.assert_allclose(g, g_graph)
    out, pullback, aux_v = tf8.vjp(f, x, has_aux=True)
    assert aux_v["note"] == "kept" and float(aux_v["y"]) == pytest.approx(float(value))
    np.testing.assert_allclose(pullback(1.0)[0], np.cos(x))


# --- tapes nest, as JAX's trace levels do ---------------------------------------------------

NESTED_X = np.array([0.3, -0.2, 0.5])


def _cubic(a):
    return tnp.sum(tnp.sin(a) * a**2)


NESTED = {
    "grad of grad": lambda x: tf8.grad(lambda a: tnp.sum(tf8.grad(_cubic)(a) * a))(x),
    "hvp": lambda x: tf8.hvp(_cubic, (x,), (np.ones(3),)),
    "jvp of vjp": lambda x: tf8.jvp(lambda a: tf8.vjp(_cubic, a)[1](1.0)[0], (x,), (np.ones(3),))[
        1
    ],
    "vjp of jvp": lambda x: tf8.vjp(lambda a: tf8.jvp(_cubic, (a,), (np.ones(3),))[1], x)[1](1.0)[
        0
    ],
    "jvp of jvp": lambda x: tf8.jvp(
        lambda a: tf8.jvp(_cubic, (a,), (np.ones(3),))[1], (x,), (np.ones(3),)
    )[1],
    "third order": lambda x: tf8.grad(
        lambda b: tnp.sum(tf8.grad(lambda a: tnp.sum(tf8.grad(_cubic)(a) * a))(b))
    )(x),
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_nested_transforms_run_on_nested_tapes(name, monkeypatch):
    expected = _graph(NESTED[name], NESTED_X)

    _forbid_the_graph_path(monkeypatch)
    np.testing.assert_allclose(NESTED[name](NESTED_X), expected, rtol=1e-12)


def test_second_derivatives_on_nested_tapes_match_the_closed_form():
    # d²/dx² of sin(x)·x² is (2 − x²)·sin(x) + 4x·cos(x)
    x = NESTED_X
    hvp = tf8.hvp(_cubic, (x,), (np.ones(3),))
    np.testing.assert_allclose(hvp, (2 - x**2) * np.sin(x) + 4 * x * np.cos(x), rtol=1e-12)


@given(steps=programs, seed=st.integers(0, 2**16))
def test_nested_tapes_match_the_graph_path_on_random_programs(steps, seed):
    x = np.random.default_rng(seed).uniform(-1.0, 1.0, (4, 3))
    t = np.random.default_rng(seed + 1).uniform(-1.0, 1.0, (4, 3))
    f = build(steps)

    def fwd_over_rev(a):
        return tf8.jvp(tf8.grad(f), (a,), (t,))[1]

    def rev_over_fwd(a):
        return tf8.grad(lambda b: tf8.jvp(f, (b,), (t,))[1])(a)

    for fn in (fwd_over_rev, rev_over_fwd):
        np.testing.assert_allclose(fn(x), _graph(fn, x), rtol=1e-9, atol=1e-10)


def test_a_pullback_made_outside_follows_cotangents_of_an_enclosing_tape():
    _, pull = tf8.vjp(tnp.sin, 1.0)
    expected = 4.0 * np.cos(1.0)  # d/dc cos(1)·c² at c = 2
    assert tf8.grad(lambda c: pull(c * c)[0])(2.0) == pytest.approx(expected, rel=1e-12)
    assert tf8.jvp(lambda c: pull(c * c)[0], (2.0,), (1.0,))[1] == pytest.approx(expected)
