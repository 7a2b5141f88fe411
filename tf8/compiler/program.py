"""SemanticProgram: the immutable, engine-free SSA program a GraphCompiler produces."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tf8.graph import fingerprint
from tf8.ops.primitive import Aval
from tf8.ops.shapes import ShapeGuard, dim_key

from .names import subprogram_descriptions


@dataclass(frozen=True, slots=True)
class SemanticInstruction:
    """One op of the program: reads `inputs` slots, writes `outputs` slots (SSA)."""

    op: Any
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]

    @property
    def name(self) -> str:
        return self.op.name


_new = object.__new__
_set_op = SemanticInstruction.op.__set__  # type: ignore[attr-defined]
_set_inputs = SemanticInstruction.inputs.__set__  # type: ignore[attr-defined]
_set_outputs = SemanticInstruction.outputs.__set__  # type: ignore[attr-defined]


def make_instruction(op: Any, inputs: tuple[int, ...], outputs: tuple[int, ...]) -> Any:
    """`SemanticInstruction(op, inputs, outputs)` at half the cost (the frozen dataclass's
    own __init__ goes through object.__setattr__ per field; compilers make one per op)."""
    instruction = _new(SemanticInstruction)
    _set_op(instruction, op)
    _set_inputs(instruction, inputs)
    _set_outputs(instruction, outputs)
    return instruction


@dataclass(frozen=True, slots=True)
class SemanticProgram:
    """Slots 0..len(input_avals)-1 are the inputs; every other slot is written once."""

    input_avals: tuple[Aval, ...]
    input_bound: tuple[bool, ...]  # True: a default binding exists (not a placeholder)
    instructions: tuple[SemanticInstruction, ...]
    slot_avals: tuple[Aval, ...]
    output_slots: tuple[int, ...]
    guards: tuple[ShapeGuard, ...]

    @property
    def output_avals(self) -> tuple[Aval, ...]:
        return tuple(self.slot_avals[s] for s in self.output_slots)


class SemanticFingerprint:
    """128-bit structural identity of a program: input metadata, ops, outputs and guards.

    Value numbering is the program's own SSA numbering, which depends only on structure, so
    equal structures built from different data (or different leaf keys) fingerprint equal.

    It keeps the structural text it hashes: two fingerprints made by `of` are equal only when
    their texts are, so even a 128-bit collision (tests force one by patching
    `tf8.graph.fingerprint.digest128`) never makes the prepare cache confuse two programs.
    """

    __slots__ = ("_digest", "_text")

    def __init__(self, digest: bytes, text: bytes | None = None) -> None:
        self._digest = digest
        self._text = text

    @classmethod
    def of(cls, program: SemanticProgram) -> SemanticFingerprint:
        parts: list[str] = []
        for aval, bound in zip(program.input_avals, program.input_bound):
            parts.append(f"in {aval.dtype} {','.join(dim_key(d) for d in aval.shape)} {int(bound)}")
        # Each distinct op's key once (one op object serves many instructions), in order of
        # first use; each instruction as integers: op number, inputs and outputs (each count
        # first), packed in one array (formatting them as text cost more than the rest).
        numbers: dict[int, int] = {}  # id(op) -> its number
        op_keys: list[str] = []
        flat: list[int] = []
        extend = flat.extend
        for inst in program.instructions:
            op = inst.op
            number = numbers.get(id(op))
            if number is None:
                number = numbers[id(op)] = len(op_keys)
                op_keys.append(op.key())
            ins, outs = inst.inputs, inst.outputs
            extend((number, len(ins), *ins, len(outs), *outs))
        parts.append(f"ops {op_keys!r}")  # repr: no raw NUL, which ends the text part below
        parts.append(f"out {program.output_slots}")
        for guard in program.guards:
            parts.append(f"guard {dim_key(guard.lhs)}={dim_key(guard.rhs)}")
        text = "\n".join(parts).encode("unicode_escape") + b"\0" + array("q", flat).tobytes()
        return cls(fingerprint.digest128(text).to_bytes(16, "little"), text)

    def __bytes__(self) -> bytes:
        return self._digest

    def __hash__(self) -> int:
        return int.from_bytes(self._digest[:8], "little")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SemanticFingerprint) or self._digest != other._digest:
            return False
        mine, theirs = self._text, other._text
        return mine is None or theirs is None or mine == theirs

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, SemanticFingerprint):
            return NotImplemented
        return self._digest < other._digest

    def hex(self) -> str:
        return self._digest.hex()

    def __repr__(self) -> str:
        return f"SemanticFingerprint({self._digest.hex()})"


def format_program(
    program: SemanticProgram,
    input_labels: Sequence[str],
    scopes: Sequence[str] | None = None,
    output_labels: Sequence[str] | None = None,
    passes: Sequence[str] | None = None,
) -> str:
    """Readable listing: inputs with their avals and what each is (`input_labels`: `input x`,
    `constant: gradient seed = 1.0`), one line per op (with its named scope), each control
    op's sub-programs under their titles (`scan body`, with the op's pass from `passes`:
    ` (backward)`), and the outputs, with their names when `output_labels` gives them."""
    lines = []
    for i, (aval, label) in enumerate(zip(program.input_avals, input_labels)):
        lines.append(f"  %{i}: {aval}  # {label}")
    for k, inst in enumerate(program.instructions):
        outs = ", ".join(f"%{s}" for s in inst.outputs)
        ins = ", ".join(f"%{s}" for s in inst.inputs)
        avals = ", ".join(str(program.slot_avals[s]) for s in inst.outputs)
        scope = f"  # {scopes[k]}" if scopes and scopes[k] else ""
        lines.append(f"  {outs} = {inst.op!r}({ins})  : {avals}{scope}")
        subs = getattr(inst.op, "subprograms", ())
        if subs:  # control ops: their bodies, nested, each under its title
            suffix = passes[k] if passes else ""
            for sub, (title, _, _) in zip(subs, subprogram_descriptions(inst.op)):
                lines.append(f"    # {title}{suffix}")
                lines.append(sub.pretty())
    for guard in program.guards:
        lines.append(f"  guard {guard.lhs} == {guard.rhs}  # {guard.reason}")
    slots = [f"%{s}" for s in program.output_slots]
    if output_labels is not None and len(output_labels) == len(slots):
        slots = [f"{slot} ({label})" for slot, label in zip(slots, output_labels)]
    lines.append("  return " + ", ".join(slots))
    return "\n".join(lines)
