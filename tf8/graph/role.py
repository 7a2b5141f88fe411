"""Operation roles: a tag that is part of an operation's identity.

A primal `mul` and a `mul` linearised in its second input compute different things, so the
role enters the operation key: the two are never merged by structural deduplication.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from tf8.errors import GraphError


class OperationRole:
    """Base class of roles; roles are immutable, hashable values."""

    __slots__ = ()


class _Primary(OperationRole):
    """The role of an ordinary (primal) operation; a singleton, see `PRIMARY`."""

    __slots__ = ()
    _instance: _Primary | None = None

    def __new__(cls) -> _Primary:
        # Copies and unpickled objects stay the singleton, so identity comparisons hold.
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "PRIMARY"

    def __reduce__(self) -> str:
        return "PRIMARY"


PRIMARY: Final[OperationRole] = _Primary()


@dataclass(frozen=True, slots=True)
class Linearized(OperationRole):
    """Role of an operation emitted by linearisation; `active_mask[i]` marks tangent inputs.

    Its hash is computed once: every new operation key of a linear graph hashes its role."""

    active_mask: tuple[bool, ...]
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        mask = self.active_mask
        if type(mask) is not tuple or not all(type(flag) is bool for flag in mask):
            if not isinstance(mask, (tuple, list)) or not all(type(f) is bool for f in mask):
                raise GraphError(
                    f"Linearized.active_mask must be a sequence of bools, got {mask!r}"
                )
            object.__setattr__(self, "active_mask", tuple(mask))
        object.__setattr__(self, "_hash", hash((Linearized, self.active_mask)))

    def __hash__(self) -> int:
        return self._hash
