"""Engines by name: `get_engine("numpy")`, `get_engine("numba")`, `get_engine("dask")`.

An engine's module is imported when it is first asked for, and an engine with an optional
extra checks that the extra is installed without importing it (numba is imported only when
the engine first compiles; dask when its engine is first asked for), so `import tf8` stays
fast. `lazy_engine(value)` names the engine of a lazy array argument (a dask.array): jit
places such calls on it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any

from tf8.errors import EngineError

from .base import HOST, Engine, GuestRegion, Kernel, Transfer

__all__ = [
    "ENGINES",
    "HOST",
    "Engine",
    "GuestRegion",
    "Kernel",
    "Transfer",
    "get_engine",
    "lazy_engine",
]

# name → (module, class, the package it needs or "", the pip command that brings it)
ENGINES: dict[str, tuple[str, str, str, str]] = {
    "numpy": ("tf8.runtime.engines.numpy", "NumpyEngine", "", ""),
    "numba": (
        "tf8.runtime.engines.numba",
        "NumbaEngine",
        "numba",
        "pip install numba  (or the extra: pip install 'tf8[numba]')",
    ),
    "dask": (
        "tf8.runtime.engines.dask",
        "DaskEngine",
        "dask",
        "pip install 'dask[array,distributed]'  (or the extra: pip install 'tf8[dask]')",
    ),
}

# engine name → (module, class) of the lazy arrays that place a jitted call on it
LAZY_ARRAYS: dict[str, tuple[str, str]] = {"dask": ("dask.array", "Array")}


def lazy_engine(value: Any) -> str | None:
    """The engine whose lazy array `value` is ("dask" for a dask.array.Array), else None.
    Imports nothing: a module not yet imported made no such array."""
    for name, (module, cls) in LAZY_ARRAYS.items():
        found = sys.modules.get(module)
        if found is not None and isinstance(value, getattr(found, cls)):
            return name
    return None


_INSTANCES: dict[str, Engine] = {}


def get_engine(name: str | Engine) -> Engine:
    """The engine called `name` (one shared instance per name); an Engine is returned as is."""
    if isinstance(name, Engine):
        return name
    found = _INSTANCES.get(name)
    if found is not None:
        return found
    spec = ENGINES.get(name) if isinstance(name, str) else None
    if spec is None:
        raise EngineError(f"unknown engine {name!r}; tf8's engines are {sorted(ENGINES)}")
    module, cls, package, install = spec
    if package and importlib.util.find_spec(package) is None:
        raise EngineError(
            f"engine {name!r} needs the package {package!r}, which is not installed: {install}"
        )
    engine = getattr(importlib.import_module(module), cls)()
    _INSTANCES[name] = engine
    return engine
