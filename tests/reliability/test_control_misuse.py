"""Misuse of the control-flow builders (cond, switch, while_loop, fori_loop, scan, map) and
of checkpoint (the rows tests/lax/test_control_errors.py has are not repeated here)."""

from __future__ import annotations

import numpy as np
import pytest
from misuse_table import expect, params

import tf8
import tf8.numpy as tnp
from tf8 import errors, lax

X = np.ones(3)
ident = lambda x: x  # noqa: E731

CONTROL = [
    (
        "cond-true-fun-not-callable",
        lambda: lax.cond(True, 1.0, lambda: 2.0),
        errors.ControlFlowTypeError,
        "cond: true_fun must be callable, got float",
    ),
    (
        "cond-false-fun-not-callable",
        lambda: lax.cond(True, lambda: 1.0, None),
        errors.ControlFlowTypeError,
        "cond: false_fun must be callable, got NoneType",
    ),
    (
        "cond-branch-dtypes",
        lambda: lax.cond(True, ident, lambda x: x.astype("float32"), X),
        errors.ControlFlowTypeError,
        "cond branches must return the same types",
    ),
    (
        "switch-branch-not-callable",
        lambda: lax.switch(0, [ident, "b"], X),
        errors.ControlFlowTypeError,
        r"switch: branches\[1\] must be callable, got str",
    ),
    (
        "while-cond-not-callable",
        lambda: lax.while_loop(3, ident, 0.0),
        errors.ControlFlowTypeError,
        "while_loop: cond_fun must be callable, got int",
    ),
    (
        "while-body-not-callable",
        lambda: lax.while_loop(lambda c: c < 1, [], 0.0),
        errors.ControlFlowTypeError,
        "while_loop: body_fun must be callable, got list",
    ),
    (
        "while-cond-vector",
        lambda: lax.while_loop(lambda c: c, ident, X),
        errors.ControlFlowTypeError,
        r"cond_fun must return a boolean scalar, got float64\(3,\)",
    ),
    (
        "while-body-grows-the-carry",
        lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: tnp.concatenate([c, c]), X),
        errors.ControlFlowTypeError,
        r"(?s)identical types.*float64\(6,\)",
    ),
    (
        "while-body-changes-dtype",
        lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, np.int32(0)),
        errors.ControlFlowTypeError,
        r"(?s)identical types.*int32",
    ),
    (
        "fori-body-not-callable",
        lambda: lax.fori_loop(0, 3, 7, 0.0),
        errors.ControlFlowTypeError,
        "fori_loop: body_fun must be callable, got int",
    ),
    (
        "scan-f-not-callable",
        lambda: lax.scan(None, 0.0, X),
        errors.ControlFlowTypeError,
        "scan: f must be callable, got NoneType",
    ),
    (
        "scan-carry-changes-shape",
        lambda: lax.scan(lambda c, x: (tnp.stack([c, c]), x), 0.0, X),
        errors.ControlFlowTypeError,
        r"(?s)identical types.*float64\(2,\)",
    ),
    (
        "scan-xs-scalar",
        lambda: lax.scan(lambda c, x: (c, x), 0.0, 1.0),
        errors.ShapeError,
        r"xs.*is a scalar.*need an axis 0",
    ),
    (
        "map-f-not-callable",
        lambda: lax.map(3, X),
        errors.ControlFlowTypeError,
        "map: f must be callable, got int",
    ),
    ("map-over-a-scalar", lambda: lax.map(ident, 2.0), errors.ShapeError, "is a scalar"),
    (
        "cond-in-grad-branch-types",
        lambda: tf8.grad(lambda x: tnp.sum(lax.cond(True, ident, lambda v: v[:2], x)))(X),
        errors.ControlFlowTypeError,
        "cond branches must return the same types",
    ),
]

CHECKPOINT = [
    (
        "checkpoint-not-callable",
        lambda: tf8.checkpoint(3),
        errors.TracingError,
        "checkpoint expects a callable, got int",
    ),
    (
        "checkpoint-policy-not-callable",
        lambda: tf8.checkpoint(ident, policy=3),
        errors.TracingError,
        "policy must be None or a callable",
    ),
    (
        "checkpoint-policy-a-string",
        lambda: tf8.checkpoint(ident, policy="everything"),
        errors.TracingError,
        "checkpoint_policies",
    ),
    (
        "checkpoint-static-argnums-out-of-range",
        lambda: tf8.checkpoint(ident, static_argnums=(4,))(X),
        errors.TracingError,
        r"static_argnums=\(4,\) but .* called with 1 positional argument",
    ),
    (
        "checkpoint-static-argnums-negative-out-of-range",
        lambda: tf8.checkpoint(ident, static_argnums=-2)(X),
        errors.TracingError,
        "argument -2 does not exist",
    ),
    (
        "checkpoint-static-argnums-not-ints",
        lambda: tf8.checkpoint(ident, static_argnums=("a",)),
        errors.TracingError,
        "static_argnums must be ints",
    ),
    (
        "remat-not-callable",
        lambda: tf8.remat({}),
        errors.TracingError,
        "checkpoint expects a callable, got dict",
    ),
    (
        "checkpoint-grad-non-scalar",
        lambda: tf8.grad(tf8.checkpoint(lambda x: x * 2.0))(X),
        errors.DifferentiationError,
        r"scalar output, got shape \(3,\)",
    ),
]


@pytest.mark.parametrize(("misuse", "error", "message"), params(CONTROL))
def test_control_flow_misuse(misuse, error, message):
    expect(misuse, error, message)


@pytest.mark.parametrize(("misuse", "error", "message"), params(CHECKPOINT))
def test_checkpoint_misuse(misuse, error, message):
    expect(misuse, error, message)


def test_checkpoint_static_argnums_in_range_still_work():
    f = tf8.checkpoint(lambda x, n: tnp.sum(x**n), static_argnums=-1)
    np.testing.assert_allclose(tf8.grad(f)(np.arange(3.0), 2), 2 * np.arange(3.0))
