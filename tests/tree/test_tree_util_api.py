"""tf8.tree_util and tf8.tree against jax.tree_util / jax.tree 0.10.2 (expected values were
recorded by hand from jax 0.10.2 with JAX_ENABLE_X64=1)."""

from __future__ import annotations

import dataclasses
import functools
import pickle
from collections import OrderedDict, defaultdict, namedtuple
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tf8 import tree, tree_util
from tf8.errors import ParameterError, TreeStructureError
from tf8.tree_util import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    Partial,
    PyTreeDef,
    SequenceKey,
    keystr,
)

P = namedtuple("P", "x y")

# dir(jax.tree_util) and dir(jax.tree) in jax 0.10.2, public names
JAX_TREE_UTIL = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial",
    "PyTreeDef", "SequenceKey", "all_leaves", "default_registry", "flatten_one_level",
    "flatten_one_level_with_keys", "is_tree_node", "keystr", "register_dataclass",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "register_static", "tree_all", "tree_broadcast",
    "tree_flatten", "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path",
    "tree_map", "tree_map_with_path", "tree_reduce", "tree_reduce_associative",
    "tree_structure", "tree_transpose", "tree_unflatten", "treedef_children",
    "treedef_is_leaf", "treedef_tuple",
]  # fmt: skip
JAX_TREE = [
    "all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path", "map",
    "map_with_path", "reduce", "reduce_associative", "static", "structure", "transpose",
    "unflatten",
]  # fmt: skip


def test_every_jax_name_is_there() -> None:
    assert [n for n in JAX_TREE_UTIL if not hasattr(tree_util, n)] == []
    assert [n for n in JAX_TREE if not hasattr(tree, n)] == []
    assert set(JAX_TREE_UTIL) <= set(tree_util.__all__)
    # the long names other tf8 modules use stay in tf8.tree
    for name in ("tree_flatten", "tree_unflatten", "tree_leaves", "tree_map", "PyTreeDef"):
        assert getattr(tree, name) is getattr(tree_util, name)
    assert tree.register_pytree_node is tree_util.register_pytree_node


MIXED = {
    "b": [1, (2, 3)],
    "a": P(4, None),
    "c": OrderedDict([("z", 5), ("y", 6)]),
}


def test_key_paths_and_keystr_as_jax() -> None:
    pairs, treedef = tree_util.tree_flatten_with_path(MIXED)
    # from jax 0.10.2
    assert [(keystr(p), keystr(p, simple=True, separator="/"), v) for p, v in pairs] == [
        ("['a'].x", "a/x", 4),
        ("['b'][0]", "b/0", 1),
        ("['b'][1][0]", "b/1/0", 2),
        ("['b'][1][1]", "b/1/1", 3),
        ("['c']['z']", "c/z", 5),
        ("['c']['y']", "c/y", 6),
    ]
    assert pairs[0][0] == (DictKey("a"), GetAttrKey("x"))
    assert pairs[2][0] == (DictKey("b"), SequenceKey(1), SequenceKey(0))
    assert treedef == tree_util.tree_structure(MIXED)
    assert tree_util.tree_leaves_with_path(MIXED) == pairs


def test_key_objects() -> None:
    assert repr(DictKey("a")) == "DictKey(key='a')" and str(DictKey("a")) == "['a']"
    assert repr(SequenceKey(0)) == "SequenceKey(idx=0)" and str(SequenceKey(0)) == "[0]"
    assert repr(GetAttrKey("x")) == "GetAttrKey(name='x')" and str(GetAttrKey("x")) == ".x"
    assert str(FlattenedIndexKey(3)) == "[<flat index 3>]"
    assert DictKey(0) != SequenceKey(0) and DictKey(0) != 0
    assert hash(DictKey("a")) == hash(DictKey("a"))
    assert pickle.loads(pickle.dumps(DictKey("a"))) == DictKey("a")
    match GetAttrKey("w"):
        case GetAttrKey(name=n):
            assert n == "w"
    path = (DictKey("a"), SequenceKey(0), GetAttrKey("x"), FlattenedIndexKey(1))
    assert keystr(path) == "['a'][0].x[<flat index 1>]"  # jax 0.10.2
    assert keystr((DictKey(1), "x", 3), simple=True, separator=".") == "1.x.3"  # jax 0.10.2


