"""`tf8.config`: process-wide defaults, set the way `jax.config` sets them.

    tf8.config.update("tf8_default_engine", "numba")
    tf8.config.tf8_default_engine            # -> "numba"

Each option has a default, an environment variable that sets its initial value (read when
tf8 is imported), and a check run on every update, so a bad value fails where it is set.
Options (`tf8.config.options()` lists them):

- `tf8_default_engine` (`TF8_DEFAULT_ENGINE`, default "numpy"): the engine `tf8.jit` runs
  compiled programs on when no `engine=` is given. An unknown engine, or one whose optional
  extra is not installed, raises `tf8.errors.EngineError` naming the `pip install` needed.
- `tf8_strict_indexing` (`TF8_STRICT_INDEXING`, default False): an integer index out of
  bounds (`x[5]` on a length-3 axis) raises `IndexingError`, for debugging; by default it is
  clamped into the axis, as JAX clamps it.
- `jax_disable_jit` (`JAX_DISABLE_JIT`, default False): `jit` calls its function directly,
  op by op, as JAX's option of that name does (`tf8.disable_jit()` sets it for a block).
- `jax_enable_x64` (`JAX_ENABLE_X64`, default True): 64-bit dtypes, as JAX's option of that
  name. tf8's default is on (JAX's is off); turned off, tf8 follows JAX's 32-bit default:
  float64, int64, uint64 and complex128 inputs and requested dtypes become float32, int32,
  uint32 and complex64, Python scalars are weak 32-bit, `tnp.ones(3)` is float32 and
  `tnp.arange(3)` int32, promotion results are narrowed the same way, and `tf8.random`
  draws JAX's 32-bit values. Changing it clears tf8's caches (traces, prepared programs and
  eager plans depend on it); as JAX expects, set it once, at startup, before making arrays:
  arrays made before keep their dtypes.
- `jax_traceback_filtering` (`JAX_TRACEBACK_FILTERING`, default "auto"): as JAX's option,
  an exception raised through tf8's API (`jit`, the transforms, control flow) loses tf8's own
  frames, so its traceback ends in the user's code, with a note saying so; "off" keeps every
  frame ("quiet_remove_frames": no note).
- `tf8_prepare_cache_size` (`TF8_PREPARE_CACHE_SIZE`, default 512): prepared programs each
  runtime keeps (least recently used first out).
- `tf8_jit_cache_size` (`TF8_JIT_CACHE_SIZE`, default 256): argument signatures each jitted
  function keeps traced (least recently used first out).
- `tf8_plan_cache_size` (`TF8_PLAN_CACHE_SIZE`, default 65536): entries of each per-op table
  eager dispatch reads (an op's plan on its avals, shared primitives, shared avals); a full
  table drops its older half.

A size is a positive int; lowering one evicts at once. `tf8.cache_info()` reports every
cache's hits, misses, evictions and size.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tf8.errors import ParameterError
from tf8.graph import caches
from tf8.ops import dtypes as dt
from tf8.ops import switches, tracebacks
from tf8.runtime.engines import get_engine

__all__ = ["Config", "config", "options", "update"]


def _engine_name(value: Any) -> str:
    if not isinstance(value, str):
        raise ParameterError(f"tf8_default_engine: expected an engine name, got {value!r}")
    get_engine(value)  # raises EngineError for an unknown or uninstalled engine
    return value


def _cache_size(kind: str) -> Callable[[Any], int]:
    """The check of option tf8_{kind}_cache_size: a positive int (or its text, from the
    environment), applied to every cache of that kind at once."""
    name = f"tf8_{kind}_cache_size"

    def check(value: Any) -> int:
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ParameterError(f"{name}: expected a positive int (entries), got {value!r}")
        caches.set_cache_size(kind, value)
        return value

    return check


def _boolean(value: Any, option: str) -> bool:
    """A boolean option's value: a bool, 0 or 1, or its text ("true", "0", ...)."""
    if isinstance(value, str) and value.strip().lower() in ("0", "1", "true", "false"):
        value = value.strip().lower() in ("1", "true")
    if not isinstance(value, (bool, int)) or value not in (0, 1):
        raise ParameterError(f"{option}: expected True or False, got {value!r}")
    return bool(value)


def _switch(name: str, option: str) -> Callable[[Any], bool]:
    """The check of a boolean option that `tf8.ops.switches.<name>` mirrors for every layer."""

    def check(value: Any) -> bool:
        value = _boolean(value, option)
        setattr(switches, name, value)
        return value

    return check


def _traceback_filtering(value: Any) -> str:
    """The check of jax_traceback_filtering (tf8.ops.tracebacks)."""
    if value not in tracebacks.MODES:
        raise ParameterError(
            f"jax_traceback_filtering must be one of {', '.join(map(repr, tracebacks.MODES))}, "
            f"got {value!r}"
        )
    switches.traceback_filtering = value
    return value


def _enable_x64(value: Any) -> bool:
    """The check of jax_enable_x64: swaps the dtype tables and clears every cache on a
    change (traces, prepared programs and eager plans hold the old dtypes)."""
    on = _boolean(value, "jax_enable_x64")
    if on != dt.x64_enabled():
        dt.set_x64(on)
        caches.clear_caches()
    return on


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
        Option(
            "tf8_strict_indexing",
            False,
            "TF8_STRICT_INDEXING",
            _switch("strict_indexing", "tf8_strict_indexing"),
            "an integer index out of bounds raises IndexingError (default: clamped, as JAX)",
        ),
        Option(
            "jax_enable_x64",
            True,
            "JAX_ENABLE_X64",
            _enable_x64,
            "64-bit dtypes (tf8's default; off: JAX's 32-bit default dtypes and promotion)",
        ),
        Option(
            "jax_traceback_filtering",
            "auto",
            "JAX_TRACEBACK_FILTERING",
            _traceback_filtering,
            "tf8's own frames leave tracebacks of errors raised through its API ('off': kept)",
        ),
        Option(
            "jax_disable_jit",
            False,
            "JAX_DISABLE_JIT",
            _switch("disable_jit", "jax_disable_jit"),
            "jit calls its function directly, op by op (JAX's name; tf8.disable_jit())",
        ),
        *[
            Option(
                f"tf8_{kind}_cache_size",
                caches.cache_size(kind),
                f"TF8_{kind.upper()}_CACHE_SIZE",
                _cache_size(kind),
                doc,
            )
            for kind, doc in [
                ("prepare", "prepared programs each runtime keeps (LRU)"),
                ("jit", "argument signatures each jitted function keeps (LRU)"),
                ("plan", "entries of each per-op eager table (a full one drops its older half)"),
            ]
        ],
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
        for name in OPTIONS:
            if (
                name.endswith("_cache_size")
                or name == "jax_traceback_filtering"
                or (isinstance(OPTIONS[name].default, bool))
            ):  # now
                getattr(self, name)

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
