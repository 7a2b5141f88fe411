"""The tape's pullbacks and tangents are derived from the JVP and transpose rules.

- Every smooth catalog row derives its pullback and its tangent on avals alone (no fall-back
  to the graph path at the recorded values), and they give what the graph path gives.
- A derived rule is one generated numpy function (`sin`'s pullback calls `cos` and
  `multiply`, no kernel wrapper), derived once per (op, differentiated inputs, avals).
- Registering a rule replaces what was derived from the old one (no stale cache).
(Each row's derivatives are checked against central differences to second order in
test_ad_rules.py, through these same derived rules.)
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
from ad_cases import DIFFERENTIABLE, draw_call, dtypes_of
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
import tf8.numpy as tnp
from tf8.ad import register_rules
from tf8.ad import tape as tape_module
from tf8.ad.derive import UNDERIVED, pullback, tangent_rule
from tf8.ad.jvp_rules import JVP_RULES
from tf8.ad.tape_rules import FALLBACKS
from tf8.ops.definition import DERIVED

FEW = settings(max_examples=max(2, settings.default.max_examples // 10))
SHAPES = hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)
PAIRS = [(name, dtype) for name in DIFFERENTIABLE for dtype in dtypes_of(name)]


def _leaves(tree):
    return [np.asarray(x) for x in tf8.tree.tree_leaves(tree)]


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
@FEW
@given(base=SHAPES, seed=st.integers(0, 2**32 - 1))
def test_every_row_derives_its_rules_on_avals_and_matches_the_graph_path(pair, base, seed):
    name, dtype = pair
    call = draw_call(base, seed, name, dtype)
    if not call.positions:
        return
    before = dict(FALLBACKS)
    out, pull = tf8.vjp(call, *call.args)
    ct = np.ones_like(np.asarray(out))
    tangents = tuple(np.full_like(x, 0.5) for x in call.args)
    taped = (pull(ct), tf8.jvp(call, tuple(call.args), tangents))
    assert dict(FALLBACKS) == before, f"{name}: a rule fell back: {dict(UNDERIVED)}"
    with tape_module.graph_path_only():  # the graph path: the rules applied to the program
        _, graph_pull = tf8.vjp(call, *call.args)
        graph = (graph_pull(ct), tf8.jvp(call, tuple(call.args), tangents))
    for a, b in zip(_leaves(taped), _leaves(graph)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=name)


def test_a_derived_pullback_is_one_numpy_function_made_once():
    x = tf8.tensor(np.linspace(0.1, 1.0, 4))
    y = tnp.sin(x)
    op = tf8.lax.core.make_primitive("sin", 1, {})
    found = pullback(op, [x], [y], (True,))
    assert found is pullback(op, [x], [y], (True,))  # cached
    source = found.run.source
    assert "cos(" in source and "multiply(" in source
    assert re.search(r"\bk\d+\(", source) is None, source  # no kernel wrapper called
    (ct,) = found.run(np.asarray(x), np.asarray(y), np.full(4, 2.0))
    np.testing.assert_allclose(ct, 2.0 * np.cos(np.asarray(x)), rtol=1e-15)
    jvp = tangent_rule(op, [x], [y], (True,))
    (t,) = jvp.run(np.asarray(x), np.asarray(y), np.full(4, 3.0))
    np.testing.assert_allclose(t, 3.0 * np.cos(np.asarray(x)), rtol=1e-15)


def test_registering_a_rule_replaces_what_was_derived_from_the_old_one():
    x = np.linspace(0.1, 1.0, 4)
    f = lambda a: tnp.sum(tnp.sin(a))  # noqa: E731
    np.testing.assert_allclose(tf8.grad(f)(x), np.cos(x))
    assert len(DERIVED) > 0
    original = JVP_RULES["sin"]
    try:
        register_rules("sin", jvp=lambda op, primals, outs, ts: [ts[0] * 2.0])
        np.testing.assert_allclose(tf8.grad(f)(x), np.full(4, 2.0))
        np.testing.assert_allclose(tf8.jvp(f, (x,), (np.ones(4),))[1], 8.0)
    finally:
        register_rules("sin", jvp=original)
    np.testing.assert_allclose(tf8.grad(f)(x), np.cos(x))


def _program_ops(fn, *args) -> Counter:
    """The ops of jit(fn)'s compiled program, with their parameters and avals, counted (the
    one walk may sum a value's cotangents in another order than the two walks)."""
    text = tf8.make_program(fn)(*args).pretty()
    return Counter(re.findall(r"= ([a-z_]+(?:\[[^\]]*\])?)\(.*:(.*)$", text, re.M))


PROGRAMS = {
    "chain": (lambda x: tnp.sum(tnp.sin(x) * x + tnp.exp(-x) / (1.0 + x * x)), (np.ones(5),)),
    "mlp": (
        lambda w: tnp.sum(tnp.tanh(np.ones((3, 4)) @ w) ** 2),
        (np.linspace(-1.0, 1.0, 8).reshape(4, 2),),
    ),
    "reductions": (lambda x: tnp.max(x, axis=0).sum() + tnp.logaddexp(x, 1.0).mean(), (np.eye(3),)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jit_grad_in_one_walk_compiles_to_the_two_walks_program(name, monkeypatch):
    """The one backward walk over derived pullbacks emits the ops jvp + transpose emit."""
    from tf8.ad import transforms

    f, args = PROGRAMS[name]
    one_walk = _program_ops(tf8.grad(f), *args)
    monkeypatch.setattr(transforms, "vjp_walk", lambda *a, **k: None)  # the two walks
    two_walks = _program_ops(tf8.grad(f), *args)
    assert sum(one_walk.values()) > 5
    assert one_walk == two_walks
    np.testing.assert_allclose(tf8.jit(tf8.grad(f))(*args), tf8.grad(f)(*args), rtol=1e-12)


def test_the_caches_keep_no_custom_rule_call():
    """A custom_vjp/custom_jvp call is its own op, holding its arrays: the plan and
    derived-rule caches keyed by op would never find it again, so they must not keep it
    (a training loop would otherwise keep every step's residuals)."""
    from tf8.ops.definition import PLANS

    @tf8.custom_vjp
    def g(a):
        return tnp.sin(a)

    g.defvjp(lambda a: (tnp.sin(a), a), lambda r, ct: (ct * tnp.cos(r),))

    @tf8.custom_jvp
    def h(a):
        return tnp.sin(a)

    h.defjvp(lambda p, t: (tnp.sin(p[0]), tnp.cos(p[0]) * t[0]))
    x = np.linspace(0.1, 1.0, 5)

    def step():
        np.testing.assert_allclose(tf8.grad(lambda a: tnp.sum(g(a) * h(a)))(x), np.sin(2 * x))
        tf8.jvp(lambda a: tnp.sum(h(a)), (x,), (x,))

    for _ in range(3):
        step()
    sizes = (len(PLANS), len(DERIVED))
    for _ in range(20):
        step()
    assert (len(PLANS), len(DERIVED)) == sizes