def test_custom_nodes_without_keys_get_flat_indices() -> None:
    pa = Partial(max, 1, key=None)
    # jax 0.10.2: [((FlattenedIndexKey(key=0), SequenceKey(idx=0)), 1)]
    assert tree_util.tree_flatten_with_path(pa)[0] == [((FlattenedIndexKey(0), SequenceKey(0)), 1)]
    assert repr(tree_util.tree_structure(pa)) == (
        "PyTreeDef(CustomNode(Partial[<built-in function max>], [(*,), {'key': None}]))"
    )


def test_is_leaf_with_and_without_path() -> None:
    got = tree_util.tree_flatten_with_path(
        [1, [2]], is_leaf=lambda p, x: len(p) == 1, is_leaf_takes_path=True
    )[0]
    assert got == [((SequenceKey(0),), 1), ((SequenceKey(1),), [2])]
    assert tree_util.tree_flatten({"a": 1}, is_leaf=lambda x: isinstance(x, dict))[0] == [{"a": 1}]
    got = tree_util.tree_leaves_with_path([(1, 2), 3], is_leaf=lambda x: isinstance(x, tuple))
    assert got == [((SequenceKey(0),), (1, 2)), ((SequenceKey(1),), 3)]


def test_map_with_path_over_several_trees() -> None:
    got = tree_util.tree_map_with_path(
        lambda p, x, y: (keystr(p), x + y), {"a": 1, "b": [2]}, {"a": 10, "b": [20]}
    )
    assert got == {"a": ("['a']", 11), "b": [("['b'][0]", 22)]}  # jax 0.10.2
    with pytest.raises(TreeStructureError, match="tree_map_with_path: tree #1"):
        tree_util.tree_map_with_path(lambda p, x, y: x, [1, 2], [1])
    assert tree.map_with_path is tree_util.tree_map_with_path


def test_reduce_all_transpose_broadcast() -> None:
    assert tree.reduce(lambda a, b: a + b, [1, 2, 3]) == 6
    assert tree.reduce(lambda a, b: a + b, [1, 2], 10) == 13
    assert tree.all([1, True, []]) is True  # [] is a node without leaves
    assert tree.all([1, 0]) is False
    assert tree.reduce_associative(lambda a, b: [a, b], [1, 2, 3, 4, 5]) == [[1, 2], [3, [4, 5]]]
    assert tree.reduce_associative(lambda a, b: a + b, [], identity=0) == 0
    with pytest.raises(ParameterError, match="identity"):
        tree.reduce_associative(lambda a, b: a + b, [])
    outer, inner = tree.structure([0, 0]), tree.structure((0, 0, 0))
    assert tree.transpose(outer, inner, [(1, 2, 3), (4, 5, 6)]) == ([1, 4], [2, 5], [3, 6])
    assert tree.transpose(outer, None, [(1, 2, 3), (4, 5, 6)]) == ([1, 4], [2, 5], [3, 6])
    with pytest.raises(TreeStructureError, match="tree_transpose"):
        tree.transpose(outer, inner, [(1, 2, 3), (4, 5)])
    # jax 0.10.2
    assert tree.broadcast([1, {"a": 2}], [[3, 4], {"a": (5, 6)}]) == [[1, 1], {"a": (2, 2)}]
    assert tree.broadcast({"a": 1}, {"a": [3, 4]}) == {"a": [1, 1]}
    assert tree.broadcast([1, None], [(2, 3), None]) == [(1, 1), None]
    with pytest.raises(TreeStructureError, match="tree_broadcast"):
        tree.broadcast([1, 2], [1, 2, 3])


