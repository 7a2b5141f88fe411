"""Misuses of the core (primitives, tracing, compiler, runtime) raise a specific tf8.errors class
whose message names the op, the shapes and the dtypes involved.

Each row is (id, code that misuses tf8, expected class, regex the message must match). The
broader user-facing catalogue lives in test_errors.py; this one pins the exact wording of the
core's own checks. At the end: regression tests for numpy-compatibility bugs found here and
fixed in tf8/numpy, and a strict xfail pinning one known limitation of shape inference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import errors
from tf8.lax.core import apply1
from tf8.ops.shapes import sym

T = tf8.tensor


def matrix(shape=(2, 3), dtype="float64"):
    return T(np.ones(shape, dtype=dtype))


def recorded(build):
    """Build a program by hand: ops on concrete tensors are recorded, not computed."""
    with tf8.recording():
        return build()


def compile_(*outputs):
    return tf8.GraphCompiler().compile(*outputs)


def prepared_ab():
    a = tf8.placeholder((2, 3), "float64", name="a")
    b = tf8.placeholder(("n",), "int32", name="b")
    return tf8.Runtime().prepare(compile_(tnp.sum(a) + tnp.sum(b)))


def assign_item():
    t = matrix()
    t[0] = 1


def two_sizes_for_n():
    x, y = tf8.placeholder(("n",), name="x"), tf8.placeholder(("m",), name="y")
    return tf8.Runtime().prepare(compile_(x + y)).run(np.ones(3), np.ones(4))


ROWS: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    # --- shapes ---------------------------------------------------------------------------
    (
        "broadcast-mismatch",
        lambda: matrix((2, 3)) + matrix((4,)),
        errors.ShapeError,
        r"could not be broadcast together with shapes \(2, 3\) \(4,\)",
    ),
    (
        "primitive-unequal-shapes",
        lambda: apply1("add", [matrix((2,)), matrix((3,))]),
        errors.ShapeError,
        r"add: operands must have equal shapes \(broadcast first\), got float64\(2,\), "
        r"float64\(3,\)",
    ),
    (
        "reshape-size",
        lambda: matrix((2, 3)).reshape(4),
        errors.ShapeError,
        r"cannot reshape array of shape \(2, 3\).* into (shape )?\(4,\)",
    ),
    (
        "reshape-primitive-size",
        lambda: apply1("reshape", [matrix((2, 3))], shape=(5,)),
        errors.ShapeError,
        r"reshape: cannot reshape \(2, 3\) into \(5,\)",
    ),
    (
        "reshape-negative-size",
        lambda: apply1("reshape", [matrix((2, 3))], shape=(-2, -3)),
        errors.ShapeError,
        r"reshape: shape \(-2, -3\) must be a tuple of sizes >= 0",
    ),
    (
        "matmul-contracted",
        lambda: matrix((2, 3)) @ matrix((4, 5)),
        errors.ShapeError,
        r"matmul: mismatch in the contracted dimension: \(2, 3\) and \(4, 5\) \(3 != 4\)",
    ),
    (
        "dot-general-contracted",
        lambda: apply1(
            "dot_general",
            [matrix((2, 3)), matrix((4, 5))],
            contracting=((1,), (0,)),
            batch=((), ()),
        ),
        errors.ShapeError,
        r"dot_general: contracting dims of \(2, 3\) and \(4, 5\) differ \(3 vs 4\)",
    ),
    (
        "reduce-max-empty",
        lambda: apply1("reduce_max", [matrix((0, 3))], axes=(0,)),
        errors.ShapeError,
        r"reduce_max: zero-size axis \(0,\) of \(0, 3\) has no identity",
    ),
    (
        "concatenate-ranks",
        lambda: apply1("concatenate", [matrix((2, 3)), matrix((2,))], axis=0),
        errors.ShapeError,
        r"concatenate: operands of different ranks: float64\(2, 3\), float64\(2,\)",
    ),
    (
        "pad-crops-below-zero",
        lambda: apply1("pad", [matrix((2,)), T(0.0)], config=((-2, -1, 0),)),
        errors.ShapeError,
        r"pad: config \(\(-2, -1, 0\),\) crops \(2,\) below size 0",
    ),
    (
        "shape-guard",
        two_sizes_for_n,
        errors.ShapeGuardError,
        r"shape guard failed: broadcast_in_dim: broadcast \((m|n),\) → \((m|n),\): "
        r"[mn] = [34] but [mn] = [34]",
    ),
    # --- axes -----------------------------------------------------------------------------
    (
        "sum-axis",
        lambda: matrix((2, 3)).sum(axis=2),
        errors.AxisError,
        r"axis 2 is out of bounds for array of dimension 2",
    ),
    (
        "reduce-primitive-axis",
        lambda: apply1("reduce_sum", [matrix((2, 3))], axes=(-3,)),
        errors.AxisError,
        r"reduce_sum: axis -3 is out of range for rank 2",
    ),
    (
        "reduce-repeated-axis",
        lambda: apply1("reduce_sum", [matrix((2, 3))], axes=(1, -1)),
        errors.AxisError,
        r"reduce_sum: repeated axis in \(1, -1\)",
    ),
    (
        "transpose-permutation",
        lambda: apply1("transpose", [matrix((2, 3))], permutation=(0, 0)),
        errors.AxisError,
        r"transpose: permutation \(0, 0\) does not fit \(2, 3\)",
    ),
    (
        "shape-of-scalar",
        lambda: apply1("shape_of", [T(1.0)], axis=0),
        errors.AxisError,
        r"shape_of: axis 0 is out of range for rank 0",
    ),
    # --- dtypes ---------------------------------------------------------------------------
    (
        "sin-of-int",
        lambda: apply1("sin", [matrix((2,), "int64")]),
        errors.DTypeError,
        r"sin: dtype int64 not accepted "
        r"\(accepts float16, float32, float64, complex64, complex128\)",
    ),
    (
        "mixed-dtypes-to-a-primitive",
        lambda: apply1("mul", [matrix((2,), "float32"), matrix((2,), "float64")]),
        errors.DTypeError,
        r"mul: operands must share one dtype, got float32\(2,\), float64\(2,\)",
    ),
    (
        "select-predicate",
        lambda: apply1("select", [matrix((2,)), matrix((2,)), matrix((2,))]),
        errors.DTypeError,
        r"select: predicate must be bool, got float64",
    ),
    (
        "bitwise-of-floats",
        lambda: matrix((2,)) & matrix((2,)),
        errors.DTypeError,
        r"bitwise operations need int or bool operands, got float64",
    ),
    (
        "placeholder-int8",
        lambda: tf8.placeholder((2,), "int8"),
        errors.DTypeError,
        r"dtype int8 is not supported by tf8 \(supported: bool, uint8, .*complex128\)",
    ),
    (
        "python-int-overflow",
        lambda: matrix((2,), "int32") + 2**40,
        errors.DTypeError,
        r"Python integer 1099511627776 is out of bounds for int32",
    ),
    # --- arity and parameters -------------------------------------------------------------
    (
        "arity",
        lambda: apply1("add", [matrix((2,))]),
        errors.ArityError,
        r"add takes 2 operands, got 1",
    ),
    (
        "unknown-parameter",
        lambda: apply1("reduce_sum", [matrix((2,))], axis=0),
        errors.ParameterError,
        r"reduce_sum takes parameters \('axes',\); unknown \['axis'\], missing \['axes'\]",
    ),
    (
        "unknown-primitive",
        lambda: apply1("frobnicate", [matrix((2,))]),
        errors.ParameterError,
        r"no primitive named 'frobnicate'",
    ),
    # --- tracing --------------------------------------------------------------------------
    (
        "bool-of-placeholder",
        lambda: bool(tf8.placeholder((1,), "float32") > 0),
        errors.ConcretizationError,
        r"traced value \(bool\(1,\)\) that depends on an unbound placeholder",
    ),
    (
        "float-of-placeholder",
        lambda: float(tnp.sum(tf8.placeholder((2, 3), "float32"))),
        errors.ConcretizationError,
        r"Python float of a traced value \(float32\(\)\)",
    ),
    (
        "in-place-assignment",
        assign_item,
        errors.InPlaceAssignmentError,
        r"immutable: `t\[i\] = v` is not supported; use `t = t.at\[i\].set\(v\)`",
    ),
    # --- compile --------------------------------------------------------------------------
    (
        "unbound-placeholder",
        lambda: tf8.GraphCompiler().compile_with_input_specs(
            tf8.placeholder((2,), name="a") + tf8.placeholder((2,), "float64", name="b"), []
        ),
        errors.UnboundPlaceholder,
        r"placeholder '[ab]' \(float64\(2,\)\) is neither bound nor listed as an input",
    ),
    (
        "duplicate-binding",
        lambda: recorded(lambda: compile_(T(np.zeros(3), name="w") * T(np.ones(3), name="w"))),
        errors.DuplicateBinding,
        r"leaf 'w' is bound to 2 different arrays in one program \(\(3,\), \(3,\)\)",
    ),
    (
        "unused-input-spec",
        lambda: tf8.GraphCompiler().compile_with_input_specs(
            tf8.placeholder((2,), name="a") * 2.0,
            [tf8.placeholder((2,), name="a"), tf8.placeholder((4,), "int32", name="spare")],
        ),
        errors.UnusedInput,
        r"input spec 'spare' \(int32\(4,\)\) is not used by the outputs",
    ),
    (
        "input-spec-twice",
        lambda: (lambda a: tf8.GraphCompiler().compile_with_input_specs(a * 2.0, [a, a]))(
            tf8.placeholder((2,), name="a")
        ),
        errors.CompileError,
        r"input spec 'a' \(float64\(2,\)\) is listed twice",
    ),
    # --- run ------------------------------------------------------------------------------
    (
        "run-count",
        lambda: prepared_ab().run(np.ones((2, 3))),
        errors.RunInputError,
        r"run takes 2 array\(s\), one per placeholder \['a', 'b'\], got 1",
    ),
    (
        "run-shape",
        lambda: prepared_ab().run(np.ones((3, 2)), np.ones(2, np.int32)),
        errors.RunInputError,
        r"input 'a': expected shape \(2, 3\), got \(3, 2\)",
    ),
    (
        "run-dtype",
        lambda: prepared_ab().run(np.ones((2, 3)), np.ones(2, np.int64)),
        errors.RunDTypeError,
        r"input 'b': expected dtype int32, got int64",
    ),
    (
        "run-unknown-binding",
        lambda: prepared_ab().run(np.ones((2, 3)), np.ones(2, np.int32), bindings={"c": 1.0}),
        errors.RunInputError,
        r"bindings: no input named 'c' \(inputs: \['a', 'b'\]\)",
    ),
]

# Every error is also the builtin a numpy user would catch.
BUILTIN = {
    errors.ShapeError: ValueError,
    errors.ShapeGuardError: ValueError,
    errors.AxisError: IndexError,
    errors.DTypeError: TypeError,
    errors.ArityError: TypeError,
    errors.ParameterError: ValueError,
    errors.ConcretizationError: TypeError,
    errors.InPlaceAssignmentError: TypeError,
    errors.CompileError: ValueError,
    errors.UnboundPlaceholder: ValueError,
    errors.DuplicateBinding: ValueError,
    errors.UnusedInput: ValueError,
    errors.RunInputError: ValueError,
    errors.RunDTypeError: TypeError,
}


@pytest.mark.parametrize(
    ("misuse", "error", "pattern"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
def test_misuse_raises_a_specific_error_naming_what_was_wrong(misuse, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        misuse()
    assert isinstance(info.value, BUILTIN[error])
    assert isinstance(info.value, errors.Tf8Error)


def test_the_catalogue_is_broad():
    assert len({row[0] for row in ROWS}) == len(ROWS) >= 30
    assert len({row[2] for row in ROWS}) >= 12, "at least twelve distinct error classes"


# --- once strict xfails here, fixed in tf8/numpy (6c07005): now regression tests ----------


def test_maximum_of_bools_is_logical_or():
    b = np.array([True, False, False])
    out = tnp.maximum(T(b), T(np.array([False, False, True])))
    np.testing.assert_array_equal(np.asarray(out), [True, False, True])


@pytest.mark.parametrize(("fn", "expected"), [(tnp.all, True), (tnp.any, False)])
def test_all_and_any_of_an_empty_array(fn, expected):
    assert bool(fn(T(np.zeros((0, 3))))) is expected


def test_round_of_ints_to_negative_decimals():
    out = tnp.round(T(np.array([125, 175])), -1)
    np.testing.assert_array_equal(np.asarray(out), [120, 180])


def test_matmul_of_bools():
    a = np.array([[True, False], [False, False]])
    np.testing.assert_array_equal(np.asarray(T(a) @ T(a)), a @ a)


# --- run-time sizes ----------------------------------------------------------------------------


def test_two_dynamic_truncations_of_different_sizes_do_not_add():
    def truncated(size):
        return apply1("dynamic_truncate", [T(np.arange(5.0)), T(np.int64(size))], axis=0)

    with pytest.raises(errors.ShapeError):
        np.asarray(truncated(2) + truncated(1))


def test_symbolic_dims_in_rows_print_by_name():
    n = sym("n")
    out = apply1("iota", [], shape=(n, 2), dtype=np.dtype("int32"), dimension=0)
    assert "iota[shape=(n, 2)" in compile_(out + tf8.placeholder(("n", 2), "int32")).pretty()
