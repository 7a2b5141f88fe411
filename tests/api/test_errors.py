"""The misuse catalogue: each way of holding tf8 wrong raises a specific `tf8.errors` class
whose message names what was wrong.

One row per misuse: (id, code that misuses tf8, expected error class, regex on the message).
Tracing, dispatch and pytree rows live in misuse_cases.py; compile, runtime, jit and autodiff
rows here. Rows marked `known_bug` document a wrong or unclear error in code this catalogue
does not own; they are strict xfails, so fixing the bug turns them into failures that ask for
the marker to be removed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from misuse_cases import (
    DISPATCH,
    TRACING,
    TREES,
    Case,
    T,
    leak_a_tracer,
    placeholder,
    prepared,
    prepared_pair,
    unused_spec,
    vector,
)

import tf8
from tf8 import errors

COMPILE: list[Any] = [
    (
        "duplicate-binding",
        lambda: recorded(
            lambda: tf8.GraphCompiler().compile(T(np.ones(2), name="w") + T(np.zeros(2), name="w"))
        ),
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


def recorded(build):
    """Build a program by hand: ops on concrete tensors are recorded, not computed."""
    with tf8.recording():
        return build()


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
