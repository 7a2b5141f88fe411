"""What a conformance case is, and how a case's function is found in JAX or in tf8.

A case is `Case(name, args, keywords)`:
- `name` is a path below the library's root, the same in both (`numpy.sin`, `lax.add`,
  `scipy.stats.norm.logpdf`), or a program of `PROGRAMS` (a function written once against
  either library, for the transforms and control flow);
- an argument is a numpy array (its dtype and shape are the case's; traced under `jit`), a
  Python scalar (weakly typed, traced under `jit`), or `Static(value)`: a shape, an axis, a
  string, passed as it is and closed over under `jit` and `vmap`;
- keywords are static (JSON: numbers, strings, lists, None); the replay reads lists back as
  tuples, so write axes and shapes as tuples (JAX refuses some lists, e.g. `norm(axis=[0, 1])`);
- `select` keeps some output leaves (where the others are defined only up to sign);
- `derivatives=False` records no JVP/VJP (sampling, or a function JAX does not differentiate).

Families of cases live in `families/`, one module per corpus file; each names its functions
once with their grid, so recording a new function is one line there.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PROGRAMS", "Case", "Static", "function", "program", "thaw"]


@dataclass(frozen=True)
class Static:
    """An argument passed as it is (a shape, an axis), never traced."""

    value: Any


@dataclass
class Case:
    name: str
    args: tuple[Any, ...]
    keywords: dict[str, Any] = field(default_factory=dict)
    select: tuple[int, ...] | None = None
    derivatives: bool = True


# name -> builder(root module) -> the function; for what is not one name (transforms, loops)
PROGRAMS: dict[str, Callable[[Any], Callable]] = {}


def program(name: str) -> Callable:
    """Register `builder(root)` as the program `name` (a decorator)."""

    def register(builder: Callable[[Any], Callable]) -> Callable[[Any], Callable]:
        PROGRAMS[name] = builder
        return builder

    return register


def function(root: Any, name: str) -> Callable | None:
    """The function `name` of the library whose top module is `root` (jax or tf8), or None."""
    if name in PROGRAMS:
        return PROGRAMS[name](root)
    obj = root
    prefix = root.__name__
    for part in name.split("."):
        prefix += "." + part
        found = getattr(obj, part, None)
        if found is None:
            try:
                found = importlib.import_module(prefix)
            except ImportError:
                return None
        obj = found
    return obj if callable(obj) else None


def thaw(value: Any) -> Any:
    """A static value read back from JSON: lists become tuples (shapes, axes)."""
    if isinstance(value, list):
        return tuple(thaw(v) for v in value)
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    return value
