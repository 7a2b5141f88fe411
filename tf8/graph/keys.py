"""Structural keys: interned (hash-consed) identities of values and operations.

A `ValueKey` says *how* a value is obtained: an input, or output slot k of an
`OperationKey` (an operation applied to input keys, with a role). Keys are interned in weak
tables, so structurally equal keys are the same object: equality and hashing are identity's
(O(1), never recursive). Each key has a 128-bit fingerprint (tf8.graph.fingerprint): an
input's is made with the key, an operation's on first use (tracing makes many keys and
fingerprints few), so making an operation key costs no digest.
The intern tables compare structure (op ==, role ==, inputs by identity), so a fingerprint
collision can never merge two different values. Output keys hold their operation strongly
and the operation holds its outputs weakly: no reference cycles, so dropping a graph frees
its keys by refcounting alone.

Threads: table updates are atomic (`dict.setdefault`), and output keys are created under a
lock, so two threads building the same graph at once still share one key per value.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Hashable, Iterable
from typing import Any

from tf8.errors import ArityError, GraphError
from tf8.graph.fingerprint import (
    digest128,
    fingerprint_operations,
    input_fingerprint,
    output_fingerprint,
)
from tf8.graph.intern import (
    _forget_input,
    _forget_operation,
    _input_table,
    _intern,
    _operation_table,
)
from tf8.graph.operation import (
    check_counts,
    not_a_role,
    not_an_operation,
    operation_name,
    short_repr,
)
from tf8.graph.role import PRIMARY, OperationRole

# digest128 (tf8.graph.fingerprint) and operation_name (tf8.graph.operation) are keys' names too
__all__ = ["OperationKey", "ValueKey", "digest128", "existing_input_key", "operation_name"]

_output_lock = threading.Lock()


class ValueKey:
    """Structural identity of a value: an input key, or output slot k of an `OperationKey`.

    Create with `ValueKey.input(input_key)` or `OperationKey.output(slot)`; never directly.
    """

    __slots__ = ("_input_key", "_operation", "_output_slot", "_fingerprint", "__weakref__")

    _input_key: Hashable
    _operation: OperationKey | None
    _output_slot: int
    _fingerprint: int | None  # None for outputs: derived from the operation's on demand

    def __init_subclass__(cls, **kwargs: object) -> None:
        raise TypeError("ValueKey cannot be subclassed: the engine relies on its exact type")

    def __new__(cls, *args: object, **kwargs: object) -> ValueKey:
        raise TypeError(
            "ValueKey is interned: use ValueKey.input(key) or OperationKey.output(slot)"
        )

    @staticmethod
    def input(input_key: Hashable) -> ValueKey:
        """The (interned) key of the graph input named `input_key`."""
        structure = (type(input_key), input_key)
        try:
            ref = _input_table.get(structure)
        except TypeError:
            raise GraphError(f"input key {short_repr.repr(input_key)} is not hashable") from None
        if ref is not None:
            key = ref()
            if key is not None:
                return key
        key = object.__new__(ValueKey)
        key._input_key = input_key
        key._operation = None
        key._output_slot = 0
        key._fingerprint = input_fingerprint(input_key)
        return _intern(_input_table, structure, key, _forget_input)

    @property
    def is_input(self) -> bool:
        """True for graph inputs, False for operation outputs."""
        return self._operation is None

    @property
    def input_key(self) -> Hashable:
        """The input's hashable key (None for operation outputs)."""
        return self._input_key

    @property
    def operation(self) -> OperationKey | None:
        """The producing operation (None for inputs)."""
        return self._operation

    @property
    def output_slot(self) -> int:
        """Which output of the producing operation this is (0 for inputs)."""
        return self._output_slot

    @property
    def fingerprint(self) -> int:
        """128-bit structural fingerprint (stable within a process)."""
        fingerprint = self._fingerprint
        if fingerprint is not None:
            return fingerprint
        operation = self._operation
        assert operation is not None  # only outputs leave the fingerprint to their operation
        return output_fingerprint(operation.fingerprint, self._output_slot)

    # Equality and hashing are object identity's (inherited, in C: the cheapest there is):
    # interning makes identity structural equality.

    def __copy__(self) -> ValueKey:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> ValueKey:
        return self

    def __reduce__(self) -> None:
        raise TypeError("ValueKey cannot be pickled: its identity only exists within a process")

    def __repr__(self) -> str:
        operation = self._operation
        if operation is None:
            return f"ValueKey(input {short_repr.repr(self._input_key)})"
        return (
            f"ValueKey({operation_name(operation._structure[0])}"
            f"#{operation.fingerprint & 0xFFFFFFFF:08x}:{self._output_slot})"
        )


