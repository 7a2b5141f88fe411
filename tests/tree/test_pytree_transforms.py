"""Every transform and control-flow op accepts every kind of registered pytree node:
a `register_dataclass` dataclass, a `register_pytree_node_class` class, a `Partial`, and a
namedtuple registered with some fields kept as aux data (an optimizer state)."""

from __future__ import annotations

import dataclasses
from collections import namedtuple
from typing import Any

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import lax, tree_util
from tf8.errors import ControlFlowTypeError, TreeStructureError
from tf8.lax.control.checks import leaf_paths


@tree_util.register_dataclass
@dataclasses.dataclass
class Params:
    w: Any
    b: Any
    scale: float = dataclasses.field(default=2.0, metadata=dict(static=True))


@tree_util.register_pytree_node_class
class Affine:
    def __init__(self, a: Any, c: Any, name: str = "aff"):
        self.a, self.c, self.name = a, c, name

    def tree_flatten(self) -> tuple[tuple[Any, Any], str]:
        return (self.a, self.c), self.name

    @classmethod
    def tree_unflatten(cls, name: str, children: Any) -> Affine:
        return cls(*children, name=name)


# an optax-like state: `count` and `mu` are leaves, `lr` and `cfg` are aux data (cfg a dict)
OptState = namedtuple("OptState", "count mu lr cfg")
tree_util.register_pytree_node(
    OptState,
    lambda s: ((s.count, s.mu), (s.lr, s.cfg)),
    lambda aux, c: OptState(c[0], c[1], *aux),
)


def _scaled(x: Any, k: Any) -> Any:
    return x * k


def make(kind: str, value: float = 1.0) -> Any:
    """A node of `kind` whose leaves are float64 vectors of length 3 (and a scalar)."""
    v = np.full(3, value)
    if kind == "dataclass":
        return Params(w=v, b=np.float64(value))
    if kind == "class":
        return Affine(v, np.float64(value))
    if kind == "partial":
        return tree_util.Partial(_scaled, v, k=np.float64(value))
    return OptState(np.float64(value), v, 0.5, {"nesterov": True})


def total(node: Any) -> Any:
    """A scalar depending on every leaf of `node`."""
    if isinstance(node, Params):
        return tnp.sum(node.w * node.scale) + node.b
    if isinstance(node, Affine):
        return tnp.sum(node.a) * node.c
    if isinstance(node, tree_util.Partial):
        return tnp.sum(node())
    return tnp.sum(node.mu * node.lr) + node.count


def step(node: Any) -> Any:
    """`node` with every leaf changed (same structure, same aux data)."""
    return tree_util.tree_map(lambda x: x * 2.0 + 1.0, node)


KINDS = ["dataclass", "class", "partial", "optstate"]


def leaves(node: Any) -> list[np.ndarray]:
    return [np.asarray(x) for x in tree_util.tree_leaves(node)]


def assert_same_tree(got: Any, want: Any) -> None:
    assert tree_util.tree_structure(got) == tree_util.tree_structure(want)
    for g, w in zip(leaves(got), leaves(want)):
        np.testing.assert_allclose(g, w)


@pytest.mark.parametrize("kind", KINDS)
def test_jit_takes_and_returns_the_node(kind: str) -> None:
    node = make(kind)
    out = tf8.jit(step)(node)
    assert type(out) is type(node)
    assert_same_tree(out, step(node))
    assert float(tf8.jit(total)(node)) == pytest.approx(float(total(node)))


@pytest.mark.parametrize("kind", KINDS)
def test_grad_has_the_structure_of_the_node(kind: str) -> None:
    node = make(kind, 3.0)
    g = tf8.grad(total)(node)
    assert tree_util.tree_structure(g) == tree_util.tree_structure(node)
    # total is linear in each leaf except for the products: check two leaves by hand
    expected = {
        "dataclass": [np.full(3, 2.0), 1.0],  # d/dw sum(w * 2) , d/db b
        "class": [np.full(3, 3.0), 9.0],  # d/da sum(a) * c, d/dc sum(a)
        "partial": [np.full(3, 3.0), 9.0],  # d/dv sum(v * k), d/dk sum(v)
        "optstate": [1.0, np.full(3, 0.5)],  # d/dcount, d/dmu sum(mu * lr)
    }[kind]
    for got, want in zip(leaves(g), expected):
        np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("kind", KINDS)
