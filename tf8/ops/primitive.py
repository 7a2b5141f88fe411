"""The graph-level op type derived from the catalog, and abstract values (shape + dtype).

A `Primitive` is a frozen, hashable value: catalog name + parameters + input count. It is what
the structural graph stores, so two `add`s on the same inputs are the same operation.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from tf8.errors import ParameterError
from tf8.graph.caches import Table
from tf8.ops.catalog import CATALOG, Row
from tf8.ops.shapes import Dim, DimExpr, shape_str

# Parameters a row may leave out, with the value they default to.
_size_names = itertools.count()


def _fresh_size_name() -> str:
    """Each dynamic_truncate names its own run-time size, so two never pass as equal."""
    return f"truncated{next(_size_names)}"


# A callable default is called once per op built without that parameter.
PARAM_DEFAULTS: dict[str, dict[str, Any]] = {
    "dynamic_truncate": {"size_name": _fresh_size_name},
    "cumsum": {"reverse": False},
    "slice": {"strides": None},
    "tril": {"k": 0},
    "triu": {"k": 0},
}


class Aval:
    """An abstract value: what tracing knows of a tensor without its data. Immutable, with its
    hash computed once: eager dispatch looks plans up by avals on every op."""

    __slots__ = ("shape", "dtype", "_hash", "fast_plans")
    shape: tuple[Dim, ...]
    dtype: np.dtype

    def __init__(self, shape: tuple[Dim, ...], dtype: np.dtype) -> None:
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "_hash", hash((shape, dtype)))
        # The eager fast paths' plans on this aval, one place per fast function (see
        # tf8/lax/eager.py): a list index instead of a hashed plan lookup per op.
        object.__setattr__(self, "fast_plans", [])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Aval is immutable (cannot set {name})")

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not Aval:
            return NotImplemented
        return self._hash == other._hash and self.shape == other.shape and self.dtype == other.dtype

    def __repr__(self) -> str:
        return f"Aval(shape={self.shape!r}, dtype={self.dtype!r})"

    def __reduce__(self) -> tuple:
        return (Aval, (self.shape, self.dtype))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __str__(self) -> str:
        return f"{self.dtype}{shape_str(self.shape)}"


_AVALS = Table("plan", "avals")
_aval_get = _AVALS.get  # bound once: the table is refilled in place, never replaced


def aval_of(shape: tuple[Dim, ...], dtype: np.dtype) -> Aval:
    """The Aval of `shape` and `dtype`, shared between callers (plan lookups then compare
    avals by identity)."""
    key = (shape, dtype)
    aval = _aval_get(key)
    if aval is None:
        aval = Aval(shape, dtype)
        _AVALS.put(key, aval)
    return aval


class ConstantValue:
    """A literal array as an op parameter: hashed and compared by dtype, shape and bytes."""

    __slots__ = ("array", "_hash", "_bytes")

    def __init__(self, array: np.ndarray) -> None:
        array = np.array(array, copy=True)
        array.flags.writeable = False
        self.array = array
        self._bytes = array.tobytes()
        self._hash = hash((str(array.dtype), array.shape, self._bytes))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ConstantValue)
            and self.array.dtype == other.array.dtype
            and self.array.shape == other.array.shape
            and self._bytes == other._bytes
        )

    def key(self) -> str:
        """Stable text for fingerprints."""
        return f"{self.array.dtype}{self.array.shape}:{self._bytes.hex()}"

    def __repr__(self) -> str:
        if self.array.size <= 4:
            return np.array2string(self.array, separator=", ")
        return f"<{self.array.dtype}{list(self.array.shape)} constant>"


def _freeze(value: Any) -> Any:
    """Make a parameter value hashable (lists → tuples, numpy ints → int)."""
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.ndarray):
        return ConstantValue(value)
    return value


class Primitive:
    """A catalog primitive with bound parameters: the operations of tf8's graphs."""

    __slots__ = ("name", "params", "input_count", "row", "_hash", "_param_dict")

    output_count = 1

    def __init__(self, name: str, input_count: int, **params: Any) -> None:
        row: Row | None = CATALOG.get(name)
        if row is None:
            raise ParameterError(f"no primitive named {name!r}")
        defaults = PARAM_DEFAULTS.get(name, {})
        params = {
            **{k: v() if callable(v) else v for k, v in defaults.items() if k not in params},
            **params,
        }
        unknown = set(params) - set(row.params)
        missing = set(row.params) - set(params)
        if unknown or missing:
            raise ParameterError(
                f"{name} takes parameters {row.params}; "
                f"unknown {sorted(unknown)}, missing {sorted(missing)}"
            )
        self.name = name
        self.row = row
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
        if not literal and not any(callable(v) for v in PARAM_DEFAULTS.get(name, {}).values()):
            _MADE.put(key, op)
    return op


def forget_primitive(name: str) -> None:
    """Drop the shared forms of `name` (its row was removed)."""
    for table in (_PLAIN, _MADE):
        for key in [k for k in table if k[0] == name]:
            del table[key]