def test_treedef_functions_and_methods() -> None:
    treedef = tree.structure([(1, 2), 3, {"a": 4}])
    assert tree_util.treedef_children(treedef) == [tree.structure(v) for v in [(1, 2), 3, {"a": 4}]]
    assert repr(treedef.children()) == "[PyTreeDef((*, *)), PyTreeDef(*), PyTreeDef({'a': *})]"
    assert tree.structure(1).children() == []
    assert tree_util.treedef_is_leaf(tree.structure(1))
    assert tree_util.treedef_is_leaf(tree.structure(None))  # one node, no leaves (as jax)
    assert not tree_util.treedef_is_leaf(tree.structure([1]))
    both = tree_util.treedef_tuple([tree.structure(1), tree.structure([1])])
    assert both == tree.structure((0, [0])) and repr(both) == "PyTreeDef((*, [*]))"
    # node_data as jax 0.10.2
    assert tree.structure({"b": 1, "a": 2}).node_data() == (dict, ["a", "b"])
    assert tree.structure(None).node_data() == (type(None), None)
    assert tree.structure(P(1, 2)).node_data() == (P, None)
    assert tree.structure(OrderedDict(a=1)).node_data() == (OrderedDict, ("a",))
    assert tree.structure(7).node_data() is None
    rebuilt = PyTreeDef.from_node_data_and_children(
        tree_util.default_registry, treedef.node_data(), treedef.children()
    )
    assert rebuilt == treedef
    assert repr(tree.structure([0, 0]).compose(tree.structure((0, 0)))) == (
        "PyTreeDef([(*, *), (*, *)])"
    )
    # jax 0.10.2: walk(f_node(children, aux), f_leaf, leaves)
    walked = tree.structure([1, (2, 3)]).walk(lambda c, aux: (aux, c), lambda x: x * 10, [1, 2, 3])
    assert walked == (None, (10, (None, (20, 30))))
    assert tree.structure({"a": 1, "b": None}).walk(lambda c, a: (a, c), None, [1]) == (
        ("a", "b"),
        (1, (None, ())),
    )
    assert (treedef.num_leaves, treedef.num_nodes) == (4, 7)


def test_all_leaves_and_is_tree_node() -> None:
    assert tree_util.all_leaves([1, 2]) and not tree_util.all_leaves([1, [2]])
    assert not tree_util.all_leaves([None])  # jax 0.10.2: None is a node
    # jax 0.10.2: False, True, False
    assert not tree_util.all_leaves([[1], 2], is_leaf=lambda x: isinstance(x, list))
    assert tree_util.all_leaves([(1,), 2], is_leaf=lambda x: isinstance(x, tuple))
    assert not tree_util.all_leaves([(1,), [2]], is_leaf=lambda x: isinstance(x, tuple))
    assert tree_util.is_tree_node(P) and tree_util.is_tree_node(Partial)
    assert not tree_util.is_tree_node(int)


def test_flatten_one_level() -> None:
    # jax 0.10.2: (([1], 2), ('a', 'b')) -- tf8 gives the children as a list
    assert tree_util.flatten_one_level({"a": [1], "b": 2}) == ([[1], 2], ("a", "b"))
    children, aux = tree_util.flatten_one_level_with_keys({"a": [1], "b": 2})
    assert children == [(DictKey("a"), [1]), (DictKey("b"), 2)] and aux == ("a", "b")
    with pytest.raises(TreeStructureError, match="can't tree-flatten type: <class 'int'>"):
        tree_util.flatten_one_level(1)


def test_registry_objects() -> None:
    registry = tree_util.PyTreeRegistry()

    class Only:
        def __init__(self, v: Any) -> None:
            self.v = v

    registry.register_node(Only, lambda o: ((o.v,), None), lambda _, c: Only(*c))
    assert registry.flatten(Only(3))[0] == [3]
    assert tree_util.tree_leaves(Only(3))[0].v == 3  # not in the default registry
    assert registry.is_node(Only) and not tree_util.is_tree_node(Only)
    assert registry.flatten_one_level(5) is None


def test_register_dataclass_forms() -> None:
    @tree_util.register_dataclass
    @dataclasses.dataclass
    class D:
        x: Any
        y: Any
        op: str = tree.static(default="a")

    pairs, treedef = tree_util.tree_flatten_with_path(D(1, 2))
    assert pairs == [((GetAttrKey("x"),), 1), ((GetAttrKey("y"),), 2)]  # jax 0.10.2
    assert repr(treedef) == "PyTreeDef(CustomNode(D[('a',)], [*, *]))"  # jax 0.10.2
    assert treedef.unflatten([5, 6]) == D(5, 6)
    assert tree.structure(D(1, 2, "b")) != treedef

    @functools.partial(tree_util.register_dataclass, data_fields=["y"], meta_fields=["x"])
    @dataclasses.dataclass
    class E:
        x: int
        y: Any

    assert tree.flatten(E(1, 2))[0] == [2]

    class NotDC:
        def __init__(self, a: Any, b: Any) -> None:
            self.a, self.b = a, b

    tree_util.register_dataclass(NotDC, data_fields=["a"], meta_fields=["b"])
    assert tree.map(lambda v: v + 1, NotDC(1, "m")).a == 2


