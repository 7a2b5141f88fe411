"""Pytrees: round trips, JAX's conventions, tree_map over several trees, error messages."""

from __future__ import annotations

import pickle
from collections import OrderedDict, defaultdict, namedtuple
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tf8.errors import TreeStructureError
from tf8.tree import (
    PyTreeDef,
    register_pytree_node,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)

Point = namedtuple("Point", ["x", "y"])


class Box:
    """A custom node: two children and a hashable label as aux data."""

    def __init__(self, label: str, a: Any, b: Any):
        self.label, self.a, self.b = label, a, b

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is Box and (self.label, self.a, self.b) == (other.label, other.a, other.b)  # type: ignore[attr-defined]
        )


register_pytree_node(Box, lambda b: ((b.a, b.b), b.label), lambda label, c: Box(label, *c))

PROPERTY = settings(max_examples=40, deadline=None, derandomize=True)

leaves = st.one_of(st.integers(-100, 100), st.text(max_size=3), st.booleans())
keys = st.text(alphabet="abcdef", min_size=1, max_size=2)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=3).map(tuple),
        st.lists(children, max_size=3),
        st.dictionaries(keys, children, max_size=3),
        st.dictionaries(keys, children, max_size=3).map(OrderedDict),
        st.dictionaries(keys, children, max_size=3).map(lambda d: defaultdict(list, d)),
        st.tuples(children, children).map(lambda c: Point(*c)),
        st.tuples(keys, children, children).map(lambda c: Box(*c)),
    )


trees = st.recursive(st.one_of(leaves, st.none()), _containers, max_leaves=12)


def _shape_of(tree: Any) -> Any:
    """Types all the way down, with dict key order: `==` alone ignores namedtuple vs tuple."""
    if type(tree) is dict:  # plain dicts are rebuilt in sorted key order
        return (dict, [(k, _shape_of(tree[k])) for k in sorted(tree)])
    if isinstance(tree, dict):
        return (type(tree), [(k, _shape_of(v)) for k, v in tree.items()])
    if isinstance(tree, (list, tuple)):
        return (type(tree), [_shape_of(v) for v in tree])
    if isinstance(tree, Box):
        return (Box, tree.label, _shape_of(tree.a), _shape_of(tree.b))
    return type(tree)


# --- properties ---------------------------------------------------------------------------


@PROPERTY
@given(trees)
def test_flatten_unflatten_round_trip(tree: Any) -> None:
    leaves_, treedef = tree_flatten(tree)
    rebuilt = tree_unflatten(treedef, leaves_)
    assert rebuilt == tree
    assert treedef.num_leaves == len(leaves_)
    assert tree_structure(rebuilt) == treedef
    assert tree_leaves(rebuilt) == leaves_


@PROPERTY
@given(trees)
def test_round_trip_keeps_container_types(tree: Any) -> None:
    assert _shape_of(tree_map(lambda x: x, tree)) == _shape_of(tree)


@PROPERTY
@given(trees)
def test_structure_is_hashable_and_equal_for_equal_trees(tree: Any) -> None:
    a, b = tree_structure(tree), tree_structure(pickle.loads(pickle.dumps(tree)))
    assert a == b and hash(a) == hash(b)
    assert {a: 1}[b] == 1


@PROPERTY
@given(trees)
def test_tree_map_over_two_trees_and_flatten_up_to(tree: Any) -> None:
    treedef = tree_structure(tree)
    assert treedef.flatten_up_to(tree) == tree_leaves(tree)
    assert tree_leaves(tree_map(lambda a, b: (a, b), tree, tree)) == [
        x for leaf in tree_leaves(tree) for x in (leaf, leaf)
    ]


@PROPERTY
@given(trees)
def test_num_nodes_counts_every_node_and_leaf(tree: Any) -> None:
    def count(t: Any) -> int:
        if isinstance(t, dict):
            return 1 + sum(count(v) for v in t.values())
        if isinstance(t, (list, tuple)):
            return 1 + sum(count(v) for v in t)
        return 1 + count(t.a) + count(t.b) if isinstance(t, Box) else 1

    assert tree_structure(tree).num_nodes == count(tree)


