"""The graph-level op type: a catalog primitive with bound parameters.

A `Primitive` is a frozen, hashable value: catalog name + parameters + input count. It is what
the structural graph stores, so two `add`s on the same inputs are the same operation. It
carries its primitive's definition (`op.definition`), so every layer reads the primitive's
facts from the op itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import DTypeError, ParameterError
from tf8.graph.caches import Table
from tf8.ops import dtypes as dt
from tf8.ops import switches
from tf8.ops.avals import Aval, ConstantValue, aval_of
from tf8.ops.definition import DERIVED, PLANS, OpDefinition
from tf8.ops.primitives import PRIMITIVES
from tf8.ops.shapes import DimExpr

__all__ = [
    "Aval",
    "ConstantValue",
    "Primitive",
    "aval_of",
    "forget_primitive",
    "make_primitive",
    "plain_primitive",
    "register_primitive",
    "unregister_primitive",
]


def _freeze(value: Any) -> Any:
    """Make a parameter value hashable (lists → tuples, numpy ints → int)."""
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.ndarray):
        return ConstantValue(value)
    return value


def _narrowed(value: Any) -> Any:
    """A `dtype` parameter with jax_enable_x64 off: its canonical (32-bit) dtype, so that the
    kernel computes in the dtype the op's aval says."""
    try:
        return dt.canonical_dtype(np.dtype(value))
    except (TypeError, DTypeError):
        return value


class Primitive:
    """A catalog primitive with bound parameters: the operations of tf8's graphs."""

    __slots__ = ("name", "params", "input_count", "row", "definition", "_hash", "_param_dict")

    output_count = 1

    def __init__(self, name: str | OpDefinition, input_count: int, **params: Any) -> None:
        found = name if isinstance(name, OpDefinition) else PRIMITIVES.get(name)
        if found is None or found.row is None:
            raise ParameterError(f"no primitive named {name!r}")
        row = found.row
        name = row.name
        params = {
            **{k: v() if callable(v) else v for k, v in row.defaults if k not in params},
            **params,
        }
        if not switches.enable_x64 and "dtype" in params:  # (x64 off: float64 is float32)
            params["dtype"] = _narrowed(params["dtype"])
        unknown = set(params) - set(row.params)
        missing = set(row.params) - set(params)
        if unknown or missing:
            raise ParameterError(
                f"{name} takes parameters {row.params}; "
                f"unknown {sorted(unknown)}, missing {sorted(missing)}"
            )
        self.name = name
        self.row = row
        self.definition = found
        self.input_count = input_count
        self.params: tuple[tuple[str, Any], ...] = tuple(
            (k, _freeze(params[k])) for k in row.params
        )
        self._param_dict = dict(self.params)
        self._hash = hash((name, input_count, self.params))

    def __getitem__(self, param: str) -> Any:
        return self._param_dict[param]

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Primitive)
            and self._hash == other._hash
            and self.name == other.name
            and self.input_count == other.input_count
            and _params_equal(self.params, other.params)
        )

    def __repr__(self) -> str:
        if not self.params:
            return self.name
        inner = ", ".join(f"{k}={_param_repr(v)}" for k, v in self.params)
        return f"{self.name}[{inner}]"

    def key(self) -> str:
        """Stable text (across processes) for the semantic fingerprint."""
        return f"{self.name}/{self.input_count}/" + ";".join(
            f"{k}={_param_key(v)}" for k, v in self.params
        )


def _params_equal(a: tuple, b: tuple) -> bool:
    # Parameters compare by type as well as value, so that 1 == 1.0 == True never merges.
    return len(a) == len(b) and all(
        ka == kb and type(va) is type(vb) and va == vb for (ka, va), (kb, vb) in zip(a, b)
    )


def _param_repr(value: Any) -> str:
    if isinstance(value, np.dtype):
        return str(value)
    if isinstance(value, tuple):  # shapes may hold DimExprs: print them as `n`, not DimExpr('n')
        inner = ", ".join(_param_repr(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, DimExpr):
        return str(value)
    return repr(value)


def _param_key(value: Any) -> str:
    if isinstance(value, ConstantValue):
        return value.key()
    if isinstance(value, tuple):
        return "(" + ",".join(_param_key(v) for v in value) + ")"
    if isinstance(value, np.dtype):
        return str(value)
    return f"{type(value).__name__}:{value}"


# (name, input count) -> the parameterless Primitive: most ops have no parameters, and
# building one validates against the catalog, so eager dispatch reuses them.
_PLAIN: dict[tuple[str, int], Primitive] = {}


def plain_primitive(name: str, input_count: int) -> Primitive:
    """The (shared) primitive `name` without parameters, on `input_count` operands."""
    op = _PLAIN.get((name, input_count))
    if op is None:
        op = _PLAIN[(name, input_count)] = Primitive(name, input_count)
    return op


_MADE = Table("plan", "primitives")
_made_get = _MADE.get  # bound once: the table is refilled in place, never replaced


def make_primitive(name: str, input_count: int, params: dict[str, Any]) -> Primitive:
    """`Primitive(name, input_count, **params)`, shared between equal requests: building one
    validates and freezes its parameters, which eager dispatch cannot pay per op."""
    if not params:
        return plain_primitive(name, input_count)
    try:
        # Types are part of the key, as of Primitive equality: axis=1 is not axis=True.
        key = (name, input_count, *[(k, type(v), v) for k, v in params.items()])
        op = _made_get(key)
    except TypeError:  # an unhashable parameter (a list): build it every time
        return Primitive(name, input_count, **params)
    if op is None:
        op = Primitive(name, input_count, **params)
        literal = any(isinstance(v, ConstantValue) for _, v in op.params)  # keep no array alive
        if not literal and not any(callable(v) for _, v in op.row.defaults):
            _MADE.put(key, op)
    return op


def forget_primitive(name: str) -> None:
    """Drop the shared forms of `name` (its definition was removed or replaced)."""
    for table in (_PLAIN, _MADE):
        for key in [k for k in table if k[0] == name]:
            del table[key]


def register_primitive(defn: OpDefinition) -> None:
    """Add the primitive `defn` (made by `tf8.ops.definition.define`) to the catalog: the same
    path tf8's own primitives take. From then on `apply1(defn.name, ...)` builds it, and it
    gets eager dispatch, jit, vmap, jvp/vjp to any order and every engine from its definition.
    """
    if defn.row is None:
        raise ParameterError(f"{defn.name!r} is not a catalog primitive (it has no row)")
    if defn.name in PRIMITIVES:
        raise ParameterError(f"a primitive named {defn.name!r} already exists")
    PRIMITIVES[defn.name] = defn
    forget_primitive(defn.name)
    PLANS.clear()
    DERIVED.clear()


def unregister_primitive(name: str) -> None:
    """Remove a primitive added by `register_primitive` (tests use it to clean up)."""
    PRIMITIVES.pop(name, None)
    forget_primitive(name)
    PLANS.clear()
    DERIVED.clear()