class OperationKey:
    """Structural identity of an operation applied to input keys with a role; interned.

    Get one with `OperationKey.get(op, inputs, role)`; its outputs are `ValueKey`s.
    """

    __slots__ = (
        "_structure",
        "_fingerprint",
        "_output_count",
        "_output0",
        "_later_outputs",
        "meta",
        "__weakref__",
    )

    _structure: tuple[Any, ...]  # (op, role, *inputs): also this key's intern-table entry
    _fingerprint: int | None  # None until first asked for (see `fingerprint`)
    _output_count: int
    # Weak references to the output keys, created on demand: slot 0 apart (the common
    # single-output case needs no list), slots 1.. in a list (None if output_count < 2).
    _output0: weakref.ReferenceType[ValueKey] | None
    _later_outputs: list[weakref.ReferenceType[ValueKey] | None] | None
    # What the layer above recorded about the outputs when the key was first made (tf8: their
    # avals and shape guards), so no later walk infers them again; opaque to the engine.
    meta: Any

    def __init_subclass__(cls, **kwargs: object) -> None:
        raise TypeError("OperationKey cannot be subclassed: the engine relies on its exact type")

    def __new__(cls, *args: object, **kwargs: object) -> OperationKey:
        raise TypeError("OperationKey is interned: use OperationKey.get(op, inputs, role)")

    @staticmethod
    def get(op: Any, inputs: Iterable[ValueKey], role: OperationRole = PRIMARY) -> OperationKey:
        """The unique key of `op` applied to `inputs` with `role`.

        Raises ArityError if `len(inputs) != op.input_count`, GraphError if an input is not a
        ValueKey, the op lacks `input_count`/`output_count`, or the role is not a role.
        """
        structure = (op, role, *inputs)
        key = _live_operation(structure)
        return _new_operation(structure) if key is None else key

    @staticmethod
    def get_with_outputs(
        op: Any, inputs: Iterable[ValueKey], role: OperationRole = PRIMARY
    ) -> tuple[OperationKey, tuple[ValueKey, ...]]:
        """`get(op, inputs, role)` and its `outputs`, in one step: a new key's output keys
        are made with it, before it is interned (no other thread can see it yet, so no
        lock). The caller holds the outputs: the key only refers to them weakly."""
        structure = (op, role, *inputs)
        key = _live_operation(structure)
        if key is not None:
            return key, key.outputs
        key = _make_operation(structure)
        outputs = _fresh_outputs(key)
        winner = _intern_operation(key, structure)
        return (key, outputs) if winner is key else (winner, winner.outputs)

    @property
    def op(self) -> Any:
        """The operation object."""
        return self._structure[0]

    @property
    def role(self) -> OperationRole:
        """The role (PRIMARY or Linearized(...)), part of the identity."""
        return self._structure[1]

    @property
    def inputs(self) -> tuple[ValueKey, ...]:
        """The input keys, in order."""
        return self._structure[2:]

    @property
    def fingerprint(self) -> int:
        """128-bit structural fingerprint (stable within a process), made on first use."""
        fingerprint = self._fingerprint
        return fingerprint_operations(self) if fingerprint is None else fingerprint

    @property
    def output_count(self) -> int:
        """Number of output slots (the op's output_count)."""
        return self._output_count

    @property
    def outputs(self) -> tuple[ValueKey, ...]:
        """One key per output slot."""
        if self._output_count == 1:  # the common case, kept cheap: tracing calls it per op
            ref = self._output0
            key = None if ref is None else ref()
            return (key if key is not None else self.output(0),)
        return tuple([self.output(slot) for slot in range(self._output_count)])

    def output(self, slot: int) -> ValueKey:
        """The key of output `slot` (created on demand; interned while alive)."""
        if slot == 0 and type(slot) is int and self._output_count:
            ref = self._output0
        elif type(slot) is int and 0 < slot < self._output_count:
            ref = self._later_outputs[slot - 1]  # type: ignore[index]
        else:
            raise GraphError(
                f"{operation_name(self._structure[0])} has {self._output_count} outputs; "
                f"there is no output slot {slot!r}"
            )
        if ref is not None:
            key = ref()
            if key is not None:
                return key
        with _output_lock:  # two threads making the same output key get one object
            ref = self._output0 if slot == 0 else self._later_outputs[slot - 1]  # type: ignore[index]
            key = None if ref is None else ref()
            if key is not None:
                return key
            key = object.__new__(ValueKey)
            key._input_key = None
            key._operation = self
            key._output_slot = slot
            key._fingerprint = None
            if slot == 0:
                self._output0 = weakref.ref(key)
            else:
                self._later_outputs[slot - 1] = weakref.ref(key)  # type: ignore[index]
            return key

    def __copy__(self) -> OperationKey:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> OperationKey:
        return self

    def __reduce__(self) -> None:
        raise TypeError("OperationKey cannot be pickled: its identity only exists within a process")

    def __repr__(self) -> str:
        role = self._structure[1]
        suffix = "" if role is PRIMARY else f", {role!r}"
        return (
            f"OperationKey({operation_name(self._structure[0])}"
            f"#{self.fingerprint & 0xFFFFFFFF:08x}{suffix})"
        )


