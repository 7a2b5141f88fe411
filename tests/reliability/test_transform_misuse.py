"""Misuse of the transforms (grad, jvp, vjp, linearize, jacobians, custom rules, vmap)."""

from __future__ import annotations

import numpy as np
import pytest
from misuse_table import expect, params

import tf8
import tf8.numpy as tnp
from tf8 import errors

X = np.ones(3)
M = np.ones((2, 3))
ident = lambda x: x  # noqa: E731

ROWS = [
    ("grad-not-callable", lambda: tf8.grad(3), errors.TracingError, "grad expects a callable"),
    (
        "value-and-grad-not-callable",
        lambda: tf8.value_and_grad("f"),
        errors.TracingError,
        "grad expects a callable, got str",
    ),
    (
        "jacfwd-not-callable",
        lambda: tf8.jacfwd(None),
        errors.TracingError,
        "jacfwd expects a callable",
    ),
    (
        "jacrev-not-callable",
        lambda: tf8.jacrev(1.0),
        errors.TracingError,
        "jacrev expects a callable",
    ),
    (
        "hessian-not-callable",
        lambda: tf8.hessian([ident]),
        errors.TracingError,
        "expects a callable, got list",
    ),
    (
        "jvp-not-callable",
        lambda: tf8.jvp(3, (X,), (X,)),
        errors.TracingError,
        "jvp expects a callable",
    ),
    (
        "jvp-primals-not-a-tuple",
        lambda: tf8.jvp(ident, X, X),
        errors.DifferentiationError,
        "tuples or lists of arguments, got ndarray",
    ),
    ("vjp-not-callable", lambda: tf8.vjp(3, X), errors.TracingError, "vjp expects a callable"),
    (
        "linearize-not-callable",
        lambda: tf8.linearize(3, X),
        errors.TracingError,
        "linearize expects a callable",
    ),
    (
        "linear-transpose-not-callable",
        lambda: tf8.linear_transpose(3, X),
        errors.TracingError,
        "linear_transpose expects a callable",
    ),
    (
        "custom-jvp-not-callable",
        lambda: tf8.custom_jvp(3),
        errors.TracingError,
        "custom_jvp expects a callable",
    ),
    (
        "custom-vjp-not-callable",
        lambda: tf8.custom_vjp(3),
        errors.TracingError,
        "custom_vjp expects a callable",
    ),
    ("vmap-not-callable", lambda: tf8.vmap(3), errors.TracingError, "vmap expects a callable"),
    (
        "vmap-in-axes-out-of-range",
        lambda: tf8.vmap(ident, in_axes=2)(X),
        errors.BatchAxisError,
        r"in_axes 2 is out of range for argument x of shape \(3,\)",
    ),
    (
        "vmap-in-axes-negative-out-of-range",
        lambda: tf8.vmap(ident, in_axes=-3)(M),
        errors.BatchAxisError,
        r"in_axes -3 is out of range .* \(2, 3\)",
    ),
    (
        "vmap-in-axes-float",
        lambda: tf8.vmap(ident, in_axes=0.5)(X),
        errors.AxesSpecError,
        "in_axes must be an int, None, or a pytree",
    ),
    (
        "vmap-in-axes-too-many",
        lambda: tf8.vmap(lambda x, y: x + y, in_axes=(0, 0, 0))(X, X),
        errors.AxesSpecError,
        "in_axes has 3 entries but the function was called with 2",
    ),
    (
        "vmap-sizes-differ",
        lambda: tf8.vmap(lambda x, y: x + y)(np.ones(3), np.ones(4)),
        errors.BatchSizeError,
        "mapped axes of different sizes",
    ),
    (
        "vmap-nothing-mapped",
        lambda: tf8.vmap(ident, in_axes=None)(X),
        errors.BatchSizeError,
        "no argument is mapped",
    ),
    (
        "vmap-no-arguments",
        lambda: tf8.vmap(lambda: 1.0)(),
        errors.BatchSizeError,
        "pass axis_size=",
    ),
    (
        "vmap-scalar-argument",
        lambda: tf8.vmap(ident)(np.float64(1.0)),
        errors.BatchAxisError,
        r"shape \(\) \(rank 0\)",
    ),
    (
        "vmap-out-axes-out-of-range",
        lambda: tf8.vmap(ident, out_axes=3)(X),
        errors.BatchAxisError,
        "out_axes 3 is out of range for output 0",
    ),
    (
        "vmap-out-axes-none-but-batched",
        lambda: tf8.vmap(ident, out_axes=None)(X),
        errors.UnbatchedOutputError,
        "out_axes is None for output 0",
    ),
    (
        "vmap-axis-size-disagrees",
        lambda: tf8.vmap(ident, axis_size=5)(X),
        errors.BatchSizeError,
        r"axis_size=5",
    ),
    (
        "vmap-string-argument",
        lambda: tf8.vmap(ident)("abc"),
        errors.DTypeError,
        "dtype <U3 are not supported",
    ),
    (
        "vmap-out-axes-tree",
        lambda: tf8.vmap(lambda x: (x, x), out_axes=(0, 0, 0))(X),
        errors.AxesSpecError,
        "out_axes is not a pytree prefix",
    ),
    (
        "vmap-python-branch-on-batched",
        lambda: tf8.vmap(lambda x: 1.0 if x > 0 else 2.0)(X),
        errors.ConcretizationError,
        "Branching on",
    ),
    (
        "vmap-axis-name",
        lambda: tf8.vmap(ident, axis_name="i"),
        errors.UnsupportedOperationError,
        "axis_name",
    ),
    (
        "jvp-tangent-dtype",
        lambda: tf8.jvp(ident, (X,), (np.ones(3, np.int32),)),
        errors.DifferentiationError,
        "jvp tangent has dtype int32, but its primal has dtype float64",
    ),
    (
        "linearize-tangents-structure",
        lambda: tf8.linearize(tnp.sin, X)[1](X, X),
        errors.TreeStructureError,
        "linearize: tangents do not have the structure of primals",
    ),
]


@pytest.mark.parametrize(("misuse", "error", "message"), params(ROWS))
def test_transform_misuse(misuse, error, message):
    expect(misuse, error, message)
