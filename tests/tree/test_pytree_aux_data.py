"""Aux data of custom nodes may be unhashable (a dict, a list, a set): JAX accepts it, equality
is `==`, and a PyTreeDef's hash still agrees with its equality (jit's cache keys on it)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tf8
from tf8 import tree, tree_util
from tf8.errors import TreeStructureError


class Config:
    """A node whose aux data is whatever `aux` is (a dict, list, set, array, ...)."""

    def __init__(self, x: Any, aux: Any) -> None:
        self.x, self.aux = x, aux


tree_util.register_pytree_node(
    Config, lambda c: ((c.x,), c.aux), lambda aux, ch: Config(ch[0], aux)
)


def test_unhashable_aux_data_is_accepted() -> None:
    node = Config(1.0, {"lr": 0.1, "betas": [0.9, 0.99]})
    leaves, treedef = tree.flatten(node)
    assert leaves == [1.0]
    # jax 0.10.2 repr
    assert repr(treedef) == "PyTreeDef(CustomNode(Config[{'lr': 0.1, 'betas': [0.9, 0.99]}], [*]))"
    rebuilt = treedef.unflatten([2.0])
    assert rebuilt.x == 2.0 and rebuilt.aux == {"lr": 0.1, "betas": [0.9, 0.99]}
    assert tree.map(lambda v: v + 1, node).aux is node.aux


def test_equality_is_by_value_and_hash_agrees() -> None:
    cases = [
        ({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}, {"a": 1, "b": [1, 3]}),
        ([1, {2}], [1, {2}], [1, {3}]),
        ({1, 2}, frozenset({1, 2}), {1}),  # a set equals a frozenset: same hash too
    ]
    for aux, equal, different in cases:
        a, b, c = (tree.structure(Config(0.0, v)) for v in (aux, equal, different))
        assert a == b and hash(a) == hash(b)
        assert a != c
        assert {a: "hit"}.get(b) == "hit" and {a: "hit"}.get(c) is None


def test_aux_data_whose_equality_is_not_a_bool() -> None:
    arr = np.arange(3)
    a = tree.structure(Config(0.0, arr))
    assert a == tree.structure(Config(0.0, arr))  # the same object
    assert a != tree.structure(Config(0.0, np.arange(3)))  # `==` is an array: not equal
    assert isinstance(hash(a), int)


def test_jit_cache_keys_on_unhashable_aux_by_value() -> None:
    traces = []

    @tf8.jit
    def apply(node: Config) -> Any:
        traces.append(dict(node.aux))
        return node.x * node.aux["scale"]

    assert float(apply(Config(np.float64(2.0), {"scale": 3.0}))) == 6.0
    assert float(apply(Config(np.float64(4.0), {"scale": 3.0}))) == 12.0  # equal aux: cached
    assert len(traces) == 1
    assert float(apply(Config(np.float64(4.0), {"scale": 0.5}))) == 2.0  # new aux: retraced
    assert traces == [{"scale": 3.0}, {"scale": 0.5}]


def test_mismatched_unhashable_aux_is_a_structure_error() -> None:
    with pytest.raises(TreeStructureError, match="does not match"):
        tree.map(lambda a, b: a + b, Config(1, {"k": 1}), Config(2, {"k": 2}))
    assert tree.map(lambda a, b: a + b, Config(1, {"k": [1]}), Config(2, {"k": [1]})).x == 3
