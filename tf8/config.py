"""`tf8.config`: process-wide defaults, set the way `jax.config` sets them.

    tf8.config.update("tf8_default_engine", "numba")
    tf8.config.tf8_default_engine            # -> "numba"

Each option has a default, an environment variable that sets its initial value (read when
tf8 is imported), and a check run on every update, so a bad value fails where it is set.
Options (`tf8.config.options()` lists them):

- `tf8_default_engine` (`TF8_DEFAULT_ENGINE`, default "numpy"): the engine `tf8.jit` runs
  compiled programs on when no `engine=` is given. An unknown engine, or one whose optional
  extra is not installed, raises `tf8.errors.EngineError` naming the `pip install` needed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tf8.errors import ParameterError
from tf8.runtime.engines import get_engine

__all__ = ["Config", "config", "options", "update"]


def _engine_name(value: Any) -> str:
    if not isinstance(value, str):
        raise ParameterError(f"tf8_default_engine: expected an engine name, got {value!r}")
    get_engine(value)  # raises EngineError for an unknown or uninstalled engine
    return value


@dataclass(frozen=True)
class Option:
    name: str
    default: Any
    env: str
    check: Callable[[Any], Any]
    doc: str


OPTIONS: dict[str, Option] = {
    o.name: o
    for o in [
        Option(
            "tf8_default_engine",
            "numpy",
            "TF8_DEFAULT_ENGINE",
            _engine_name,
            "the engine tf8.jit compiles for when no engine= is given",
        ),
    ]
}


class Config:
    """The process defaults: read them as attributes, change them with `update`."""

    def __init__(self) -> None:
        values: dict[str, Any] = {}
        for option in OPTIONS.values():
            raw = os.environ.get(option.env)
            values[option.name] = option.default if raw in (None, "") else raw
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_checked", set())

    def __getattr__(self, name: str) -> Any:
        if name not in OPTIONS:
            raise AttributeError(f"tf8.config has no option {name!r}; options: {sorted(OPTIONS)}")
        value = self._values[name]
        if name not in self._checked:  # a value from the environment: checked on first read
            value = self._values[name] = OPTIONS[name].check(value)
            self._checked.add(name)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"set tf8.config options with tf8.config.update({name!r}, value)")

    def update(self, name: str, value: Any) -> None:
        """Set option `name` to `value` (checked now)."""
        if name not in OPTIONS:
            raise ParameterError(f"tf8.config has no option {name!r}; options: {sorted(OPTIONS)}")
        self._values[name] = OPTIONS[name].check(value)
        self._checked.add(name)

    def options(self) -> dict[str, str]:
        """Each option's name → what it sets."""
        return {name: option.doc for name, option in OPTIONS.items()}

    def __repr__(self) -> str:
        return "tf8.config(" + ", ".join(f"{k}={v!r}" for k, v in self._values.items()) + ")"


config = Config()
update = config.update
options = config.options


def __getattr__(name: str) -> Any:  # tf8.config.tf8_default_engine reads the option
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(config, name)
