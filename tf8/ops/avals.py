"""Abstract values (shape + dtype) and literal arrays as op parameters.

They sit below every primitive definition: shape rules read and return avals, and a
`constant`'s literal is a `ConstantValue`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.graph.caches import Table
from tf8.ops.shapes import Dim, shape_str


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


def value_aval(key: Any) -> Aval:
    """The aval recorded for a value key: a leaf's own, or its operation's output's (the meta
    `tf8.lax.core.apply` keeps on the operation key)."""
    operation = key._operation
    if operation is None:
        return key._input_key.aval
    return operation.meta[0][key._output_slot]


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
