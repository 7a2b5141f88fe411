"""The misuse catalogue: each way of holding tf8 wrong raises a specific `tf8.errors` class
whose message names what was wrong.

One row per misuse: (id, code that misuses tf8, expected error class, regex on the message).
Rows marked `known_bug` document a wrong or unclear error in code this file does not own;
they are strict xfails, so fixing the bug turns them into failures that ask for the marker
to be removed.
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
        "atan2-complex",
        lambda: tnp.arctan2(vector(2, "complex128"), vector(2, "complex128")),
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
        "placeholder-float16",
        lambda: tf8.placeholder((3,), "float16"),
        errors.DTypeError,
        r"float16 is not supported",
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
    ("index-out-of-bounds", lambda: vector(3)[5], errors.IndexingError, r"index 5.*size 3"),
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
        marks=known_bug("TracedTensor.__bool__ raises a builtin ValueError, not tf8.errors"),
    ),
    pytest.param(
        "sum-axis-float",
        lambda: vector().sum(axis=1.5),
        errors.Tf8Error,
        r"axis.*1\.5",
        marks=known_bug("reductions: a float axis fails with \"'float' object is not iterable\""),
    ),
    pytest.param(
        "float-of-vector",
        lambda: float(vector(3)),
        errors.Tf8Error,
        r"size-1.*float64\(3,\)",
        marks=known_bug("TracedTensor.__float__ on a non-scalar raises a builtin TypeError"),
    ),
    pytest.param(
        "tensor-ragged",
        lambda: T([[1.0, 2.0], [3.0]]),
        errors.ShapeError,
        r"inhomogeneous|ragged",
        marks=known_bug("tf8.tensor lets numpy's builtin ValueError through"),
    ),
]

DISPATCH: list[Case] = [
    (
        "np-fft-of-placeholder",
        lambda: np.fft.fft(placeholder((4,))),
        errors.UnsupportedOperationError,
        r"numpy\.fft\.fft is not supported",
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
        "np-sort-no-primitive",
        lambda: np.sort(placeholder((4,))),
        errors.UnsupportedOperationError,
        r"numpy\.sort is not supported.*no sort primitive",
    ),
    (
        "np-unique-data-dependent-shape",
        lambda: np.unique(placeholder((4,))),
        errors.UnsupportedOperationError,
        r"numpy\.unique.*shape depends on the data",
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

COMPILE: list[Any] = [
    (
        "duplicate-binding",
        lambda: tf8.GraphCompiler().compile(T(np.ones(2), name="w") + T(np.zeros(2), name="w")),
        errors.DuplicateBinding,
        r"'w' is bound to 2 different arrays",
    ),
    (
        "unbound-placeholder",
        lambda: tf8.GraphCompiler().compile_with_input_specs([placeholder() * 2.0], []),
        errors.UnboundPlaceholder,
        r"placeholder.*float64\(2,\).*neither bound nor listed",
    ),
    ("unused-input-spec", unused_spec, errors.UnusedInput, r"not used by the outputs"),
    (
        "compile-ndarray",
        lambda: tf8.GraphCompiler().compile(np.ones(3)),
        errors.CompileError,
        r"takes TracedTensors, got ndarray",
    ),
    ("compile-nothing", lambda: tf8.GraphCompiler().compile(), errors.CompileError, r"at least"),
    (
        "input-spec-not-leaf",
        lambda: (lambda p: tf8.GraphCompiler().compile_with_input_specs([p], [p * 2.0]))(
            placeholder()
        ),
        errors.CompileError,
        r"not a leaf",
    ),
]

RUNTIME: list[Any] = [
    ("run-array-count", lambda: prepared().run(), errors.RunInputError, r"takes 1 array.*got 0"),
    (
        "run-shape",
        lambda: prepared().run(np.ones(3)),
        errors.RunInputError,
        r"expected shape \(2,\), got \(3,\)",
    ),
    (
        "run-dtype",
        lambda: prepared().run(np.ones(2, dtype=np.complex128)),
        errors.RunDTypeError,
        r"expected dtype float64, got complex128",
    ),
    (
        "run-unknown-binding",
        lambda: prepared().run(np.ones(2), bindings={"nope": np.ones(2)}),
        errors.RunInputError,
        r"no input named 'nope'",
    ),
    (
        "run-symbolic-dims-disagree",
        lambda: prepared_pair().run(np.ones(2), np.ones(3)),
        errors.ShapeGuardError,
        r"dimension n is 3.*2 elsewhere",
    ),
    pytest.param(
        "prepare-non-compiled",
        lambda: tf8.Runtime().prepare(np.ones(2)),
        errors.Tf8Error,
        r"CompiledGraph",
        marks=known_bug(
            "Runtime.prepare(non-CompiledGraph) fails with AttributeError 'fingerprint'"
        ),
    ),
]

JIT: list[Case] = [
    (
        "jit-static-argnum-out-of-range",
        lambda: tf8.jit(lambda x: x, static_argnums=3),
        errors.TracingError,
        r"static_argnums=\(3,\).*1 positional argument.*\['x'\]",
    ),
    (
        "jit-static-argname-unknown",
        lambda: tf8.jit(lambda x: x, static_argnames="y"),
        errors.TracingError,
        r"no parameter 'y'",
    ),
    (
        "jit-static-argnums-not-int",
        lambda: tf8.jit(lambda x: x, static_argnums="x"),
        errors.TracingError,
        r"static_argnums must be ints, got 'x'",
    ),
    (
        "jit-unhashable-static",
        lambda: tf8.jit(lambda x, n: x, static_argnums=1)(np.ones(2), [1, 2]),
        errors.TracingError,
        r"static argument 1 .*unhashable type list",
    ),
    (
        "jit-string-argument",
        lambda: tf8.jit(lambda x, y: x)(np.ones(2), "abc"),
        errors.TracingError,
        r"argument 1 .*not an array.*str 'abc'",
    ),
    (
        "jit-string-array-argument",
        lambda: tf8.jit(lambda x: x)(x=np.array(["a"])),
        errors.TracingError,
        r"argument 'x' .*unsupported dtype.*<U1",
    ),
    (
        "jit-returns-non-array",
        lambda: tf8.jit(lambda x: (x, "label"))(np.ones(2)),
        errors.TracingError,
        r"returned a value of type str .*output leaf 1",
    ),
    (
        "jit-bool-of-traced",
        lambda: tf8.jit(lambda x: x if x.sum() > 0 else -x)(np.ones(2)),
        errors.ConcretizationError,
        r"bool.*unbound placeholder",
    ),
    (
        "jit-range-of-traced",
        lambda: tf8.jit(lambda x, n: x * len(range(n)))(np.ones(2), 3),
        errors.ConcretizationError,
        r"Python int.*int64\(\)",
    ),
    (
        "jit-numpy-conversion",
        lambda: tf8.jit(lambda x: np.asarray(x) + 1.0)(np.ones(3)),
        errors.ConcretizationError,
        r"numpy array.*float64\(3,\)",
    ),
    ("jit-leaked-tracer", leak_a_tracer, errors.UnboundPlaceholder, r"leaked from another trace"),
    ("jit-not-callable", lambda: tf8.jit(3), errors.TracingError, r"callable, got int"),
    (
        "jit-shape-error-inside",
        lambda: tf8.jit(lambda x, y: x + y)(np.ones(2), np.ones(3)),
        errors.ShapeError,
        r"\(2,\) \(3,\)",
    ),
    (
        "make-program-without-outputs",
        lambda: tf8.make_program(lambda x: None)(np.ones(2)),
        errors.TracingError,
        r"returns no arrays",
    ),
]

AUTODIFF: list[Case] = [
    (
        "grad-non-scalar",
        lambda: tf8.grad(lambda x: x * 2.0)(np.ones(3)),
        errors.DifferentiationError,
        r"scalar output, got shape \(3,\)",
    ),
    (
        "grad-argnums",
        lambda: tf8.grad(lambda x: x.sum(), argnums=2)(np.ones(3)),
        errors.ArgnumsError,
        r"argnums \(2,\) out of range for 1",
    ),
]

CATALOGUE = TRACING + DISPATCH + TREES + COMPILE + RUNTIME + JIT + AUTODIFF


def _with_id(case: Any) -> Any:
    """Every row as a pytest.param whose id is its name (marks kept)."""
    values, marks = (case.values, case.marks) if hasattr(case, "values") else (case, ())
    return pytest.param(*values, marks=marks, id=values[0])


ROWS = [_with_id(case) for case in CATALOGUE]


@pytest.mark.parametrize(("name", "misuse", "error", "message"), ROWS)
def test_misuse_raises_a_specific_error(
    name: str, misuse: Callable[[], Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        misuse()


def test_catalogue_is_large_and_distinct() -> None:
    names = [row.id for row in ROWS]
    assert len(names) == len(set(names))
    working = [row for row in ROWS if not row.marks]
    assert len(working) >= 25


def test_errors_subclass_the_matching_builtin() -> None:
    assert issubclass(errors.ShapeError, ValueError)
    assert issubclass(errors.DTypeError, TypeError)
    assert issubclass(errors.ConcretizationError, TypeError)
    assert issubclass(errors.InPlaceAssignmentError, TypeError)
    assert issubclass(errors.AxisError, IndexError)
    assert issubclass(errors.RunDTypeError, TypeError)


def test_the_fix_that_setitem_suggests_works() -> None:
    with pytest.raises(errors.InPlaceAssignmentError, match=r"t\.at\[i\]\.set\(v\)"):
        vector()[0] = 2.0
    np.testing.assert_array_equal(np.asarray(vector().at[0].set(2.0)), [2.0, 1.0, 1.0])