# --- JAX semantics ---------------------------------------------------------------------------


def test_dict_children_in_sorted_key_order() -> None:
    assert tree_leaves({"b": 1, "a": 2, "c": 3}) == [2, 1, 3]
    rebuilt = tree_map(lambda x: x, {"b": 1, "a": 2})
    assert list(rebuilt) == ["a", "b"]
    assert tree_structure({"b": 1, "a": 2}) == tree_structure({"a": 0, "b": 0})


def test_ordered_and_default_dicts_keep_insertion_order() -> None:
    od = OrderedDict([("b", 1), ("a", 2)])
    assert tree_leaves(od) == [1, 2]
    assert tree_map(lambda x: x, od) == od and type(tree_map(lambda x: x, od)) is OrderedDict
    dd = defaultdict(list, {"b": 1, "a": 2})
    mapped = tree_map(lambda x: x * 10, dd)
    assert type(mapped) is defaultdict and mapped.default_factory is list
    assert mapped == {"b": 10, "a": 20}
    assert tree_structure(od) != tree_structure(dict(od))


def test_none_is_a_node_without_leaves() -> None:
    assert tree_leaves(None) == []
    assert tree_leaves([None, 1, (None,)]) == [1]
    treedef = tree_structure(None)
    assert (treedef.num_leaves, treedef.num_nodes) == (0, 1)
    assert tree_map(lambda x: x + 1, {"a": None, "b": 1}) == {"a": None, "b": 2}
    assert tree_unflatten(treedef, []) is None


def test_namedtuple_stays_a_namedtuple() -> None:
    mapped = tree_map(lambda v: v * 2, Point(1, (2, 3)))
    assert type(mapped) is Point and mapped == Point(2, (4, 6))
    assert tree_structure(Point(1, 2)) != tree_structure((1, 2))


def test_custom_registered_node() -> None:
    tree = Box("lbl", 1, [2, 3])
    leaves_, treedef = tree_flatten(tree)
    assert leaves_ == [1, 2, 3]
    assert tree_unflatten(treedef, [4, 5, 6]) == Box("lbl", 4, [5, 6])
    assert tree_structure(Box("other", 1, [2, 3])) != treedef  # aux data is part of identity
    assert repr(treedef) == "PyTreeDef(CustomNode(Box['lbl'], [*, [*, *]]))"


def test_is_leaf_stops_descent() -> None:
    tree = {"a": (1, 2), "b": [3, (4, 5)]}
    leaves_, treedef = tree_flatten(tree, is_leaf=lambda x: isinstance(x, tuple))
    assert leaves_ == [(1, 2), 3, (4, 5)]
    assert tree_unflatten(treedef, leaves_) == tree
    sizes = tree_map(lambda x: -1 if x == 3 else len(x), tree, is_leaf=lambda x: type(x) is tuple)
    assert sizes == {"a": 2, "b": [-1, 2]}
    assert tree_map(lambda x: x, None, is_leaf=lambda x: x is None) is None
    assert tree_leaves([None, 1], is_leaf=lambda x: x is None) == [None, 1]


def test_other_objects_are_leaves() -> None:
    class Thing:
        pass

    thing = Thing()
    assert tree_leaves([thing, 1.5, "s", b"b", {1, 2}]) == [thing, 1.5, "s", b"b", {1, 2}]
    assert tree_structure(thing) == tree_structure(3)
    assert repr(tree_structure(thing)) == "PyTreeDef(*)"


def test_tree_map_with_several_trees_uses_the_first_as_prefix() -> None:
    assert tree_map(lambda a, b, c: a + b + c, (1, [2]), (10, [20]), (100, [200])) == (111, [222])
    # a leaf of the first tree matches a whole subtree of the others
    assert tree_map(lambda a, b: (a, b), (1, 2), ([3, 4], {"k": 5})) == ((1, [3, 4]), (2, {"k": 5}))


