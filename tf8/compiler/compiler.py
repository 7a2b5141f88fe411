"""GraphCompiler: traced outputs → CompiledGraph (engine-free; see DESIGN.md §5).

resolve → materialize_merge (CSE by structure) → merge control ops computing the same values
(tf8.lax.control.merge) → compile (SSA) → prune unused extension outputs → SemanticProgram +
ProgramBindings → SemanticFingerprint.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from tf8.ad.control.hoist import hoist_loops
from tf8.errors import CompileError, DuplicateBinding, UnboundPlaceholder, UnusedInput
from tf8.graph import (
    PRIMARY,
    OperationKey,
    OperationRole,
    ValueKey,
    compile_program,
    materialize_merge,
)
from tf8.lax.control.merge import merge_control
from tf8.lax.core import merge_bindings
from tf8.ops.definition import infer
from tf8.ops.leaves import Conflict, LeafKey, merge_binding_dicts
from tf8.ops.names import scopes_of
from tf8.ops.primitive import Aval
from tf8.ops.shapes import ShapeGuard
from tf8.traced import TracedTensor

from .direct import direct_program, finish_program
from .dot import Drawable, compiled_dot
from .names import LINEAR_LEAVES, derivative_steps, input_listing, pass_word
from .program import SemanticFingerprint, SemanticProgram, format_program, make_instruction
from .prune import prune_outputs


class CompiledGraph(Drawable):
    """An immutable compiled program, its default bindings and its input keys in order.
    `pretty()` prints it; `to_dot()` / `draw()` picture it (tf8.compiler.dot), with each
    instruction's role (`roles`: linearized ops are drawn apart). It keeps no other key of the
    graph it was compiled from, so that graph is freed once the tracing is done.

    Inputs are listed by what they are (tf8.compiler.names: jit's parameter names and pytree
    paths, `params['W']`; a held constant says what it is); `output_names`, when the caller
    gave them (jit does: `value`, `grad[params['W']]`), name the outputs. Names are not part
    of the fingerprint."""

    __slots__ = ("program", "inputs", "bindings", "fingerprint", "roles", "scopes", "output_names")

    def __init__(
        self,
        program: SemanticProgram,
        inputs: tuple[ValueKey, ...],
        bindings: Mapping[ValueKey, np.ndarray],
        roles: tuple[OperationRole, ...],
        scopes: tuple[str, ...] | None = None,
        output_names: Sequence[str] | None = None,
    ) -> None:
        self.program = program
        self.inputs = inputs
        self.bindings = dict(bindings)
        self.roles = roles
        self.scopes = scopes  # each instruction's tf8.named_scope ("": none), or None: none
        count = len(program.output_slots)
        names = None if output_names is None else tuple(output_names)
        self.output_names = names if names is not None and len(names) == count else None
        self.fingerprint = SemanticFingerprint.of(program)

    @property
    def placeholders(self) -> tuple[ValueKey, ...]:
        """The inputs without a default binding, in the order Prepared.run takes them."""
        return tuple(k for k in self.inputs if k not in self.bindings)

    @property
    def ops(self) -> list[Any]:
        return [inst.op for inst in self.program.instructions]

    @property
    def outputs(self) -> tuple[Aval, ...]:
        return self.program.output_avals

    @property
    def guards(self) -> tuple[ShapeGuard, ...]:
        return self.program.guards

    def input_labels(self) -> list[str]:
        """What each input is, as `pretty()` lists it (`input x`, `constant: captured ...`)."""
        bound = self.program.input_bound
        return [
            input_listing(k.input_key, i, bound[i], self.bindings.get(k))
            for i, k in enumerate(self.inputs)
        ]

    def derivative_instructions(self) -> list[bool]:
        """Whether each instruction computes derivatives (tf8.compiler.names.derivative_steps)."""
        linear = [i for i, k in enumerate(self.inputs) if _kind(k) in LINEAR_LEAVES]
        roles = self.roles if len(self.roles) == len(self.program.instructions) else None
        steps = [
            (inst.inputs, inst.outputs, roles[n] if roles else PRIMARY)
            for n, inst in enumerate(self.program.instructions)
        ]
        return derivative_steps(linear, steps)

    def is_gradient(self) -> bool:
        """Whether the program holds a gradient's seed (its derivative ops are a backward pass)."""
        return any(_kind(k) == "seed" for k in self.inputs)

    def pretty(self) -> str:
        flags = self.derivative_instructions()
        gradient, any_derivative = self.is_gradient(), any(flags)
        passes = [pass_word(flag, any_derivative, gradient) for flag in flags]
        head = (
            f"CompiledGraph: {len(self.inputs)} inputs ({len(self.placeholders)} placeholders), "
            f"{len(self.program.instructions)} ops, {len(self.program.output_slots)} outputs, "
            f"fingerprint {self.fingerprint.hex()[:16]}"
        )
        listing = format_program(
            self.program, self.input_labels(), self.scopes, self.output_names, passes
        )
        return head + "\n" + listing

    def to_dot(self) -> str:
        """Graphviz DOT text: one node per op, linearized ops styled apart, sub-programs as
        clusters (see tf8.compiler.dot)."""
        return compiled_dot(self)

    def __repr__(self) -> str:
        return (
            f"CompiledGraph(inputs={len(self.inputs)}, ops={len(self.program.instructions)}, "
            f"outputs={len(self.program.output_slots)}, fingerprint={self.fingerprint.hex()[:16]})"
        )