def test_register_dataclass_errors() -> None:
    @dataclasses.dataclass
    class F:
        x: Any
        y: Any

    with pytest.raises(TreeStructureError, match="both"):
        tree_util.register_dataclass(F, data_fields=["x"])
    with pytest.raises(TreeStructureError, match=r"missing \['y'\]"):
        tree_util.register_dataclass(F, data_fields=["x"], meta_fields=[])
    with pytest.raises(TreeStructureError, match="overlap"):
        tree_util.register_dataclass(type("G", (), {}), data_fields=["x"], meta_fields=["x"])
    with pytest.raises(TreeStructureError, match="not a dataclass"):
        tree_util.register_dataclass(type("H", (), {}))
    tree_util.register_dataclass(F, data_fields=["x"], meta_fields=[], drop_fields=["y"])
    with pytest.raises(TreeStructureError, match="already registered"):
        tree_util.register_dataclass(F, data_fields=["x"], meta_fields=["y"])


def test_register_with_keys_and_classes() -> None:
    @tree_util.register_pytree_with_keys_class
    class Special:
        def __init__(self, x: Any, y: Any) -> None:
            self.x, self.y = x, y

        def tree_flatten_with_keys(self) -> Any:
            return ((GetAttrKey("x"), self.x), (GetAttrKey("y"), self.y)), None

        @classmethod
        def tree_unflatten(cls, aux: Any, children: Any) -> Special:
            return cls(*children)

    assert [keystr(p) for p, _ in tree.leaves_with_path(Special(1, [2]))] == [".x", ".y[0]"]
    assert tree.leaves(Special(1, [2])) == [1, 2]
    assert tree.map(lambda v: v * 3, Special(1, 2)).y == 6

    @tree_util.register_static
    class Mode(str):
        pass

    leaves, treedef = tree.flatten([1, Mode("train")])
    assert leaves == [1] and treedef.unflatten([2])[1] == "train"
    assert tree.structure(Mode("eval")) != tree.structure(Mode("train"))


def test_partial_is_a_pytree() -> None:
    add = Partial(lambda a, b, c=0: a + b + c, 1, c=10)
    assert add(2) == 13
    assert tree.leaves(add) == [1, 10]
    doubled = tree.map(lambda v: v * 2, add)
    assert type(doubled) is Partial and doubled(2) == 24
    inner = functools.partial(lambda a, b: a - b, 5)
    wrapped = Partial(inner)
    assert wrapped(1) == 4 and tree.leaves(wrapped) == []  # the inner partial stays aux data
    assert tree.structure(Partial(max, 1)) == tree.structure(Partial(max, 2))
    assert tree.structure(Partial(max, 1)) != tree.structure(Partial(min, 1))


def test_defaultdict_keeps_insertion_order_unlike_jax() -> None:
    # jax 0.10.2 sorts a defaultdict's keys ([8, 7] here); tf8 keeps insertion order
    dd = defaultdict(list, {"q": 7, "p": 8})
    assert tree.leaves(dd) == [7, 8]
    assert [keystr(p) for p, _ in tree.leaves_with_path(dd)] == ["['q']", "['p']"]


_leaves = st.one_of(st.integers(-9, 9), st.text(max_size=2))
_keys = st.text(alphabet="abc", min_size=1, max_size=2)
_trees = st.recursive(
    st.one_of(_leaves, st.none()),
    lambda kids: st.one_of(
        st.lists(kids, max_size=3).map(tuple),
        st.lists(kids, max_size=3),
        st.dictionaries(_keys, kids, max_size=3),
        st.dictionaries(_keys, kids, max_size=3).map(OrderedDict),
        st.tuples(kids, kids).map(lambda c: P(*c)),
    ),
    max_leaves=10,
)


def _follow(node: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        if isinstance(key, SequenceKey):
            node = node[key.idx]
        elif isinstance(key, DictKey):
            node = node[key.key]
        else:
            node = getattr(node, key.name)
    return node


@settings(max_examples=60, deadline=None, derandomize=True)
@given(_trees)
def test_paths_lead_to_their_leaves(t: Any) -> None:
    pairs, treedef = tree_util.tree_flatten_with_path(t)
    leaves, plain_def = tree_util.tree_flatten(t)
    assert treedef == plain_def and [leaf for _, leaf in pairs] == leaves
    for path, leaf in pairs:
        assert _follow(t, path) is leaf
    assert len({keystr(p) for p, _ in pairs}) == len(pairs)  # distinct paths
    assert tree_util.tree_map_with_path(lambda p, x: _follow(t, p) is x, t) == tree_util.tree_map(
        lambda x: True, t
    )