def _live_operation(structure: tuple[Any, ...]) -> OperationKey | None:
    """The interned key of an (op, role, *inputs) structure if it is alive."""
    try:
        ref = _operation_table.get(structure)
    except TypeError:  # something unhashable: _new_operation says what
        return None
    return None if ref is None else ref()


def _new_operation(structure: tuple[Any, ...]) -> OperationKey:
    """Validate a new (op, role, *inputs) structure and intern its key."""
    return _intern_operation(_make_operation(structure), structure)


def _intern_operation(key: OperationKey, structure: tuple[Any, ...]) -> OperationKey:
    """Intern a key `_make_operation` made (another thread's equal key if it won)."""
    try:
        return _intern(_operation_table, structure, key, _forget_operation)
    except TypeError:  # the structure's hash failed: the inputs and the role hash, the op not
        raise GraphError(f"operation {operation_name(structure[0])} is not hashable") from None


def _fresh_outputs(operation: OperationKey) -> tuple[ValueKey, ...]:
    """The output keys of an operation key not interned yet (so no other thread has it)."""
    outputs = []
    for slot in range(operation._output_count):
        key = object.__new__(ValueKey)
        key._input_key = None
        key._operation = operation
        key._output_slot = slot
        key._fingerprint = None
        outputs.append(key)
    if outputs:
        operation._output0 = weakref.ref(outputs[0])
        if len(outputs) > 1:
            operation._later_outputs = [weakref.ref(k) for k in outputs[1:]]
    return tuple(outputs)


def _make_operation(structure: tuple[Any, ...]) -> OperationKey:
    """Validate a new (op, role, *inputs) structure and make its key (not interned)."""
    op = structure[0]
    role = structure[1]
    input_total = len(structure) - 2
    try:
        input_count = op.input_count
        output_count = op.output_count
    except AttributeError:
        raise not_an_operation(op) from None
    if (
        type(input_count) is not int
        or type(output_count) is not int
        or input_count < 0
        or output_count < 0
    ):
        check_counts(op, input_count, output_count)
    if input_total != input_count:
        raise ArityError(f"{operation_name(op)} takes {input_count} inputs, got {input_total}")
    for value in structure[2:]:
        if type(value) is not ValueKey:
            raise _not_a_key(op, structure)
    if not isinstance(role, OperationRole):
        raise not_a_role(op, role)
    key = object.__new__(OperationKey)
    key._structure = structure
    key._fingerprint = None
    key._output_count = output_count
    key._output0 = None
    key._later_outputs = [None] * (output_count - 1) if output_count > 1 else None
    key.meta = None
    return key


def _not_a_key(op: Any, structure: tuple[Any, ...]) -> GraphError:
    """The error for the first input of `structure` that is not a ValueKey."""
    position, value = next((i, v) for i, v in enumerate(structure[2:]) if type(v) is not ValueKey)
    return GraphError(
        f"input {position} of {operation_name(op)} is a {type(value).__name__} "
        f"({short_repr.repr(value)}), not a ValueKey"
    )


def existing_input_key(input_key: Hashable) -> ValueKey | None:
    """The live input key for `input_key` if one exists (never creates one)."""
    try:
        ref = _input_table.get((type(input_key), input_key))
    except TypeError:
        return None
    return None if ref is None else ref()
