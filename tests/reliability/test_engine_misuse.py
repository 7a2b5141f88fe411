"""Misuse of the engines and of tf8.config (engine names, options, cache sizes)."""

from __future__ import annotations

import numpy as np
import pytest
from misuse_table import expect, params

import tf8
from tf8 import errors
from tf8.runtime import engines

ident = lambda x: x  # noqa: E731

ROWS = [
    (
        "jit-unknown-engine",
        lambda: tf8.jit(ident, engine="cuda"),
        errors.EngineError,
        r"unknown engine 'cuda'; tf8's engines are \[.*'numba', 'numpy'\]",
    ),
    ("jit-engine-an-int", lambda: tf8.jit(ident, engine=3), errors.EngineError, "unknown engine 3"),
    (
        "runtime-unknown-engine",
        lambda: tf8.Runtime(engines=["gpu"]),
        errors.EngineError,
        "unknown engine 'gpu'",
    ),
    (
        "runtime-engine-an-object",
        lambda: tf8.Runtime(engines=[object()]),
        errors.EngineError,
        "unknown engine <object object",
    ),
    (
        "runtime-engines-a-string",
        lambda: tf8.Runtime(engines="numpy"),
        errors.EngineError,
        r"takes a list of engine names, got the string 'numpy' \(write engines=\['numpy'\]\)",
    ),
    (
        "runtime-optimise-a-string",
        lambda: tf8.Runtime(optimise="yes"),
        errors.ParameterError,
        "optimise must be None, True or False, got 'yes'",
    ),
    (
        "runtime-passes-an-int",
        lambda: tf8.Runtime(passes=3),
        errors.ParameterError,
        "passes must be a sequence of passes, got int",
    ),
    (
        "config-unknown-option",
        lambda: tf8.config.update("tf8_nonsense", 1),
        errors.ParameterError,
        "tf8.config has no option 'tf8_nonsense'; options:",
    ),
    (
        "config-unknown-default-engine",
        lambda: tf8.config.update("tf8_default_engine", "tpu"),
        errors.EngineError,
        "unknown engine 'tpu'",
    ),
    (
        "config-default-engine-an-int",
        lambda: tf8.config.update("tf8_default_engine", 7),
        errors.ParameterError,
        "tf8_default_engine: expected an engine name, got 7",
    ),
    (
        "config-jit-cache-size-zero",
        lambda: tf8.config.update("tf8_jit_cache_size", 0),
        errors.ParameterError,
        "tf8_jit_cache_size: expected a positive int",
    ),
    (
        "config-prepare-cache-size-float",
        lambda: tf8.config.update("tf8_prepare_cache_size", 2.5),
        errors.ParameterError,
        "tf8_prepare_cache_size: expected a positive int .* got 2.5",
    ),
    (
        "config-plan-cache-size-bool",
        lambda: tf8.config.update("tf8_plan_cache_size", True),
        errors.ParameterError,
        "tf8_plan_cache_size: expected a positive int .* got True",
    ),
]


@pytest.mark.parametrize(("misuse", "error", "message"), params(ROWS))
def test_engine_and_config_misuse(misuse, error, message):
    expect(misuse, error, message)


def test_an_engine_whose_package_is_missing_names_the_install(monkeypatch):
    spec = ("tf8.runtime.engines.numpy", "NumpyEngine", "no_such_package_tf8", "pip install x")
    monkeypatch.setitem(engines.ENGINES, "phantom", spec)
    expect(
        lambda: tf8.jit(ident, engine="phantom"),
        errors.EngineError,
        "engine 'phantom' needs the package 'no_such_package_tf8', which is not installed: "
        "pip install x",
    )
    expect(
        lambda: tf8.config.update("tf8_default_engine", "phantom"),
        errors.EngineError,
        "needs the package 'no_such_package_tf8'",
    )
    assert tf8.config.tf8_default_engine == "numpy"  # a refused value changes nothing
    np.testing.assert_array_equal(tf8.jit(ident)(np.ones(2)), np.ones(2))