def test_vmap_maps_over_the_leaves(kind: str) -> None:
    batch = tree_util.tree_map(lambda x: np.stack([x, x + 1.0]), make(kind))
    out = tf8.vmap(total)(batch)
    want = [float(total(tree_util.tree_map(lambda x, i=i: x[i], batch))) for i in range(2)]
    np.testing.assert_allclose(np.asarray(out), want)
    mapped = tf8.vmap(step)(batch)
    assert type(mapped) is type(batch)
    assert_same_tree(mapped, step(batch))


@pytest.mark.parametrize("kind", KINDS)
def test_fori_loop_carries_the_node(kind: str) -> None:
    node = make(kind)
    out = lax.fori_loop(0, 3, lambda i, n: step(n), node)
    assert_same_tree(out, step(step(step(node))))
    assert_same_tree(tf8.jit(lambda n: lax.fori_loop(0, 3, lambda i, m: step(m), n))(node), out)


@pytest.mark.parametrize("kind", KINDS)
def test_scan_carries_the_node_and_stacks_it(kind: str) -> None:
    node = make(kind)

    def body(carry: Any, x: Any) -> tuple[Any, Any]:
        return step(carry), carry

    carry, ys = lax.scan(body, node, None, length=2)
    assert_same_tree(carry, step(step(node)))
    want_ys = tree_util.tree_map(lambda a, b: np.stack([a, b]), node, step(node))
    assert_same_tree(ys, want_ys)


@pytest.mark.parametrize("kind", KINDS)
def test_cond_and_while_loop_take_the_node(kind: str) -> None:
    node = make(kind)
    for pred, want in ((True, step(node)), (False, node)):
        assert_same_tree(lax.cond(pred, step, lambda n: n, node), want)
    out = lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, step(c[1])), (0, node))
    assert int(out[0]) == 2
    assert_same_tree(out[1], step(step(node)))


def test_grad_through_fori_loop_of_an_optimizer_state() -> None:
    # the reported crash: a namedtuple registered with aux fields as a loop carry (under grad)
    def loss(mu: Any) -> Any:
        state = OptState(np.float64(0.0), mu, 0.5, {"nesterov": True})
        out = lax.fori_loop(0, 2, lambda i, s: s._replace(mu=s.mu * s.lr, count=s.count + 1), state)
        return tnp.sum(out.mu) + out.count

    np.testing.assert_allclose(np.asarray(tf8.grad(loss)(np.ones(3))), np.full(3, 0.25))


def test_a_carry_that_changes_aux_data_is_a_structure_error() -> None:
    node = make("optstate")
    with pytest.raises(TreeStructureError, match="OptState"):
        lax.fori_loop(0, 2, lambda i, s: s._replace(lr=0.25), node)


def test_a_carry_that_changes_a_leaf_type_names_the_leaf_by_its_key_path() -> None:
    node = make("optstate")
    with pytest.raises(ControlFlowTypeError, match=r"\[<flat index 1>\]"):
        lax.fori_loop(0, 2, lambda i, s: s._replace(mu=s.mu[:2]), node)
    params = make("dataclass")
    with pytest.raises(ControlFlowTypeError, match=r"\]\.w has type"):
        lax.fori_loop(0, 2, lambda i, p: Params(p.w.astype(np.float32), p.b), params)


def test_leaf_paths_are_key_paths() -> None:
    td = tree_util.tree_structure(
        {"p": Params(1.0, 2.0), "s": make("optstate"), "l": [3.0, (4.0,)], "x": 5.0}
    )
    assert leaf_paths(td) == [
        "['l'][0]",
        "['l'][1][0]",
        "['p'].w",
        "['p'].b",
        "['s'][<flat index 0>]",
        "['s'][<flat index 1>]",
        "['x']",
    ]
    assert leaf_paths(tree_util.tree_structure(1.0)) == ["(the value itself)"]


def test_leaf_paths_when_unflatten_rejects_markers() -> None:
    class Picky:
        def __init__(self, x: Any, y: Any) -> None:
            self.x, self.y = float(x), y  # float() fails on a marker

    tree_util.register_pytree_node(Picky, lambda p: ((p.x, p.y), None), lambda _, c: Picky(*c))
    td = tree_util.tree_structure([Picky(1.0, (2.0, 3.0))])
    assert leaf_paths(td) == ["[0][0]", "[0][1][0]", "[0][1][1]"]