def _kind(key: ValueKey) -> str | None:
    return getattr(key.input_key, "kind", None)


def _leaf(key: ValueKey) -> LeafKey:
    leaf = key.input_key
    if not isinstance(leaf, LeafKey):
        raise CompileError(f"input {key!r} is not a tf8 leaf")
    return leaf


class GraphCompiler:
    """Compiles TracedTensor outputs into a CompiledGraph; knows no engine."""

    def compile(
        self,
        *outputs: TracedTensor | Sequence[TracedTensor],
        output_names: Sequence[str] | None = None,
    ) -> CompiledGraph:
        """Compile `outputs`; every input must be bound (or be a placeholder run takes).
        `output_names` (one per output) name them in listings and pictures (display only)."""
        return self._compile(_flatten_outputs(outputs), None, False, output_names)

    def compile_with_input_specs(
        self,
        outputs: Sequence[TracedTensor] | TracedTensor,
        inputs: Sequence[TracedTensor],
        drop_unused: bool = False,
        output_names: Sequence[str] | None = None,
    ) -> CompiledGraph:
        """Compile with the input order given by `inputs`; unlisted placeholders are an error.

        An input the outputs do not read raises UnusedInput, or with `drop_unused` is left
        out of the program (`CompiledGraph.inputs` says which are in). `output_names` names
        the outputs in listings and pictures (display only: not in the fingerprint)."""
        flat = _flatten_outputs([outputs])
        return self._compile(flat, list(inputs), drop_unused, output_names)

    def _compile(
        self,
        outputs: list[TracedTensor],
        specs: list[TracedTensor] | None,
        drop_unused: bool = False,
        output_names: Sequence[str] | None = None,
    ) -> CompiledGraph:
        for t in outputs:
            if not isinstance(t, TracedTensor):
                raise CompileError(f"compile takes TracedTensors, got {type(t).__name__}")
        bindings = merge_bindings(outputs)
        keys = [t.key for t in outputs]
        flat = materialize_merge(None, keys)
        # loops (and conds) that compute what another computes become one (CSE of control)
        merged = merge_control(keys, flat.operations)
        if merged is not keys:
            flat = materialize_merge(None, merged)
        # what a loop computes for no later iteration runs outside it, over all iterations
        # (kept only if every input is still read: a loop whose unread result was its only
        # reader of an input no longer reads it, and a caller's input list must stay valid)
        hoisted, made = hoist_loops(merged, flat.operations)
        if hoisted is not merged:
            moved = materialize_merge(None, hoisted)
            if specs is None or drop_unused or set(moved.inputs) >= set(flat.inputs):
                flat = moved
                bindings = merge_binding_dicts([bindings, made])
        # Without multi-output ops nothing is pruned: the program is numbered in one pass.
        single = all([op_key._output_count == 1 for op_key in flat.operations])
        ssa = None if single else prune_outputs(compile_program(flat))
        input_keys = list(flat.inputs)
        if specs is not None:
            input_keys = _order_by_specs(input_keys, specs, bindings, drop_unused)
        bound: dict[ValueKey, np.ndarray] = {}
        names: dict[str, ValueKey] = {}
        for key in input_keys:
            leaf = _leaf(key)
            value = bindings.get(key)
            if isinstance(value, Conflict):
                raise DuplicateBinding(
                    f"leaf {leaf.label()!r} is bound to {len(value.arrays)} different arrays in "
                    f"one program ({', '.join(str(a.shape) for a in value.arrays)})"
                )
            if leaf.name is not None:
                other = names.setdefault(leaf.name, key)
                if other is not key:
                    raise DuplicateBinding(
                        f"two different leaves are named {leaf.name!r} in one program "
                        f"({other.input_key.aval} and {leaf.aval})"
                    )
            if value is not None:
                bound[key] = value
        if ssa is None:
            input_avals = [_leaf(k).aval for k in input_keys]
            program = direct_program(flat, input_keys, input_avals, bound)
        else:
            program = _semantic_program(ssa, input_keys, bound, flat.operations)
        roles = tuple([op_key._structure[1] for op_key in flat.operations])
        scopes = scopes_of(flat.operations)
        return CompiledGraph(program, tuple(input_keys), bound, roles, scopes, output_names)


