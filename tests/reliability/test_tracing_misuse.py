"""Misuse while tracing: placeholders, conversions, shape and axis arguments of tf8.numpy and
tf8.lax (rows tests/api's catalogues have are not repeated)."""

from __future__ import annotations

import numpy as np
import pytest
from misuse_table import expect, params

import tf8
import tf8.numpy as tnp
from tf8 import errors, lax

X = np.ones(3)
M = np.ones((2, 3))
T = tf8.tensor

NUMPY = [
    (
        "placeholder-shape-a-string",
        lambda: tf8.placeholder("ab", "float64"),
        errors.ParameterError,
        r"shape must be a tuple of ints or names, got the string 'ab'",
    ),
    (
        "placeholder-unknown-dtype",
        lambda: tf8.placeholder((2,), "float128x"),
        errors.DTypeError,
        "'float128x' is not a dtype tf8 knows",
    ),
    (
        "placeholder-float-size",
        lambda: tf8.placeholder((2.5,), "float64"),
        errors.ParameterError,
        "a dimension must be an int, a name or a DimExpr, got 2.5",
    ),
    (
        "tensor-of-objects",
        lambda: T(np.array([object()])),
        errors.DTypeError,
        "arrays of dtype object are not supported",
    ),
    ("tensor-of-a-dict", lambda: T({"a": 1}), errors.DTypeError, "dtype object"),
    (
        "transpose-axes-too-few",
        lambda: tnp.transpose(M, (0,)),
        errors.ShapeError,
        r"transpose: axes \(0,\) don't match array of rank 2",
    ),
    (
        "swapaxes-out-of-range",
        lambda: tnp.swapaxes(M, 0, 4),
        errors.AxisError,
        "axis 4 is out of bounds for array of dimension 2",
    ),
    (
        "expand-dims-out-of-range",
        lambda: tnp.expand_dims(X, 3),
        errors.AxisError,
        "axis 3 is out of bounds",
    ),
    (
        "stack-shapes-differ",
        lambda: tnp.stack([X, np.ones(4)]),
        errors.ShapeError,
        r"same shape, got \(3,\), \(4,\)",
    ),
    (
        "split-uneven",
        lambda: tnp.split(X, 2),
        errors.ShapeError,
        "does not result in an equal division",
    ),
    (
        "where-shapes",
        lambda: tnp.where(np.ones(3, bool), X, np.ones(4)),
        errors.ShapeError,
        r"could not be broadcast together with shapes \(3,\) \(3,\) \(4,\)",
    ),
    (
        "take-axis-out-of-range",
        lambda: tnp.take(X, np.array([0]), axis=2),
        errors.AxisError,
        "axis 2 is out of bounds",
    ),
    ("moveaxis-out-of-range", lambda: tnp.moveaxis(M, 3, 0), errors.AxisError, "axis 3"),
    ("tile-negative", lambda: tnp.tile(X, -1), errors.ShapeError, "tile: negative repetitions"),
    (
        "repeat-negative",
        lambda: tnp.repeat(X, -1),
        errors.ShapeError,
        "repeat: repeats must be non-negative integers, got -1",
    ),
    ("full-float-size", lambda: tnp.full((2.5,), 1.0), errors.ParameterError, "got 2.5"),
    (
        "zeros-negative-size",
        lambda: tnp.zeros((-1,)),
        errors.ParameterError,
        "a dimension must be non-negative, got -1",
    ),
    ("eye-negative", lambda: tnp.eye(-2), errors.ParameterError, "non-negative, got -2"),
    (
        "linspace-negative-count",
        lambda: tnp.linspace(0, 1, -3),
        errors.ParameterError,
        "linspace: number of samples, -3, must be non-negative",
    ),
    (
        "astype-unknown-dtype",
        lambda: T(X).astype("float99"),
        errors.DTypeError,
        "'float99' is not a dtype tf8 knows",
    ),
    ("astype-str", lambda: T(X).astype(str), errors.DTypeError, "dtype <U0 is not supported"),
]

