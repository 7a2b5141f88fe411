"""The first half of the misuse catalogue (tests/api/test_errors.py): tracing, numpy
dispatch and pytree misuses, plus the helpers both halves use.

A row is (id, code that misuses tf8, expected error class, regex on the message); rows
marked `known_bug` are strict xfails documenting a wrong or unclear error in code the
catalogue does not own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import errors
from tf8.tree import register_pytree_node, tree_map, tree_structure, tree_unflatten

T = tf8.tensor


def vector(n: int = 3, dtype: str = "float64") -> tf8.TracedTensor:
    return T(np.ones(n, dtype=dtype))


def placeholder(shape: tuple[Any, ...] = (2,), dtype: str = "float64") -> tf8.TracedTensor:
    return tf8.placeholder(shape, dtype)


def prepared(shape: tuple[Any, ...] = (2,)) -> tf8.Prepared:
    x = placeholder(shape)
    compiled = tf8.GraphCompiler().compile_with_input_specs([x * 2.0], [x])
    return tf8.Runtime().prepare(compiled)


def prepared_pair() -> tf8.Prepared:
    x, y = placeholder(("n",)), placeholder(("n",))
    return tf8.Runtime().prepare(tf8.GraphCompiler().compile_with_input_specs([x * y], [x, y]))


def unused_spec() -> Any:
    x, y = placeholder(), placeholder()
    return tf8.GraphCompiler().compile_with_input_specs([x * 2.0], [x, y])


leaked: list[Any] = []


def leak_a_tracer() -> Any:
    def keep(x: Any) -> Any:
        leaked.append(x)
        return x

    tf8.jit(keep)(np.ones(2))
    return tf8.jit(lambda y: y + leaked[-1])(np.ones(2))


def known_bug(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, reason=reason)


Case = tuple[str, Callable[[], Any], type[Exception], str]

TRACING: list[Any] = [
    ("add-shapes", lambda: vector(3) + vector(4), errors.ShapeError, r"\(3,\) \(4,\)"),
    (
        "matmul-contracted-dim",
        lambda: T(np.ones((2, 3))) @ T(np.ones((2, 3))),
        errors.ShapeError,
        r"contracted dimension.*\(2, 3\)",
    ),
    ("sum-axis", lambda: vector().sum(axis=2), errors.AxisError, r"axis 2.*dimension 1"),
    (
        "reshape-size",
        lambda: T(np.ones(6)).reshape(4, 2),
        errors.ShapeError,
        r"reshape.*\(6,\).*\(4, 2\)",
    ),
    (
        "reshape-two-unknowns",
        lambda: T(np.ones(6)).reshape(-1, -1),
        errors.ShapeError,
        r"one unknown dimension",
    ),
    (
        "concatenate-shapes",
        lambda: tnp.concatenate([T(np.ones((2, 3))), T(np.ones((2, 4)))]),
        errors.ShapeError,
        r"concatenate.*\(2, 3\).*\(2, 4\)",
    ),
    (
        "broadcast-to",
        lambda: tnp.broadcast_to(vector(3), (4,)),
        errors.ShapeError,
        r"broadcast \(3,\) to \(4,\)",
    ),
    (
        "bitwise-float",
        lambda: tnp.bitwise_and(vector(), vector()),
        errors.DTypeError,
        r"bitwise.*float64",
    ),
    ("negate-bool", lambda: -vector(3, "bool"), errors.DTypeError, r"bool.*logical_not"),
    (
        "fmod-complex",
        lambda: tnp.fmod(vector(2, "complex128"), vector(2, "complex128")),
        errors.DTypeError,
        r"complex128",
    ),
    (
        "setitem",
        lambda: vector().__setitem__(0, 1.0),
        errors.InPlaceAssignmentError,
        r"immutable.*t\[i\] = v",
    ),
    (
        "placeholder-int8",
        lambda: tf8.placeholder((3,), "int8"),
        errors.DTypeError,
        r"int8 is not supported",
    ),
    (
        "placeholder-negative-dim",
        lambda: tf8.placeholder((-1,), "float64"),
        errors.ParameterError,
        r"non-negative, got -1",
    ),
    ("tensor-of-strings", lambda: T(np.array(["a"])), errors.DTypeError, r"<U1"),
    (
        "bool-of-placeholder",
        lambda: bool(placeholder(()) > 0),
        errors.ConcretizationError,
        r"bool.*unbound placeholder",
    ),
    (
        "asarray-of-placeholder",
        lambda: np.asarray(placeholder()),
        errors.ConcretizationError,
        r"numpy array.*float64\(2,\)",
    ),
    (
        "len-symbolic",
        lambda: len(placeholder(("n",))),
        errors.ConcretizationError,
        r"symbolic first axis n",
    ),
    (
        "index-with-str",
        lambda: vector()["a"],
        errors.IndexingError,
        r"valid indices, got str",
    ),
    # JAX clamps an out-of-bounds index (tf8 too); an empty axis has nothing to clamp into
    ("index-out-of-bounds", lambda: vector(0)[0], errors.IndexingError, r"index 0.*size 0"),
    (
        "index-too-many",
        lambda: vector(3)[0, 0],
        errors.IndexingError,
        r"too many indices.*1-dimensional, but 2",
    ),
    pytest.param(
        "bool-of-vector",
        lambda: bool(vector(3) > 0),
        errors.Tf8Error,
        r"ambiguous",
    ),
    pytest.param(
        "sum-axis-float",
        lambda: vector().sum(axis=1.5),
        errors.Tf8Error,
        r"axis.*1\.5",
    ),
    pytest.param(
        "float-of-vector",
        lambda: float(vector(3)),
        errors.Tf8Error,
        r"size-1.*float64\(3,\)",
    ),
    pytest.param(
        "tensor-ragged",
        lambda: T([[1.0, 2.0], [3.0]]),
        errors.ShapeError,
        r"inhomogeneous|ragged",
    ),
]

DISPATCH: list[Case] = [
    (
        "np-trim-zeros-of-placeholder",
        lambda: np.trim_zeros(placeholder((4,))),
        errors.ConcretizationError,
        r"trim_zeros",
    ),
    (
        "np-add-out",
        lambda: np.add(placeholder((4,)), 1.0, out=np.ones(4)),
        errors.UnsupportedOperationError,
        r"numpy\.add\(\.\.\., out=\.\.\.\).*immutable",
    ),
    (
        "np-ufunc-where",
        lambda: np.sin(placeholder((4,)), where=np.ones(4, bool)),
        errors.UnsupportedOperationError,
        r"numpy\.sin: arguments \['where'\]",
    ),
    (
        "np-ufunc-at",
        lambda: np.add.at(placeholder((4,)), [0], 1.0),
        errors.UnsupportedOperationError,
        r"numpy\.add\.at.*in place",
    ),
    (
        "np-put-in-place",
        lambda: np.put(placeholder((4,)), [0], 1.0),
        errors.UnsupportedOperationError,
        r"numpy\.put: it writes in place",
    ),
    (
        "np-unique-data-dependent-shape-under-jit",
        lambda: np.unique(placeholder((4,))),
        errors.ConcretizationError,
        r"unique: the number of unique values .*pass size=",
    ),
]

TREES: list[Case] = [
    (
        "unflatten-leaf-count",
        lambda: tree_unflatten(tree_structure((1, 2)), [1]),
        errors.TreeStructureError,
        r"2 leaves, got 1",
    ),
    (
        "tree-map-structures",
        lambda: tree_map(lambda a, b: a, (1, 2), [1, 2]),
        errors.TreeStructureError,
        r"expected \(\*, \*\), got \[\*, \*\]",
    ),
    (
        "register-twice",
        lambda: register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c)),
        errors.TreeStructureError,
        r"tuple is already registered",
    ),
]
