"""Misuse of jit and make_program (rows tests/api/test_errors.py has are not repeated)."""

from __future__ import annotations

import numpy as np
import pytest
from misuse_table import expect, params

import tf8
import tf8.numpy as tnp
from tf8 import errors

X = np.ones(3)
ident = lambda x: x  # noqa: E731

ROWS = [
    (
        "static-argnums-negative-out-of-range",
        lambda: tf8.jit(ident, static_argnums=-3)(X),
        errors.TracingError,
        r"static_argnums=\(-3,\).*argument -3 does not exist",
    ),
    (
        "static-argnames-an-int",
        lambda: tf8.jit(ident, static_argnames=3),
        errors.TracingError,
        r"static_argnames a string or strings, got .*static_argnames=3",
    ),
    (
        "static-argnames-list-of-ints",
        lambda: tf8.jit(ident, static_argnames=[1]),
        errors.TracingError,
        "static_argnames must be strings, got 1",
    ),
    (
        "donate-argnums-a-string",
        lambda: tf8.jit(ident, donate_argnums="0"),
        errors.TracingError,
        "jit: donate_argnums must be ints, got '0'",
    ),
    (
        "donate-argnames-ints",
        lambda: tf8.jit(ident, donate_argnames=(0,)),
        errors.TracingError,
        "jit: donate_argnames must be strs",
    ),
    (
        "unknown-jax-option",
        lambda: tf8.jit(ident, backend="gpu"),
        errors.TracingError,
        r"jit got unexpected keyword argument\(s\) \['backend'\]",
    ),
    ("decorator-unknown-option", lambda: tf8.jit(device=0), errors.TracingError, r"\['device'\]"),
    (
        "returns-an-object",
        lambda: tf8.jit(lambda x: (x, object()))(X),
        errors.TracingError,
        "returned a value of type object .* as output leaf 1",
    ),
    (
        "returns-none-then-lowered",
        lambda: tf8.jit(lambda x: None).lower(X),
        errors.TracingError,
        "returns no arrays, so there is no program",
    ),
    (
        "argument-an-object",
        lambda: tf8.jit(ident)(object()),
        errors.TracingError,
        "argument 0 of .* is not an array, a scalar or a pytree of them: got object",
    ),
    (
        "argument-object-array",
        lambda: tf8.jit(ident)(np.array([object()])),
        errors.TracingError,
        "has an unsupported dtype .*object",
    ),
    (
        "static-argname-unhashable",
        lambda: tf8.jit(lambda x, s: x, static_argnames="s")(X, s=[1]),
        errors.TracingError,
        "static argument 's' .* unhashable type list",
    ),
    (
        "item-of-traced",
        lambda: tf8.jit(lambda x: x * x[0].item())(X),
        errors.ConcretizationError,
        r"numpy array of a traced value \(float64\(\)\)",
    ),
    (
        "tolist-of-traced",
        lambda: tf8.jit(lambda x: x.tolist())(X),
        errors.ConcretizationError,
        r"traced value \(float64\(3,\)\)",
    ),
    (
        "float-of-traced",
        lambda: tf8.jit(lambda x: x * float(x.sum()))(X),
        errors.ConcretizationError,
        "Python float",
    ),
    (
        "nonzero-without-size",
        lambda: tf8.jit(tnp.nonzero)(X),
        errors.ConcretizationError,
        "nonzero: the size of the result depends on the values",
    ),
    (
        "boolean-mask",
        lambda: tf8.jit(lambda x: x[x > 0])(X),
        errors.ConcretizationError,
        "boolean mask indexing",
    ),
    (
        "arange-of-traced",
        lambda: tf8.jit(tnp.arange)(np.int64(3)),
        errors.UnsupportedOperationError,
        "arange with a traced bound",
    ),
    (
        "zeros-of-traced-shape",
        lambda: tf8.jit(tnp.zeros)(np.int64(3)),
        errors.ShapeError,
        "a shape must be an int or a sequence of ints, got TracedTensor",
    ),
    (
        "make-program-static-out-of-range",
        lambda: tf8.make_program(ident, static_argnums=3)(X),
        errors.TracingError,
        r"static_argnums=\(3,\)",
    ),
    (
        "make-program-no-outputs",
        lambda: tf8.make_program(lambda x: ())(X),
        errors.TracingError,
        "returns no arrays",
    ),
]


@pytest.mark.parametrize(("misuse", "error", "message"), params(ROWS))
def test_jit_misuse(misuse, error, message):
    expect(misuse, error, message)
