"""vjp_graph: reverse mode in one backward walk gives the very keys of the two walks.

`transpose_graph(jvp_graph(...))` is the reference: for every function here the cotangents
`vjp_graph` records are the same interned keys (so the same programs, values and dtypes),
or it declines (None) and the caller takes the two walks.
"""

from __future__ import annotations

import numpy as np
import pytest

import tf8.numpy as tnp
from tf8.ad.arguments import as_traced, fresh_leaf
from tf8.ad.jvp_rules import JVP_RULES
from tf8.ad.linearize import (
    jvp_graph,
    register_rules,
    transpose_graph,
    unregister_rules,
    vjp_graph,
)
from tf8.jit_arguments import make_placeholder
from tf8.lax.scopes import transform_scope

F64 = np.dtype("float64")


def _chain(v):
    acc = v
    for _ in range(5):
        acc = acc * v + v
    return tnp.sum(acc)


CASES = {
    "chain": (_chain, [(16,)]),
    "sin chain": (lambda v: tnp.sum(tnp.sin(v) * v + v), [(8,)]),
    "square": (lambda v: tnp.sum(v * v), [(3,)]),
    "two arguments": (lambda a, b: tnp.sum(a - b * a), [(3,), (3,)]),
    # sin's tangent mul(t, cos v) is also the first tangent term of v * cos(v): one value
    "shared tangent": (lambda v: tnp.sum(tnp.sin(v) + v * tnp.cos(v)), [(3,)]),
    # v + 1 and v + 2 have one tangent, add(t, zeros): their cotangents add up first
    "shared zeros": (lambda v: tnp.sum((v + 1.0) * (v + 2.0)), [(3,)]),
    "divide by a constant": (lambda v: tnp.sum(v / 10.0 + tnp.tanh(v)), [(4, 3)]),
    "axis sums": (lambda v: tnp.sum(tnp.exp(tnp.sum(v, axis=0)) * 2.0), [(4, 3)]),
    "broadcast": (lambda a, b: tnp.sum(tnp.cos(a + b)), [(4, 3), (3,)]),
    "negation": (lambda v: tnp.sum(-v * v), [(3,)]),
    "unused argument": (lambda a, b: tnp.sum(a * 2.0), [(3,), (3,)]),
    "identity sum": (lambda v: tnp.sum(v), [(3,)]),
    "zero derivative": (lambda v: tnp.sum(tnp.floor(v) * v), [(3,)]),
    "matmul by a constant": (lambda v: tnp.sum(v @ np.arange(9.0).reshape(3, 3)), [(4, 3)]),
    "matmul of the argument": (lambda v: tnp.sum(v @ v.T), [(4, 3)]),
    "layer": (lambda x, w: tnp.sum(tnp.tanh(x @ w) ** 2), [(5, 4), (4, 3)]),
}
FALLBACKS = {
    "divide by a differentiated value": (lambda v: tnp.sum(1.0 / v), [(3,)]),
    "select": (lambda v: tnp.sum(tnp.where(v > 0, v, 2 * v)), [(3,)]),
    "binary elementwise": (lambda v: tnp.sum(tnp.arctan2(v, v + 1.0)), [(3,)]),
}


def _leaves(shapes, concrete):
    rng = np.random.default_rng(0)
    if not concrete:
        return [make_placeholder(s, F64, False) for s in shapes]
    return [fresh_leaf(as_traced(rng.uniform(0.5, 1.5, s)), "argument", True) for s in shapes]


def _both(fn, shapes, concrete):
    """(vjp_graph's cotangents, the two walks' cotangents) of sum-output `fn`."""
    leaves = _leaves(shapes, concrete)
    with transform_scope({leaf.key: f"argument {i}" for i, leaf in enumerate(leaves)}):
        out = fn(*leaves)
    seed = fresh_leaf(as_traced(np.ones((), F64)), "seed", bind=True)
    direct = vjp_graph([out], leaves, [seed])
    tangents = [fresh_leaf(leaf, "tangent", bind=False) for leaf in leaves]
    (out_tangent,) = jvp_graph([out], leaves, tangents)
    return direct, transpose_graph([out_tangent], tangents, [seed])


@pytest.mark.parametrize("name", list(CASES))
def test_vjp_graph_records_the_keys_of_the_two_walks(name):
    fn, shapes = CASES[name]
    with transform_scope(symbolic=True):  # as under jit: nothing is computed
        direct, reference = _both(fn, shapes, False)
    assert direct is not None
    assert len(direct) == len(reference)
    for mine, theirs in zip(direct, reference):
        assert (mine is None) == (theirs is None)
        if mine is not None:
            assert mine.key is theirs.key
            assert mine.aval == theirs.aval


@pytest.mark.parametrize("name", list(CASES))
def test_vjp_graph_computes_the_values_of_the_two_walks(name):
    """On concrete leaves, constants are computed op by op (each walk makes its own leaves
    for them, so keys differ): the cotangents' values are bit for bit the same."""
    fn, shapes = CASES[name]
    with transform_scope():
        direct, reference = _both(fn, shapes, True)
        assert direct is not None
        for mine, theirs in zip(direct, reference):
            assert (mine is None) == (theirs is None)
            if mine is not None:
                assert mine.aval == theirs.aval
                np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs))


@pytest.mark.parametrize("name", list(FALLBACKS))
def test_vjp_graph_declines_ops_without_a_structure_rule(name):
    fn, shapes = FALLBACKS[name]
    with transform_scope(symbolic=True):
        direct, reference = _both(fn, shapes, False)
    assert direct is None
    assert all(c is not None for c in reference)


def test_vjp_graph_declines_a_rule_registered_since_import():
    original = JVP_RULES["sin"]
    register_rules("sin", jvp=lambda op, primals, outputs, tangents: [tangents[0]])
    try:
        with transform_scope(symbolic=True):
            direct, _ = _both(lambda v: tnp.sum(tnp.sin(v)), [(3,)], False)
        assert direct is None
    finally:
        unregister_rules("sin")
        register_rules("sin", jvp=original)


def test_vjp_graph_values_match_the_closed_form():
    x = np.linspace(-1.0, 1.0, 5)
    with transform_scope():
        leaf = fresh_leaf(as_traced(x), "argument", True)
        with transform_scope({leaf.key: "argument 0"}):
            out = tnp.sum(tnp.sin(leaf) * leaf + leaf / 4.0)
        seed = fresh_leaf(as_traced(np.ones((), F64)), "seed", bind=True)
        (grad,) = vjp_graph([out], [leaf], [seed])
        value = np.asarray(grad)
    np.testing.assert_allclose(value, np.cos(x) * x + np.sin(x) + 0.25, rtol=1e-12)