def test_reprs() -> None:
    assert repr(tree_structure((1, {"a": 2}))) == "PyTreeDef((*, {'a': *}))"
    assert repr(tree_structure((1,))) == "PyTreeDef((*,))"
    assert repr(tree_structure([None, Point(1, 2)])) == "PyTreeDef([None, Point(x=*, y=*)])"
    assert repr(tree_structure(OrderedDict(b=1))) == "PyTreeDef(OrderedDict({'b': *}))"
    assert repr(tree_structure(defaultdict(int, a=1))) == "PyTreeDef(defaultdict(int, {'a': *}))"


def test_treedef_is_immutable_and_distinguishes_containers() -> None:
    treedef = tree_structure([1, 2])
    with pytest.raises(AttributeError):
        treedef.num_leaves = 3  # type: ignore[misc]
    assert isinstance(treedef, PyTreeDef)
    assert treedef != tree_structure((1, 2))
    assert treedef != tree_structure([1, 2, 3])
    assert treedef == tree_structure(["x", "y"])
    assert treedef.unflatten("ab") == ["a", "b"]


# --- errors ------------------------------------------------------------------------------------


def test_tree_map_mismatch_shows_both_structures() -> None:
    with pytest.raises(TreeStructureError) as info:
        tree_map(lambda a, b: a + b, (1, {"a": 2}), (10, {"b": 20}))
    message = str(info.value)
    assert "tree #1" in message and "at tree[1]" in message
    assert "PyTreeDef((*, {'a': *}))" in message and "PyTreeDef((*, {'b': *}))" in message


@pytest.mark.parametrize(
    ("first", "other", "fragment"),
    [
        ((1, 2), (1, 2, 3), "expected (*, *), got (*, *, *)"),
        ([1, 2], (1, 2), "expected [*, *], got (*, *)"),
        ({"a": [1, 2]}, {"a": [1]}, "at tree['a']: expected [*, *], got [*]"),
        ((1, 2), Point(1, 2), "got Point(x=*, y=*)"),
        ([None], [1], "expected None, got a leaf of type int"),
        ([(1,)], [5], "expected (*,), got a leaf of type int"),
    ],
)
def test_mismatch_messages(first: Any, other: Any, fragment: str) -> None:
    with pytest.raises(TreeStructureError, match="does not match") as info:
        tree_map(lambda *xs: xs, first, other)
    assert fragment in str(info.value)
    with pytest.raises(TreeStructureError, match="flatten_up_to"):
        tree_structure(first).flatten_up_to(other)


def test_unflatten_wrong_leaf_count() -> None:
    treedef = tree_structure((1, [2, 3]))
    with pytest.raises(TreeStructureError) as info:
        tree_unflatten(treedef, [1, 2])
    assert str(info.value) == "tree_unflatten: PyTreeDef((*, [*, *])) has 3 leaves, got 2 leaves"
    with pytest.raises(TreeStructureError, match="has 3 leaves, got 4"):
        treedef.unflatten(iter([1, 2, 3, 4]))


def test_registering_a_type_twice() -> None:
    class Pair:
        pass

    register_pytree_node(Pair, lambda p: ((), None), lambda aux, c: Pair())
    with pytest.raises(TreeStructureError, match="Pair is already registered"):
        register_pytree_node(Pair, lambda p: ((), None), lambda aux, c: Pair())
    with pytest.raises(TreeStructureError, match="tuple is already registered"):
        register_pytree_node(tuple, lambda t: (t, None), lambda aux, c: tuple(c))


def test_unhashable_aux_data_is_accepted_as_jax_accepts_it() -> None:
    class Listed:
        pass

    register_pytree_node(Listed, lambda b: ((), ["unhashable"]), lambda aux, c: Listed())
    a, b = tree_structure(Listed()), tree_structure(Listed())
    assert a == b and hash(a) == hash(b)  # equal aux data (by ==): equal structures