def _flatten_outputs(outputs: Iterable[Any]) -> list[TracedTensor]:
    flat: list[TracedTensor] = []
    for item in outputs:
        if isinstance(item, (list, tuple)):
            flat.extend(_flatten_outputs(item))
        else:
            flat.append(item)
    if not flat:
        raise CompileError("compile needs at least one output")
    return flat


def _order_by_specs(
    input_keys: list[ValueKey],
    specs: list[TracedTensor],
    bindings: Mapping[ValueKey, Any],
    drop_unused: bool = False,
) -> list[ValueKey]:
    """The program's inputs: the specs in order (those read, with `drop_unused`), then the
    bound leaves."""
    present = set(input_keys)
    if drop_unused:
        specs = [t for t in specs if t.key in present]
    spec_keys = [t.key for t in specs]
    seen: set[ValueKey] = set()
    for t in specs:
        if not t.key.is_input:
            raise CompileError(f"input spec {t.aval} is not a leaf (tensor or placeholder)")
        if t.key in seen:
            raise CompileError(f"input spec {_leaf(t.key).label()!r} ({t.aval}) is listed twice")
        seen.add(t.key)
        if t.key not in present:
            raise UnusedInput(
                f"input spec {_leaf(t.key).label()!r} ({t.aval}) is not used by the outputs"
            )
    listed = set(spec_keys)
    for key in input_keys:
        if key not in listed and key not in bindings:
            raise UnboundPlaceholder(
                f"placeholder {_leaf(key).label()!r} ({_leaf(key).aval}) is neither bound nor "
                "listed as an input"
            )
    return spec_keys + [k for k in input_keys if k not in listed]


def _semantic_program(
    ssa: Any,
    input_keys: list[ValueKey],
    bound: Mapping[ValueKey, Any],
    operations: Sequence[OperationKey],
) -> SemanticProgram:
    """Renumber slots so inputs come first in `input_keys` order. Avals and guards are the
    ones recorded when each op was traced (`operations`, one per instruction); only an op
    that pruning replaced is inferred again. (Programs without multi-output ops take
    `direct_program`, in one pass.)"""
    position = {key: i for i, key in enumerate(input_keys)}
    renumber: dict[int, int] = {}
    for slot, key in zip(ssa.input_slots, ssa.input_keys):
        renumber[slot] = position[key]
    next_slot = len(input_keys)
    avals: list[Aval] = [_leaf(k).aval for k in input_keys]
    guards: list[ShapeGuard] = []
    instructions = []
    for inst, op_key in zip(ssa.instructions, operations):
        ins = tuple([renumber[s] for s in inst.inputs])
        meta = op_key.meta
        if inst.op is op_key.op and meta is not None:
            out_avals = meta[0]
            if meta[1]:
                guards.extend(meta[1])
        else:
            out_avals = infer(inst.op, [avals[s] for s in ins], guards)
        if len(inst.outputs) == 1:  # the common case, without the loop
            renumber[inst.outputs[0]] = next_slot
            outs: tuple[int, ...] = (next_slot,)
            avals.append(out_avals[0])
            next_slot += 1
        else:
            outs = tuple(range(next_slot, next_slot + len(inst.outputs)))
            for slot, new_slot, aval in zip(inst.outputs, outs, out_avals):
                renumber[slot] = new_slot
                avals.append(aval)
            next_slot += len(outs)
        instructions.append(make_instruction(inst.op, ins, outs))
    output_slots = [renumber[s] for s in ssa.output_slots]
    return finish_program(avals, input_keys, bound, instructions, output_slots, guards)
