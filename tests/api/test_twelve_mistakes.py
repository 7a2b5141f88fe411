"""Issue #30's twelve common mistakes: each raises a tf8.errors exception whose message names
what JAX's names (the function, the argument, where it is defined), and whose traceback ends
in the user's code with none of tf8's frames (JAX's traceback filtering)."""

import os
import re
import traceback

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import errors

TF8 = os.path.dirname(tf8.__file__)
HERE = re.escape(__file__)


def matmul_shapes():
    def predict(W, x):
        return W @ x

    return tf8.jit(predict)(tnp.ones((3, 4)), tnp.ones((3,)))


def int_to_grad():
    return tf8.grad(lambda n: n * 2)(3)


def grad_of_a_vector():
    return tf8.grad(lambda x: x * 2.0)(tnp.ones(3))


def python_if_under_jit():
    def relu(x):
        if x > 0:
            return x
        return 0.0

    return tf8.jit(relu)(1.0)


def float_under_grad():
    return tf8.grad(lambda x: float(x) * 2.0)(1.0)


def vmap_sizes():
    def f(x, y):
        return x + y

    return tf8.vmap(f)(tnp.ones((3, 2)), tnp.ones((4, 2)))


def strict_out_of_bounds():
    tf8.config.update("tf8_strict_indexing", True)
    try:
        return tf8.jit(lambda x: x[5])(tnp.ones(3))
    finally:
        tf8.config.update("tf8_strict_indexing", False)


def string_from_jit():
    def f(x):
        return "done"

    return tf8.jit(f)(1.0)


def carry_changes_shape():
    def step(carry, x):
        return tnp.concatenate([carry, x[None]]), x

    return tf8.lax.scan(step, tnp.zeros(1), tnp.ones(3))


def branches_differ():
    return tf8.lax.cond(True, lambda x: x, lambda x: tnp.stack([x, x]), tnp.ones(2))


def float_key():
    return tf8.random.normal(1.5, (2,))


def unhashable_static():
    return tf8.jit(lambda x, opts: x * opts["scale"], static_argnums=1)(1.0, {"scale": 2.0})


MISTAKES = [
    (matmul_shapes, errors.ShapeError, r"matmul.*\(3, 4\) and \(3,\)"),
    (int_to_grad, errors.DifferentiationError, r"int64"),
    (grad_of_a_vector, errors.DifferentiationError, r"scalar output.*\(3,\)"),
    (
        python_if_under_jit,
        errors.ConcretizationError,
        rf"(?s)tracing the function relu at {HERE}:\d+ for jit.*argument x",
    ),
    (float_under_grad, errors.ConcretizationError, r"float\(\).*argument 0"),
    (vmap_sizes, errors.BatchSizeError, r"(?s)argument x of shape \(3, 2\).*argument y"),
    (strict_out_of_bounds, errors.IndexingError, r"index 5 is out of bounds.*size 3"),
    (string_from_jit, errors.TracingError, rf"function .*f at {HERE}:\d+ .*type str"),
    (
        carry_changes_shape,
        errors.ControlFlowTypeError,
        rf"(?s)body_fun is step at {HERE}.*input carry",
    ),
    (branches_differ, errors.ControlFlowTypeError, r"(?s)true_fun is <lambda> at.*false_fun"),
    (float_key, errors.DTypeError, r"normal: a key.*float64"),
    (unhashable_static, errors.TracingError, r"unhashable type dict"),
]


@pytest.mark.parametrize("mistake,kind,message", MISTAKES, ids=[m[0].__name__ for m in MISTAKES])
def test_each_mistake_names_what_went_wrong_and_ends_in_user_code(mistake, kind, message):
    with pytest.raises(kind, match=message) as info:
        mistake()
    frames = traceback.extract_tb(info.value.__traceback__)
    assert not [f.filename for f in frames if f.filename.startswith(TF8)]
    assert frames[-1].filename == __file__


def test_the_setting_off_shows_tf8s_frames_again():
    tf8.config.update("jax_traceback_filtering", "off")
    try:
        with pytest.raises(errors.ControlFlowTypeError) as info:
            branches_differ()
    finally:
        tf8.config.update("jax_traceback_filtering", "auto")
    assert any(f.filename.startswith(TF8) for f in traceback.extract_tb(info.value.__traceback__))
    assert np.isfinite(1.0)  # the switch is back on: later tests see filtered tracebacks
