"""The extension-op protocol: a frozen value (family + payload) that compiles like a primitive.

Hash and equality come from `(family, payload)`, so an extension op takes part in structural
identity (CSE) and in fingerprints (`key()`). A family implements `infer` (shape/dtype rule,
appending ShapeGuards for constraints it cannot prove) and optionally `prune_outputs(live)`.
tf8's own families keep their kernels in `tf8.ops.extension.kernels` and their AD rules in
`tf8.ad.families`, keyed by op class; a user-defined family brings them as methods (`kernel`,
`jvp`, and `transpose` when it is linear).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tf8.ops.avals import Aval


class ExtensionOp:
    """Base class; subclasses set `family`, `name` and pass a hashable payload."""

    __slots__ = ("payload", "input_count", "output_count", "_hash")

    family: str = "tf8.extension.v1"
    name: str = "extension"
    params: tuple = ()

    def __init__(self, payload: Any, input_count: int, output_count: int = 1) -> None:
        self.payload = payload
        self.input_count = input_count
        self.output_count = output_count
        self._hash = hash((type(self), self.family, payload, input_count, output_count))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and self._hash == other._hash  # type: ignore[attr-defined]
            and self.payload == other.payload  # type: ignore[attr-defined]
            and self.input_count == other.input_count  # type: ignore[attr-defined]
            and self.output_count == other.output_count  # type: ignore[attr-defined]
        )

    def __repr__(self) -> str:
        return f"{self.name}[{self.payload!r}]" if self.payload != () else self.name

    def key(self) -> str:
        """Stable text for the semantic fingerprint."""
        return f"{self.family}/{self.name}/{self.input_count}/{self.output_count}/{self.payload!r}"

    # --- what a family implements -----------------------------------------------------------
    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        raise NotImplementedError

    def kernel(self, op: ExtensionOp, *arrays: Any) -> Any:
        raise NotImplementedError

    def prune_outputs(self, live: tuple[bool, ...]) -> ExtensionOp | None:
        return None
