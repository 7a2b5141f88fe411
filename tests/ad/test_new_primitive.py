"""A new primitive is one catalog row plus its kernel, shape rule and AD rules — no other file.

Everything a toy primitive needs is registered here, in the test; tracing, jit, the runtime's
passes and codegen, jvp, vjp and second-order derivatives then all work on it.
"""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.ad import register_rules, unregister_rules
from tf8.lax.builders import mul
from tf8.lax.core import apply1
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import definition, register_primitive, unregister_primitive


@pytest.fixture
def toy_cube():
    """`toy_cube(x) = x**3`, and `toy_shift(x, y) = x + 2y` (linear: its JVP comes free)."""
    register_primitive(
        Row("toy_cube", Category.ANALYTIC, DTypePolicy.SAME_FLOAT, 1, 1, doc="x**3"),
        shape_rule=lambda op, avals, guards: avals[0].shape,
        kernel=lambda op, x: x * x * x,
    )
    register_rules(
        "toy_cube",
        jvp=lambda op, primals, outputs, tangents: [
            None if tangents[0] is None else mul(tangents[0], mul(3.0, mul(primals[0], primals[0])))
        ],
    )
    register_primitive(
        Row("toy_shift", Category.ELEMENTWISE, DTypePolicy.SAME_FLOAT, 2, 2, linear=True),
        shape_rule=lambda op, avals, guards: avals[0].shape,
        kernel=lambda op, x, y: x + 2 * y,
    )
    register_rules(
        "toy_shift",
        transpose=lambda op, operands, linear, ct: [
            ct if linear[0] else None,
            mul(ct, 2.0) if linear[1] else None,
        ],
    )
    yield (
        lambda x: apply1("toy_cube", [tnp.asarray(x)]),
        lambda x, y: apply1("toy_shift", [tnp.asarray(x), tnp.asarray(y)]),
    )
    for name in ("toy_cube", "toy_shift"):
        unregister_primitive(name)
        unregister_rules(name)


def test_a_registered_primitive_traces_runs_and_differentiates(toy_cube):
    cube, shift = toy_cube
    x = np.linspace(-1.5, 2.0, 7)
    np.testing.assert_allclose(np.asarray(cube(tf8.tensor(x))), x**3)
    f = lambda x: tf8.numpy.sum(shift(cube(x), tf8.lax.add(x, 1.0)))  # noqa: E731
    np.testing.assert_allclose(tf8.jit(f)(x), np.sum(x**3 + 2 * (x + 1)))
    np.testing.assert_allclose(tf8.grad(f)(x), 3 * x**2 + 2)
    np.testing.assert_allclose(tf8.jit(tf8.grad(f))(x), 3 * x**2 + 2)
    np.testing.assert_allclose(tf8.hessian(f)(x), np.diag(6 * x))
    tf8.check_grads(f, (x,), order=2)
    with tf8.recording():  # a recorded op, to read its definition back
        assert definition(cube(tf8.tensor(x)).key.operation.op).linear is False
        assert definition(shift(tf8.tensor(x), tf8.tensor(x)).key.operation.op).linear is True


def test_unregistering_removes_every_trace_of_it(toy_cube):
    from tf8.errors import ParameterError

    unregister_primitive("toy_cube")
    with pytest.raises(ParameterError, match="toy_cube"):
        apply1("toy_cube", [tf8.tensor(np.ones(2))])
