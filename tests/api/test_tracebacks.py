"""Errors point at the user's code: tf8's frames leave the traceback where an exception leaves
its API (JAX's `jax_traceback_filtering`), and messages name the function, the argument and
where the function is defined."""

import importlib.util
import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import ConcretizationError, ControlFlowTypeError, DifferentiationError

TF8 = os.path.dirname(tf8.__file__)


def _frames(exc: BaseException) -> list[str]:
    return [f.filename for f in traceback.extract_tb(exc.__traceback__)]


def _relu(x):
    if x > 0:  # the line the traceback ends on
        return x
    return 0.0


def test_an_error_raised_through_jit_ends_in_the_users_line_with_no_tf8_frames():
    with pytest.raises(ConcretizationError) as info:
        tf8.jit(_relu)(1.0)
    frames = traceback.extract_tb(info.value.__traceback__)
    assert not [f for f in frames if f.filename.startswith(TF8)]
    assert frames[-1].name == "_relu" and "if x > 0" in frames[-1].line
    assert any("jax_traceback_filtering" in n for n in info.value.__notes__)


def test_the_concretization_message_names_the_function_its_file_and_the_argument():
    with pytest.raises(ConcretizationError) as info:
        tf8.jit(_relu)(1.0)
    message = str(info.value)
    assert f"tracing the function _relu at {__file__}:" in message
    assert "depends on the value of the argument x" in message


def test_filtering_off_keeps_tf8s_frames():
    tf8.config.update("jax_traceback_filtering", "off")
    try:
        with pytest.raises(DifferentiationError) as info:
            tf8.grad(lambda x: x * 2.0)(tnp.ones(3))
    finally:
        tf8.config.update("jax_traceback_filtering", "auto")
    assert any(f.startswith(TF8) for f in _frames(info.value))
    with pytest.raises(DifferentiationError) as info:
        tf8.grad(lambda x: x * 2.0)(tnp.ones(3))
    assert not any(f.startswith(TF8) for f in _frames(info.value))


def test_a_bad_filtering_mode_is_refused():
    with pytest.raises(tf8.errors.ParameterError, match="jax_traceback_filtering"):
        tf8.config.update("jax_traceback_filtering", "sometimes")


def test_control_flow_messages_use_jaxs_words_and_name_the_functions():
    def step(carry, x):
        return tnp.concatenate([carry, x[None]]), x

    with pytest.raises(ControlFlowTypeError) as info:
        tf8.lax.scan(step, tnp.zeros(1), tnp.ones(3))
    message = str(info.value)
    assert "body_fun is step at" in message
    assert "the input carry has type float64(1,) but the corresponding output carry has " in message
    assert "so the shapes do not match" in message
    assert not any(f.startswith(TF8) for f in _frames(info.value))

    def wide(x):
        return tnp.stack([x, x])

    with pytest.raises(ControlFlowTypeError) as info:
        tf8.lax.cond(True, lambda x: x, wide, np.ones(2))
    message = str(info.value)
    assert "false_fun is wide at" in message and "true_fun is <lambda> at" in message
    assert "the output of false_fun has type float64(2, 2)" in message


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_in_ipython_an_eager_error_is_shown_without_tf8s_frames(mode):
    if importlib.util.find_spec("IPython") is None:
        pytest.skip("IPython (the notebooks extra) is not installed")
    # A shell of its own, in its own process: importing IPython changes process state (jedi
    # raises the recursion limit) that other tests read.
    script = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "shell.run_cell('import tf8.numpy as tnp\\ntnp.ones((3, 4)) @ tnp.ones(3)')\n"
    )
    env = {**os.environ, "JAX_TRACEBACK_FILTERING": mode}
    shown = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    ).stdout
    assert "ShapeError" in shown and "(3, 4) and (3,)" in shown
    assert ("_contract.py" in shown) == (mode == "off"), shown