LAX = [
    (
        "convert-to-unknown-dtype",
        lambda: lax.convert_element_type(X, "bogus"),
        errors.DTypeError,
        "'bogus' is not a dtype",
    ),
    (
        "slice-limit-too-far",
        lambda: lax.slice(X, (0,), (5,)),
        errors.ShapeError,
        r"slice: limit \(5,\) exceeds \(3,\)",
    ),
    (
        "slice-rank",
        lambda: lax.slice(X, (0, 0), (1, 1)),
        errors.ShapeError,
        "slice: start/limit/strides must have rank 1",
    ),
    (
        "pad-config-length",
        lambda: lax.pad(X, 0.0, [(0, 0, 0), (0, 0, 0)]),
        errors.ShapeError,
        r"pad: config .* does not fit \(3,\)",
    ),
    (
        "dynamic-slice-too-large",
        lambda: lax.dynamic_slice(X, (0,), (5,)),
        errors.ShapeError,
        r"dynamic_slice: slice_sizes \(5,\) exceed \(3,\)",
    ),
    (
        "broadcast-in-dim-sizes",
        lambda: lax.broadcast_in_dim(X, (2, 4), (1,)),
        errors.ShapeError,
        r"broadcast_in_dim: broadcast \(3,\) → \(2, 4\): 3 != 4",
    ),
    (
        "rev-axis-out-of-range",
        lambda: lax.rev(X, (2,)),
        errors.AxisError,
        "reverse: axis 2 is out of range for rank 1",
    ),
    (
        "concatenate-axis-out-of-range",
        lambda: lax.concatenate([X, X], 1),
        errors.AxisError,
        "concatenate: axis 1 is out of range for rank 1",
    ),
    (
        "iota-float-size",
        lambda: lax.iota("int32", 2.5),
        errors.ShapeError,
        r"iota: shape \(2.5,\) must be a tuple of sizes >= 0",
    ),
    (
        "integer-pow-float-exponent",
        lambda: lax.integer_pow(X, 1.5),
        errors.DTypeError,
        "integer_pow: the exponent y must be an int, got float 1.5",
    ),
    (
        "clamp-shapes",
        lambda: lax.clamp(np.zeros(2), X, np.ones(4)),
        errors.ShapeError,
        "clamp: operands must have equal shapes",
    ),
    (
        "select-shapes",
        lambda: lax.select(np.ones(3, bool), X, np.ones(4)),
        errors.ShapeError,
        r"select: operands must have equal shapes .* float64\(4,\)",
    ),
    (
        "dot-general-repeated-axis",
        lambda: lax.dot_general(M, M, (((1,), (1,)), ((0,), (1,)))),
        errors.AxisError,
        r"dot_general: repeated axis in \(1, 1\)",
    ),
    (
        "shift-of-floats",
        lambda: lax.shift_left(X, X),
        errors.DTypeError,
        "shift_left: dtype float64 not accepted",
    ),
    (
        "rem-of-bools",
        lambda: lax.rem(np.ones(2, bool), np.ones(2, bool)),
        errors.DTypeError,
        "rem: dtype bool not accepted",
    ),
    (
        "cumsum-axis-out-of-range",
        lambda: lax.cumsum(X, axis=3),
        errors.AxisError,
        "cumsum: axis 3 is out of range for rank 1",
    ),
    (
        "argmax-axis-out-of-range",
        lambda: lax.argmax(X, 2, "int32"),
        errors.AxisError,
        "argmax: axis 2 is out of range",
    ),
    (
        "argmax-float-index-dtype",
        lambda: lax.argmax(X, 0, "float32"),
        errors.DTypeError,
        "argmax: index_dtype must be an integer dtype, got float32",
    ),
    (
        "argmin-bool-index-dtype",
        lambda: lax.argmin(X, 0, "bool"),
        errors.DTypeError,
        "argmin: index_dtype must be an integer dtype, got bool",
    ),
    (
        "bitcast-widens-without-the-ratio",  # JAX: the last axis must be the width ratio
        lambda: lax.bitcast_convert_type(np.ones(3, np.float32), "float64"),
        errors.DTypeError,
        "bitcast_convert_type: .* needs a last axis of 2",
    ),
    (
        "complex-of-ints",
        lambda: lax.complex(np.ones(2, np.int32), np.ones(2, np.int32)),
        errors.DTypeError,
        "complex: dtype int32 not accepted",
    ),
]


@pytest.mark.parametrize(("misuse", "error", "message"), params(NUMPY + LAX))
def test_tracing_misuse(misuse, error, message):
    expect(misuse, error, message)


def test_the_fixed_checks_leave_the_valid_forms_working():
    np.testing.assert_array_equal(np.asarray(lax.integer_pow(np.arange(3.0), 2)), [0, 1, 4])
    assert np.asarray(lax.argmax(np.array([1.0, 3.0, 2.0]), 0, "int32")).dtype == np.int32
    assert tf8.placeholder(("n",), "float64").shape[0] is not None
