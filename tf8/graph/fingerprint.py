"""Structural fingerprints: 128-bit blake2b digests of how a value is obtained.

An input's fingerprint hashes its input key (type and hash); an operation's, its op's and
role's hashes and its inputs' fingerprints, made on first use (tracing makes many keys and
fingerprints few); an output's is its operation's mixed with the slot, derived on demand and
never stored. The intern tables compare structure, not fingerprints, so a collision can never
merge two different values (tests force one by patching `digest128`, the one hash function
fingerprints use).
"""

from __future__ import annotations

import struct
from collections.abc import Hashable
from hashlib import blake2b
from typing import Any, Protocol

__all__ = ["digest128", "fingerprint_operations", "input_fingerprint", "output_fingerprint"]

_MASK128 = (1 << 128) - 1
# Odd 128-bit constant (golden ratio): spreads output slots over the fingerprint space.
_SLOT_MIX = 0x9E3779B97F4A7C15F39CC0605CEDC835
_pack_header = struct.Struct("<cqq").pack


class _Operation(Protocol):
    """What the fingerprint walk reads and fills in of an operation key (tf8.graph.keys)."""

    _fingerprint: int | None  # None until the walk makes it
    _structure: tuple[Any, ...]  # (op, role, *input ValueKeys)


def digest128(data: bytes) -> int:
    """128-bit blake2b fingerprint of `data`; the one hash function keys use (tests patch it)."""
    return int.from_bytes(blake2b(data, digest_size=16).digest(), "little")


def input_fingerprint(input_key: Hashable) -> int:
    """Fingerprint of the graph input named `input_key`."""
    return digest128(_pack_header(b"i", hash(type(input_key)), hash(input_key)))


def _slot_mix(slot: int) -> int:
    """What an operation's fingerprint is xor-ed with to give its output `slot`'s."""
    return ((slot + 1) * _SLOT_MIX) & _MASK128


def output_fingerprint(operation_fingerprint: int, slot: int) -> int:
    """Fingerprint of output `slot` of an operation: derived, so it is never stored."""
    return operation_fingerprint ^ _slot_mix(slot)


def fingerprint_operations(key: _Operation) -> int:
    """Fingerprint `key` and every operation below it not fingerprinted yet, storing each on
    its key (iteratively: a chain of thousands of operations is no recursion)."""
    stack = [key]
    while stack:
        current = stack[-1]
        if current._fingerprint is not None:
            stack.pop()
            continue
        structure = current._structure
        waiting = [
            value._operation
            for value in structure[2:]
            if value._operation is not None and value._operation._fingerprint is None
        ]
        if waiting:
            stack.extend(waiting)
            continue
        stack.pop()
        parts = [_pack_header(b"o", hash(structure[0]), hash(structure[1]))]
        for value in structure[2:]:
            parts.append(value.fingerprint.to_bytes(16, "little"))
        current._fingerprint = digest128(b"".join(parts))
    return key._fingerprint  # type: ignore[return-value]
